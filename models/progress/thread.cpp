/* thread: a progress thread per rank polls at a fixed interval on the rank's own cores. Its polling takes CPU
 * from the application, which slows down when the node's cores are oversubscribed. */
#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"
#include "progress/ProgressAgent.hpp"
#include "progress/ProgressModel.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <cmath>

namespace sg4 = simgrid::s4u;

namespace progsim::models::progress {

namespace {
class ThreadProgress : public ProgressModel {
public:
  explicit ThreadProgress(const Parameters& p) : interval_(p.thread_poll_interval), poll_cost_(p.thread_poll_cost) {}

  std::string_view name() const override { return "thread"; }
  bool rank_drives(const mpi::Endpoint&) const override { return false; }

  /** Share of a core that idle polling keeps busy: one poll of poll_cost every poll_interval. */
  double polling_share() const
  {
    double period = interval_ + poll_cost_;
    return period > 0 ? poll_cost_ / period : 0.0;
  }

  void start(mpi::World& world) override
  {
    agents_.resize(world.size());
    for (int rank = 0; rank < world.size(); rank++) {
      mpi::Endpoint& endpoint = world.endpoint(rank);
      auto agent = std::make_shared<ProgressAgent>(std::vector<mpi::Endpoint*>{&endpoint},
                                                   [this, &endpoint]() { wait_for_poll(endpoint); });
      agents_[rank] = agent;
      if (polling_share() > 0) // idle polling keeps part of a core busy
        agent->reserve(1, polling_share() * endpoint.host()->get_speed());
      sg4::Actor::create("progress-thread-" + std::to_string(rank), endpoint.host(), [agent]() { (*agent)(); });
    }
  }

  void execute_step(mpi::Endpoint& endpoint, double cpu_seconds) override
  {
    if (cpu_seconds <= 0)
      return;
    // The thread runs on the rank's host: it competes with the computation for the cores.
    endpoint.world().spend_cpu(endpoint.host(), cpu_seconds);
    endpoint.add_step_seconds(cpu_seconds);
  }

  int extra_cpu_users(const mpi::World& world, const sg4::Host* host) const override
  {
    int ranks = 0;
    for (int rank = 0; rank < world.size(); rank++)
      ranks += world.host_of(rank) == host ? 1 : 0;
    return ranks * (polling_share() > 0 ? 2 : 1); // the thread's steps, and its idle polling
  }

  void wake(mpi::Endpoint& endpoint) override { agents_[endpoint.rank()]->ring(); }

  void pause_background(bool paused) override
  {
    for (auto& agent : agents_)
      agent->pause_load(paused);
  }

  void stop(mpi::World&) override
  {
    for (auto& agent : agents_)
      agent->stop();
  }

  double background_cpu_seconds(const mpi::Endpoint&, double lifetime) const override
  {
    return polling_share() * lifetime;
  }

private:
  /** Something is ready: the thread sees it at its next poll, which costs poll_cost of CPU. */
  void wait_for_poll(mpi::Endpoint& endpoint)
  {
    if (interval_ > 0) {
      double now  = sg4::Engine::get_clock();
      double next = std::ceil(now / interval_) * interval_;
      if (next > now)
        sg4::this_actor::sleep_until(next);
    }
    execute_step(endpoint, poll_cost_);
  }

  double interval_;
  double poll_cost_;
  std::vector<std::shared_ptr<ProgressAgent>> agents_;
};
} // namespace

std::unique_ptr<ProgressModel> make_thread(const Parameters& parameters)
{
  return std::make_unique<ThreadProgress>(parameters);
}

} // namespace progsim::models::progress
