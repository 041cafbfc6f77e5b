/* A rank's trace lines parsed from a string, for the trace reader's tests (test_trace.cpp, test_trace_collectives.cpp,
 * test_trace_errors.cpp): the actions, one action, or the error. */
#pragma once

#include "trace/TraceSet.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace progsim::testing {

/** The result of parsing one rank's lines. */
struct Parsed {
  progsim::trace::TraceSet set;
  progsim::trace::RankTrace trace;

  const progsim::trace::Action& at(size_t i) const { return trace.actions.at(i); }
  std::vector<int64_t> vec(uint32_t offset, int n) const
  {
    const int64_t* v = set.vector_at(offset);
    return std::vector<int64_t>(v, v + n);
  }
};

inline Parsed parse(const std::string& text, int rank = 0, int world = 4, const std::string& file = "t.txt")
{
  Parsed p;
  std::istringstream in(text);
  progsim::trace::parse_rank_lines(in, file, rank, world, p.set, p.trace);
  return p;
}

/** Parses `text` and returns the only action it holds. */
inline progsim::trace::Action one(const std::string& text, int world = 4)
{
  Parsed p = parse(text, 0, world);
  EXPECT_EQ(p.trace.actions.size(), 1u) << text;
  return p.trace.actions.empty() ? progsim::trace::Action{} : p.trace.actions.front();
}

/** The message of the TraceError that parsing `text` throws (fails the test if none is thrown). */
inline std::string parse_error(const std::string& text, int rank = 0, int world = 4, const std::string& file = "t.txt")
{
  try {
    parse(text, rank, world, file);
  } catch (const progsim::trace::TraceError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no TraceError for: " << text;
  return "";
}

inline bool contains(const std::string& haystack, const std::string& needle)
{
  return haystack.find(needle) != std::string::npos;
}

} // namespace progsim::testing
