/*
 * Collectives that the network runs in hardware: a combining tree in the NICs and switches (Blue Gene's collective
 * network, InfiniBand SHARP) that reduces and broadcasts as the contributions flow through it, with no host CPU and
 * no rounds for anyone to start. A rank hands its contribution to its NIC and waits; once the last rank's arrived,
 * every rank's part completes after the tree's latency plus the bytes streamed at its bandwidth. The latency does
 * not grow with the rank count: Gropp measured allreduce(1) in about 4 network latencies at 524 288 ranks on
 * Blue Gene/Q ("effectively P-independent").
 */
#pragma once

#include "mpi/Request.hpp"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace progsim::mpi {

class World;

class NetworkCollectives {
public:
  explicit NetworkCollectives(World& world) : world_(world) {}

  /** Rank `rank` hands `request`, its part of the world's collective number `sequence`, to the network. */
  void join(uint64_t sequence, int rank, const RequestPtr& request);
  /** Seconds the network takes for a collective of `bytes`, from the last contribution on. */
  double duration(int64_t bytes) const;

private:
  struct Gathering {
    std::vector<std::pair<int, RequestPtr>> joined; // rank, its request
    int64_t bytes = 0;
  };

  World& world_;
  std::map<uint64_t, Gathering> gathering_; // by collective sequence number, until every rank joined
};

} // namespace progsim::mpi
