/* A collective operation as data: the rounds of point-to-point transfers one rank takes part in. */
#pragma once

#include "trace/Action.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace progsim::mpi {

/** One message a round posts: a send to, or a receive from, `peer`. */
struct ScheduledTransfer {
  bool is_send;
  int peer;
  int tag;
  int64_t bytes;
};

/** A transfer of a schedule by position: transfer `index` of round `round`. */
struct TransferRef {
  size_t round;
  size_t index;
};

/** Transfers posted together, in this order; the next round starts when what the round waits for completed. */
struct Round {
  std::vector<ScheduledTransfer> transfers;
  /** Empty: every transfer of this round. Otherwise these, of this round or of earlier ones still in flight: an
   * algorithm that keeps a receive posted while it waits for the one before (Open MPI's tree reductions) waits for
   * part of what it posted, and for the rest one round later. */
  std::vector<TransferRef> waits;
};

/** A collective that the network runs in hardware (NetworkCollectives): the rank hands it its contribution. */
struct InNetwork {
  uint64_t sequence; // the world's collective number
  int64_t bytes;
};

/** The rounds of one rank in one collective, or its part in one that the network runs (no rounds then). */
struct Schedule {
  std::vector<Round> rounds;
  std::optional<InNetwork> in_network;
};

/** Turns a collective action of the trace into the schedule of one rank: the algorithms are models. */
class CollectiveAlgorithms {
public:
  virtual ~CollectiveAlgorithms() = default;
  /** `counts` holds the per-peer byte vectors that a v-collective's action points to. */
  virtual Schedule schedule(const trace::Action& action, int rank, int size, const trace::CountPool& counts) const = 0;
};

} // namespace progsim::mpi
