/* thread: a progress thread per rank runs its protocol steps while the rank computes (MPICH's asynchronous
 * progress thread, Open MPI's progress threads); inside its MPI calls the rank runs them too, whoever comes first.
 * Threads share the ranks' cores unless the platform pins them to spare cores: idle polling takes a share of a
 * core, and a thread woken while every core of its host is held by a rank (computing, or polling inside an MPI
 * call, as MPI libraries do) gets one only at the next time slice of the OS scheduler (progsim/sched-quantum), or
 * when a rank there sleeps or ends. Its steps cost CPU before they take effect. */
#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"
#include "progress/ProgressAgent.hpp"
#include "mpi/ProgressModel.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mutex.hpp>
#include <xbt/log.h>

#include <cmath>
#include <map>
#include <mutex>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(progsim_thread, progsim, "Progress threads: polls, time slices, steps");

namespace sg4 = simgrid::s4u;

namespace progsim::models::progress {

namespace {
/** The next multiple of `period` at or after now (now itself when period is 0). */
double next_tick(double period)
{
  double now = sg4::Engine::get_clock();
  return period > 0 ? std::ceil(now / period) * period : now;
}

/** Where threads wait for a core of a host: woken when one of its ranks leaves its core. */
struct CoreQueue {
  sg4::MutexPtr mutex                 = sg4::Mutex::create();
  sg4::ConditionVariablePtr core_free = sg4::ConditionVariable::create();
  int waiting                         = 0;
};

class ProgressThread : public ProgressAgent {
public:
  ProgressThread(const Parameters& p, CoreQueue& queue) : parameters_(p), queue_(queue) {}
  std::string_view name() const override { return "progress-thread"; }

  void execute(mpi::Endpoint& endpoint, const mpi::StepWork& work) override
  {
    run_on_core(endpoint, work.cpu_seconds);
    endpoint.copy(work.copy_bytes, not parameters_.thread_spare_core);
    endpoint.add_step_seconds(work.cpu_seconds);
  }

protected:
  /** Something is ready: the thread sees it at its next poll, once it has a core, and the poll costs CPU. Until
   * then the step stays where the rank, if it enters an MPI call, can run it first. */
  void before_steps() override
  {
    double poll = next_tick(parameters_.thread_poll_interval);
    if (poll > sg4::Engine::get_clock())
      sg4::this_actor::sleep_until(poll);
    mpi::Endpoint& endpoint = *endpoints().front();
    get_a_core(endpoint);
    run_on_core(endpoint, parameters_.thread_poll_cost);
  }

private:
  /** On a host whose cores are all held by ranks, the OS runs the woken thread when a time slice ends, or sooner
   * if a rank of the host leaves its core (it sleeps, or finishes). */
  void get_a_core(mpi::Endpoint& endpoint) const
  {
    if (parameters_.thread_spare_core)
      return;
    sg4::Host* host   = endpoint.host();
    auto const& world = endpoint.world();
    auto busy         = [&world, host]() { return world.cores_held_on(host) >= host->get_core_count(); };
    if (not busy())
      return;
    double slice = next_tick(parameters_.sched_quantum);
    XBT_VERB("rank %d's thread: every core of %s is held by a rank; waits for the slice at %g s", endpoint.rank(),
              host->get_cname(), slice);
    std::unique_lock lock(*queue_.mutex);
    queue_.waiting++;
    while (busy() && sg4::Engine::get_clock() < slice)
      queue_.core_free->wait_until(lock, slice);
    queue_.waiting--;
  }

  void run_on_core(mpi::Endpoint& endpoint, double seconds) const
  {
    if (seconds <= 0)
      return;
    if (parameters_.thread_spare_core) // a core of its own: nothing to share
      sg4::this_actor::sleep_for(seconds);
    else
      endpoint.world().spend_cpu(endpoint.host(), seconds);
  }

  const Parameters& parameters_;
  CoreQueue& queue_;
};

class ThreadProgress : public ProgressModel {
public:
  explicit ThreadProgress(const Parameters& p) : ProgressModel(CallCosts::of(p)), parameters_(p) {}

  std::string_view name() const override { return "thread"; }

  mpi::StepRunner& runner(mpi::Endpoint& endpoint, mpi::Step, int) override { return *threads_[endpoint.rank()]; }
  bool rank_also_runs(const mpi::StepRunner&) const override { return true; }

  /** Share of a core that idle polling keeps busy: one poll of poll_cost every poll_interval. */
  double polling_share() const
  {
    double period = parameters_.thread_poll_interval + parameters_.thread_poll_cost;
    return period > 0 ? parameters_.thread_poll_cost / period : 0.0;
  }

  void start(mpi::World& world) override
  {
    world.on_rank_event.connect([this, &world](const mpi::RankEvent& event) {
      auto it = queues_.find(world.host_of(event.rank));
      if (not mpi::holds_a_core(event.activity) && it != queues_.end() && it->second->waiting > 0)
        it->second->core_free->notify_all();
    });
    for (int rank = 0; rank < world.size(); rank++) {
      mpi::Endpoint& endpoint = world.endpoint(rank);
      auto& queue             = queues_[endpoint.host()];
      if (not queue)
        queue = std::make_unique<CoreQueue>();
      auto thread = std::make_shared<ProgressThread>(parameters_, *queue);
      thread->serve(endpoint);
      if (polling_share() > 0 && not parameters_.thread_spare_core) // idle polling keeps part of a core busy
        thread->reserve(polling_share() * endpoint.host()->get_speed(), false);
      threads_.push_back(thread);
      sg4::Actor::create("progress-thread-" + std::to_string(rank), endpoint.host(), [thread]() { (*thread)(); });
    }
  }

  int extra_cpu_users(const mpi::World& world, const sg4::Host* host) const override
  {
    if (parameters_.thread_spare_core)
      return 0;
    int ranks = 0;
    for (int rank = 0; rank < world.size(); rank++)
      ranks += world.host_of(rank) == host ? 1 : 0;
    return ranks * (polling_share() > 0 ? 2 : 1); // the thread's steps, and its idle polling
  }

  void pause_background(bool paused) override
  {
    for (auto& thread : threads_)
      thread->pause_load(paused);
  }

  void stop(mpi::World&) override
  {
    for (auto& thread : threads_)
      thread->stop();
  }

  double background_cpu_seconds(const mpi::Endpoint&, double lifetime) const override
  {
    return polling_share() * lifetime;
  }

private:
  const Parameters parameters_;
  std::vector<std::shared_ptr<ProgressThread>> threads_;
  std::map<const sg4::Host*, std::unique_ptr<CoreQueue>> queues_;
};
} // namespace

std::unique_ptr<ProgressModel> make_thread(const Parameters& parameters)
{
  return std::make_unique<ThreadProgress>(parameters);
}

} // namespace progsim::models::progress
