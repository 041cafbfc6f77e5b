/* One rank's part in a collective operation, run round after round by a small state machine. */
#pragma once

#include "mpi/Request.hpp"
#include "mpi/Schedule.hpp"

#include <vector>

namespace progsim::mpi {

class Endpoint;

/**
 * Posts the transfers of a schedule round by round: a round starts once every request of the one before it
 * completed. Whoever makes those requests complete calls advance(): the rank blocked in its collective today, a
 * progress engine for non-blocking collectives tomorrow.
 */
class CollectiveRequest {
public:
  enum class State : uint8_t { NotStarted, InRound, Complete };

  CollectiveRequest(Endpoint& endpoint, Schedule schedule) : endpoint_(endpoint), schedule_(std::move(schedule)) {}

  /** Posts the first round (or completes at once when there is none). */
  void start();
  /** Starts the next rounds while the current one is complete. */
  void advance();
  bool complete() const { return state_ == State::Complete; }
  State state() const { return state_; }
  size_t round() const { return round_; }
  /** The requests of the current round that are not complete yet. */
  std::vector<RequestPtr> pending() const;

private:
  void post_round();

  Endpoint& endpoint_;
  Schedule schedule_;
  State state_  = State::NotStarted;
  size_t round_ = 0;
  std::vector<RequestPtr> requests_; // of the current round
};

} // namespace progsim::mpi
