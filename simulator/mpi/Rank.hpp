/* The actor of one MPI rank: it replays its trace, one action after the other. */
#pragma once

#include "mpi/RequestStore.hpp"
#include "mpi/World.hpp"

#include <unordered_map>

namespace progsim::mpi {

class Rank {
public:
  Rank(World& world, int rank) : world_(world), rank_(rank), endpoint_(world.endpoint(rank)) {}
  void operator()();

private:
  /** Runs the rank's trace to its end, then waits for the requests it left, as SMPI's replay does. */
  void replay();
  /** Blocks until `request` completes (a blocked rank, as timelines and deadlock reports see it). */
  void wait(const RequestPtr& request);
  /** A wait call: its cost, then wait() for `request` (null: none); where the kernel runs the rank's waits, all in
   * one park of the rank's actor (Endpoint::call_and_wait). */
  void call_and_wait(const RequestPtr& request);
  /** The rank blocks on `request` (timelines, deadlock reports), and is done blocking, since `blocked_at`. */
  void block_on(const RequestPtr& request);
  void unblock(double blocked_at);
  /** The next action of the trace, or null at its end. */
  const trace::Action* read_next(trace::ActionStream& actions);
  void run(const trace::Action& action);
  void run_collective(const trace::Action& action);
  /** A non-blocking collective's reduction, once its request completed in a wait or a successful test. */
  void reduce_if_done(const RequestPtr& request);
  RequestPtr post(bool is_send, int peer, int tag, int64_t bytes, Context context);
  void compute(double flops, const trace::Action* action);
  /** What every wait or test call costs, even when nothing is pending. */
  void pay_call();

  World& world_;
  int rank_;
  Endpoint& endpoint_;
  RequestStore store_;
  std::vector<RequestPtr> buffered_sends_; // blocking sends that returned once copied: finalize waits for them
  std::unordered_map<uint64_t, double> reductions_; // flops of non-blocking reductions, by their request's id
};

} // namespace progsim::mpi
