/* The actor of one MPI rank: it replays its trace, one action after the other. */
#pragma once

#include "collectives/PointToPoint.hpp"
#include "mpi/RequestStore.hpp"
#include "mpi/World.hpp"

namespace progsim::mpi {

class Rank : public models::collectives::PointToPoint {
public:
  Rank(World& world, int rank) : world_(world), rank_(rank), endpoint_(world.endpoint(rank)) {}
  void operator()();

  int rank() const override { return rank_; }
  int size() const override { return world_.size(); }
  RequestPtr isend(int destination, int tag, int64_t bytes) override;
  RequestPtr irecv(int source, int tag, int64_t bytes) override;
  void wait(const RequestPtr& request) override;

private:
  void run(const trace::Action& action);
  void run_collective(const trace::Action& action);
  RequestPtr post(bool is_send, int peer, int tag, int64_t bytes, Context context);
  void compute(double flops, const trace::Action* action);
  /** What every wait or test call costs, even when nothing is pending (explicit protocols only). */
  void pay_call();

  World& world_;
  int rank_;
  Endpoint& endpoint_;
  RequestStore store_;
  std::vector<RequestPtr> buffered_sends_; // blocking sends that returned once copied: finalize waits for them
};

} // namespace progsim::mpi
