/* Runs a collective algorithm written with point-to-point calls and records what it posts as rounds. */
#pragma once

#include "collectives/PointToPoint.hpp"
#include "mpi/Schedule.hpp"

#include <set>

namespace progsim::models::collectives {

/**
 * A PointToPoint that posts nothing: every isend and irecv becomes a transfer of the current round, and the first
 * wait closes the round. An algorithm must wait for everything it posted before it posts again (SMPI's default
 * algorithms all do); one that does not is refused, since rounds could not express it.
 */
class ScheduleRecorder : public PointToPoint {
public:
  ScheduleRecorder(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  mpi::RequestPtr isend(int destination, int tag, int64_t bytes) override;
  mpi::RequestPtr irecv(int source, int tag, int64_t bytes) override;
  void wait(const mpi::RequestPtr& request) override;

  /** The rounds recorded; every request posted must have been waited. */
  mpi::Schedule take();

private:
  mpi::RequestPtr post(bool is_send, int peer, int tag, int64_t bytes);

  int rank_;
  int size_;
  uint64_t next_id_ = 1;
  mpi::Schedule schedule_;
  mpi::Round open_;                   // posted, not yet waited
  std::set<uint64_t> open_ids_;       // requests of the open round
  std::set<uint64_t> unwaited_;       // requests of the last closed round not waited yet
};

} // namespace progsim::models::collectives
