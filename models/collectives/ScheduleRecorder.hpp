/* Runs a collective algorithm written with point-to-point calls and records what it posts as rounds. */
#pragma once

#include "collectives/PointToPoint.hpp"
#include "mpi/Schedule.hpp"

#include <map>

namespace progsim::models::collectives {

/**
 * A PointToPoint that posts nothing: the isends and irecvs up to a wait become the transfers of a round, and the
 * waits that follow, up to the next post, what the round waits for before the next one starts. A round that waits
 * for all its transfers and nothing else is the common case (SMPI's algorithms); one that leaves some in flight
 * (Open MPI's reductions keep the next child's receive posted while they wait for the last one) names what it
 * waits for (Round::waits), and a later round waits for the rest.
 */
class ScheduleRecorder : public PointToPoint {
public:
  ScheduleRecorder(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  mpi::RequestPtr isend(int destination, int tag, int64_t bytes) override;
  mpi::RequestPtr irecv(int source, int tag, int64_t bytes) override;
  void wait(const mpi::RequestPtr& request) override;

  /** The rounds recorded; every request posted must have been waited. Throws std::logic_error otherwise. */
  mpi::Schedule take();

private:
  mpi::RequestPtr post(bool is_send, int peer, int tag, int64_t bytes);
  void close_round();

  int rank_;
  int size_;
  uint64_t next_id_ = 1;
  mpi::Schedule schedule_;
  mpi::Round open_;                                // being recorded: its posts, then its waits
  bool waiting_ = false;                           // the open round's posts are over: waits follow
  std::map<uint64_t, mpi::TransferRef> in_flight_; // posted, not waited yet
};

} // namespace progsim::models::collectives
