/* A collective operation as data: the rounds of point-to-point transfers one rank takes part in. */
#pragma once

#include "trace/Action.hpp"

#include <cstdint>
#include <vector>

namespace progsim::mpi {

/** One message a round posts: a send to, or a receive from, `peer`. */
struct ScheduledTransfer {
  bool is_send;
  int peer;
  int tag;
  int64_t bytes;
};

/** Transfers posted together, in this order; the next round starts when all of them completed. */
struct Round {
  std::vector<ScheduledTransfer> transfers;
};

/** The rounds of one rank in one collective. */
struct Schedule {
  std::vector<Round> rounds;
};

/** Turns a collective action of the trace into the schedule of one rank: the algorithms are models. */
class CollectiveAlgorithms {
public:
  virtual ~CollectiveAlgorithms() = default;
  /** `counts` holds the per-peer byte vectors that a v-collective's action points to. */
  virtual Schedule schedule(const trace::Action& action, int rank, int size, const trace::CountPool& counts) const = 0;
};

} // namespace progsim::mpi
