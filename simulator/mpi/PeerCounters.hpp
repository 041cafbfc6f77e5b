/* A counter per peer rank, for the few peers most ranks talk to. */
#pragma once

#include <boost/container/static_vector.hpp>

#include <cstdint>
#include <unordered_map>

namespace progsim::mpi {

/**
 * A counter per peer rank, from 0. Most ranks talk to a few peers (a ring's or a stencil's neighbours, a tree's
 * parent and children): their counters stay inline, found by scanning a few entries of memory the rank touches
 * anyway, where a hash table costs two cache misses per look-up at thousands of ranks. A rank that talks to more
 * (an all-to-all) keeps the others in a hash table. A world-sized table per rank would be quadratic in memory.
 */
class PeerCounters {
public:
  uint64_t& operator[](int peer)
  {
    for (auto& entry : near_)
      if (entry.peer == peer)
        return entry.count;
    if (near_.size() < near_.capacity())
      return near_.emplace_back(Entry{peer, 0}).count;
    return others_[peer];
  }

private:
  struct Entry {
    int peer;
    uint64_t count;
  };
  boost::container::static_vector<Entry, 4> near_; // the first peers met
  std::unordered_map<int, uint64_t> others_;
};

} // namespace progsim::mpi
