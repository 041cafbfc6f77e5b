/* thread: a progress thread per rank polls at a fixed interval on the rank's own cores. Its polling takes CPU
 * from the application, which slows down when the node's cores are oversubscribed. */
#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"
#include "progress/ProgressAgent.hpp"
#include "progress/ProgressModel.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <cmath>

namespace sg4 = simgrid::s4u;

namespace progsim::models::progress {

namespace {
class ThreadProgress : public ProgressModel {
public:
  explicit ThreadProgress(const Parameters& p) : interval_(p.thread_poll_interval), poll_cost_(p.thread_poll_cost) {}

  std::string_view name() const override { return "thread"; }
  bool rank_drives(const mpi::Endpoint&) const override { return false; }
  std::string_view executor(const mpi::Endpoint&) const override { return "progress-thread"; }

  /** Share of a core that idle polling keeps busy: one poll of poll_cost every poll_interval. */
  double polling_share() const
  {
    double period = interval_ + poll_cost_;
    return period > 0 ? poll_cost_ / period : 0.0;
  }

  void start(mpi::World& world) override
  {
    agents_.resize(world.size());
    owed_.assign(world.size(), 0.0);
    for (int rank = 0; rank < world.size(); rank++) {
      mpi::Endpoint& endpoint = world.endpoint(rank);
      auto agent = std::make_shared<ProgressAgent>(
          std::vector<mpi::Endpoint*>{&endpoint}, [this]() { wait_for_poll(); },
          [this, &endpoint]() { pay_poll(endpoint); });
      agents_[rank] = agent;
      if (polling_share() > 0) // idle polling keeps part of a core busy
        agent->reserve(1, polling_share() * endpoint.host()->get_speed());
      sg4::Actor::create("progress-thread-" + std::to_string(rank), endpoint.host(), [agent]() { (*agent)(); });
    }
  }

  void execute_step(mpi::Endpoint& endpoint, double cpu_seconds) override
  {
    // Paid with the poll that runs it (pay_poll): one CPU burst per poll rather than one per step.
    owed_[endpoint.rank()] += std::max(cpu_seconds, 0.0);
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
  /** Something is ready: the thread sees it at its next poll. */
  void wait_for_poll() const
  {
    if (interval_ <= 0)
      return;
    double now  = sg4::Engine::get_clock();
    double next = std::ceil(now / interval_) * interval_;
    if (next > now)
      sg4::this_actor::sleep_until(next);
  }

  /** The CPU of the poll and of the steps it ran, taken on the rank's host where it competes with computation.
   * Only the steps are added to the rank's progress CPU: the polls are counted by the polling share. */
  void pay_poll(mpi::Endpoint& endpoint)
  {
    double steps = owed_[endpoint.rank()];
    owed_[endpoint.rank()] = 0;
    if (poll_cost_ + steps > 0)
      endpoint.world().spend_cpu(endpoint.host(), poll_cost_ + steps);
    endpoint.add_step_seconds(steps);
  }

  double interval_;
  double poll_cost_;
  std::vector<std::shared_ptr<ProgressAgent>> agents_;
  std::vector<double> owed_; // CPU seconds of steps run since the last poll was paid, per rank
};
} // namespace

std::unique_ptr<ProgressModel> make_thread(const Parameters& parameters)
{
  return std::make_unique<ThreadProgress>(parameters);
}

} // namespace progsim::models::progress
