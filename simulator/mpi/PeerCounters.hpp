/* A counter per peer rank, for the few peers most ranks talk to. */
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>

namespace progsim::mpi {

/**
 * A counter per peer rank, from 0. Most ranks talk to a few peers (a ring's or a stencil's neighbours, a tree's
 * parent and children): their counters stay inline, found by scanning a few entries of memory the rank touches
 * anyway, where a hash table costs two cache misses per look-up at thousands of ranks. A rank that talks to more
 * (an all-to-all) keeps the others in a hash table, made when it first needs one. One cache line in all: an endpoint
 * holds two, read at every message. A world-sized table per rank would be quadratic in memory. A counter never moves.
 */
class PeerCounters {
public:
  uint64_t& operator[](int peer)
  {
    for (uint32_t i = 0; i < near_count_; i++)
      if (near_peers_[i] == peer)
        return near_counts_[i];
    if (near_count_ < kNear) {
      near_peers_[near_count_] = peer;
      return near_counts_[near_count_++];
    }
    if (not others_)
      others_ = std::make_unique<std::unordered_map<int, uint64_t>>();
    return (*others_)[peer];
  }

private:
  static constexpr uint32_t kNear = 4;
  std::array<int, kNear> near_peers_{}; // the first peers met
  uint32_t near_count_ = 0;
  std::array<uint64_t, kNear> near_counts_{};
  std::unique_ptr<std::unordered_map<int, uint64_t>> others_;
};

} // namespace progsim::mpi
