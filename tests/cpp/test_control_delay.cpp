/*
 * Unit tests of the piecewise factors that ControlDelay reads as SimGrid's SMPI network model does
 * (network_smpi.cpp, 3.32: sorted by size, the factor of the largest threshold strictly below the size, 1 if none).
 * The times themselves are checked against SimGrid's own transfers in tests/test_control_messages.py.
 */
#include "mpi/ControlDelay.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

using progsim::mpi::ControlDelay;

// SimGrid 3.32's default smpi/lat-factor (sg_config.cpp), written largest threshold first, as SimGrid writes it.
// Its description there says "if (size >= thresholdN) return valueN"; the code (network_smpi.cpp) returns the
// value of the threshold below as long as size <= threshold, so a size equal to a threshold takes the one below.
constexpr const char* kDefaultLatency =
    "65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;1426:1.61075;732:1.9503;257:1.95341;"
    "0:2.01467";

TEST(ControlDelay, TakesTheFactorOfTheLargestThresholdStrictlyBelowTheSize)
{
  EXPECT_DOUBLE_EQ(ControlDelay::piecewise_factor(kDefaultLatency, 64), 2.01467);
  EXPECT_DOUBLE_EQ(ControlDelay::piecewise_factor(kDefaultLatency, 257), 2.01467); // 257 <= 257: the one below
  EXPECT_DOUBLE_EQ(ControlDelay::piecewise_factor(kDefaultLatency, 258), 1.95341);
  EXPECT_DOUBLE_EQ(ControlDelay::piecewise_factor(kDefaultLatency, 1e6), 11.6436);
  EXPECT_DOUBLE_EQ(ControlDelay::piecewise_factor(kDefaultLatency, 0), 1.0); // no threshold below 0
}

TEST(ControlDelay, IgnoresFurtherValuesAndEmptyChunks)
{
  EXPECT_DOUBLE_EQ(ControlDelay::piecewise_factor("0:2:7;;100:3:8;", 64), 2.0);
  EXPECT_DOUBLE_EQ(ControlDelay::piecewise_factor("", 64), 1.0);
}

TEST(ControlDelay, RefusesWhatSimGridCouldNotRead)
{
  for (const char* bad : {"0:2;x:3", "0", "0:abc", "0:2x", "0:0", "0:-1", "-5:2", "0:inf"})
    EXPECT_THROW(ControlDelay::piecewise_factor(bad, 64), std::invalid_argument) << bad;
}
