/* One rank's part in a collective operation, run round after round by a small state machine. */
#pragma once

#include "mpi/Request.hpp"
#include "mpi/Schedule.hpp"

#include <memory>
#include <vector>

namespace progsim::mpi {

class Endpoint;

/**
 * Posts the transfers of a schedule round by round: a round starts once every request the one before it waits for
 * completed (all of its own, or those its schedule names, which may carry over from earlier rounds), when advance()
 * is called: by the rank blocked in its collective, or, for a non-blocking collective
 * (one with a handle), by whoever completes the last request of a round where the mechanism lets it start rounds
 * (Endpoint::complete), and by the rank in each of its MPI calls otherwise.
 */
class CollectiveRequest {
public:
  enum class State : uint8_t { NotStarted, InRound, Complete };

  CollectiveRequest(Endpoint& endpoint, Schedule schedule) : endpoint_(endpoint), schedule_(std::move(schedule)) {}

  /** Makes it non-blocking: `handle`, the request that the trace's wait and test name, completes with it. */
  void set_handle(const RequestPtr& handle) { handle_ = handle; }
  RequestPtr handle() const { return handle_.lock(); }
  bool nonblocking() const { return not handle_.expired(); }
  /** Posts the first round (or completes at once when there is none); a blocking collective also the rounds that
   * follow as long as they complete at once. */
  void start();
  /** Starts the next rounds while the current one is complete. */
  void advance();
  bool complete() const { return state_ == State::Complete; }
  /** Every request the current round waits for completed, and the next round is not posted yet. */
  bool round_done() const;
  State state() const { return state_; }
  size_t round() const { return round_; }
  /** The requests the current round waits for that are not complete yet. */
  std::vector<RequestPtr> pending() const;
  /** The requests the current round waits for (the last one's, once complete). */
  const std::vector<RequestPtr>& round_requests() const { return requests_; }
  /** Whether an MPI_Test found `request` complete (SMPI tests each request of the collective in every MPI_Test of
   * its handle; one found complete costs its test, and changes nothing else). */
  bool found_complete(const RequestPtr& request) const;
  void set_found_complete(const RequestPtr& request) { found_.push_back(request->id); }

private:
  void post_round();

  Endpoint& endpoint_;
  Schedule schedule_;
  State state_  = State::NotStarted;
  size_t round_ = 0;
  std::vector<RequestPtr> requests_;            // that the current round waits for
  std::vector<std::vector<RequestPtr>> posted_; // by round, for the rounds that wait for earlier transfers
  std::weak_ptr<Request> handle_;    // non-blocking: what wait and test name (it owns this collective)
  std::vector<uint64_t> found_;      // ids of the requests an MPI_Test found complete
  bool carries_over_ = false;        // some round waits for transfers of earlier ones: keep them all
  bool posting_ = false;             // a round is being posted: requests completing meanwhile wait for its end
};

} // namespace progsim::mpi
