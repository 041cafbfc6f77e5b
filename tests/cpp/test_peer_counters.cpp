/* PeerCounters against a plain map: the same increments give the same counts, inline or past the inline peers. */
#include "mpi/PeerCounters.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>

using progsim::mpi::PeerCounters;

TEST(PeerCounters, EveryPeerStartsAtZero)
{
  PeerCounters counters;
  for (int peer = 0; peer < 10; peer++)
    EXPECT_EQ(counters[peer], 0u);
}

TEST(PeerCounters, CountsMatchAMapWithManyPeersInAnyOrder)
{
  PeerCounters counters;
  std::map<int, uint64_t> reference;
  std::mt19937 random(17);
  std::uniform_int_distribution<int> peer_of(0, 40); // more peers than the inline ones
  for (int i = 0; i < 5000; i++) {
    int peer = peer_of(random);
    counters[peer]++;
    reference[peer]++;
  }
  for (int peer = 0; peer <= 40; peer++)
    EXPECT_EQ(counters[peer], reference[peer]) << "peer " << peer;
}

TEST(PeerCounters, AReferenceStaysValidWhilePeersAreAdded)
{
  PeerCounters counters;
  uint64_t& first = counters[7];
  for (int peer = 100; peer < 200; peer++)
    counters[peer] = static_cast<uint64_t>(peer);
  first = 42;
  EXPECT_EQ(counters[7], 42u);
  EXPECT_EQ(counters[150], 150u);
}
