/* thread: a progress thread per rank runs its protocol steps while the rank computes (MPICH's asynchronous
 * progress thread, Open MPI's progress threads); inside its MPI calls the rank runs them too, whoever comes first.
 *
 * A polling thread (the default) wakes every poll interval. Threads share the ranks' cores unless the platform pins
 * them to spare cores: idle polling takes a share of a core, and a thread woken while every core of its host is held
 * by a rank (computing, or polling inside an MPI call, as MPI libraries do) gets one only at the next time slice of
 * the OS scheduler (progsim/sched-quantum), or when a rank there sleeps or ends. Its steps cost CPU before they take
 * effect.
 *
 * A busy thread (progsim/thread-busy) spins on its rank's own core, as MPICH's does: it inherits the rank's core
 * binding (pthread_create(3): a new thread inherits its creator's CPU affinity mask) and spins in MPIR_Wait on a
 * request that completes only at MPI_Finalize (MPICH src/mpi/init/async.c), so it is always runnable, as is the
 * rank, which spins in its own waits: the OS gives the two sched-quantum slices in turn (SharedCore.hpp). */
#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"
#include "progress/IdlePollingLoads.hpp"
#include "progress/PollBeforeSteps.hpp"
#include "progress/SharedCore.hpp"
#include "progress/ProgressAgent.hpp"
#include "mpi/ProgressModel.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Host.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(progsim_thread, progsim, "Progress threads: polls, time slices, steps");

namespace sg4 = simgrid::s4u;

namespace progsim::models::progress {

namespace {
class ProgressThread : public ProgressAgent {
public:
  ProgressThread(const ThreadSettings& settings, CoreQueue& queue, SharedCore* core)
      : settings_(settings), poll_(settings, queue), shared_core_(core)
  {
  }
  std::string_view name() const override { return "progress-thread"; }

  void execute(mpi::Endpoint& endpoint, const mpi::StepWork& work) override
  {
    // The step's CPU work, then its copy, on the thread's own core or one it shares: one wait
    endpoint.copy(work.copy_bytes, not settings_.spare_core, work.cpu_seconds);
    endpoint.add_step_seconds(work.cpu_seconds);
  }
  /** A spinning thread's core is its rank's, in turns that its actor waits for. */
  bool runs_from_kernel() const override { return shared_core_ == nullptr; }
  bool start(mpi::Endpoint& endpoint, const mpi::StepWork& work, mpi::CoreCopy& state) override
  {
    endpoint.add_step_seconds(work.cpu_seconds);
    return endpoint.start_copy(work.copy_bytes, not settings_.spare_core, work.cpu_seconds, state,
                               endpoint.host());
  }

protected:
  /** Something is ready: the thread sees it at its next poll, once it has a core, and the poll costs CPU. Until
   * then the step stays where the rank, if it enters an MPI call, can run it first. */
  void before_steps() override
  {
    if (shared_core_ != nullptr) { // it spins: it sees the work as soon as it has the core
      shared_core_->wait_for_core();
      return;
    }
    poll_.run(*endpoints().front());
  }
  void start_before_steps(mpi::Endpoint& endpoint, std::function<void()> then) override
  {
    poll_.start(endpoint, std::move(then));
  }

private:
  const ThreadSettings& settings_;
  PollBeforeSteps poll_;
  SharedCore* shared_core_; // null unless the thread spins on its rank's core
};

class ThreadProgress : public ProgressModel {
public:
  explicit ThreadProgress(const Parameters& p) : ProgressModel(CallCosts::of(p)), settings_(p.thread) {}

  std::string_view name() const override { return "thread"; }

  mpi::StepRunner& runner(mpi::Endpoint& endpoint, mpi::Step, int) override { return *threads_[endpoint.rank()]; }
  bool rank_also_runs(const mpi::StepRunner&) const override { return true; }

  /** Share of a core that idle polling keeps busy: one poll of poll_cost every poll_interval. A spinning thread's
   * share is its slices, taken in compute(). */
  double polling_share() const
  {
    if (settings_.busy)
      return 0.0;
    double period = settings_.poll_interval + settings_.poll_cost;
    return period > 0 ? settings_.poll_cost / period : 0.0;
  }

  void compute(mpi::Endpoint& endpoint, double flops, const resources::BusTraffic& stream) override
  {
    if (settings_.busy)
      shared_cores_[endpoint.rank()]->compute(endpoint.world(), endpoint.host(), flops);
    else
      ProgressModel::compute(endpoint, flops, stream);
  }

  void wait_ended(mpi::Endpoint& endpoint) override
  {
    if (settings_.busy)
      shared_cores_[endpoint.rank()]->rank_resumes();
  }

  void start(mpi::World& world) override
  {
    world.on_rank_event.connect([this, &world](const mpi::RankEvent& event) {
      if (not shared_cores_.empty())
        shared_cores_[event.rank]->rank_is(event.activity);
      CoreQueue& queue = *queue_of_rank_[event.rank];
      if (not mpi::holds_a_core(event.activity))
        queue.core_freed();
    });
    std::vector<sg4::Host*> hosts; // in the order of their first rank
    for (int rank = 0; rank < world.size(); rank++) {
      mpi::Endpoint& endpoint = world.endpoint(rank);
      auto& queue             = queues_[endpoint.host()];
      if (not queue) {
        queue = std::make_unique<CoreQueue>();
        hosts.push_back(endpoint.host());
      }
      queue_of_rank_.push_back(queue.get());
      SharedCore* core = nullptr;
      if (settings_.busy)
        core = shared_cores_.emplace_back(std::make_unique<SharedCore>(settings_.sched_quantum, world.pause())).get();
      auto thread = std::make_shared<ProgressThread>(settings_, *queue, core);
      thread->serve(endpoint);
      threads_.push_back(thread);
      sg4::Actor::create("progress-thread-" + std::to_string(rank), endpoint.host(), [thread]() { (*thread)(); });
    }
    if (polling_share() > 0 && not settings_.spare_core) { // idle polling keeps part of a core busy
      for (sg4::Host* host : hosts)
        add_polling_loads(world, host, world.ranks_on(host));
      polling_loads_.start();
    }
  }

  int extra_cpu_users(const mpi::World& world, const sg4::Host* host) const override
  {
    if (settings_.spare_core || settings_.busy) // a busy thread runs on its rank's own core
      return 0;
    return world.ranks_on(host) * (polling_share() > 0 ? 2 : 1); // the thread's steps, and its idle polling
  }

  void pause_background(bool paused) override
  {
    if (not polling_loads_.empty())
      polling_loads_.set_running(not paused);
  }

  void stop(mpi::World&) override
  {
    for (auto& thread : threads_)
      thread->stop();
    polling_loads_.stop();
  }

  double background_cpu_seconds(const mpi::Endpoint& endpoint, double lifetime) const override
  {
    if (settings_.busy)
      return shared_cores_[endpoint.rank()]->seconds_given();
    return polling_share() * lifetime;
  }

private:
  /** The idle polling of the `threads` threads of `host`, in as few loads as SimGrid's one-core bound allows. */
  void add_polling_loads(mpi::World& world, sg4::Host* host, int threads)
  {
    const int per_load = std::max(1, static_cast<int>(std::floor(1 / polling_share())));
    for (int first = 0; first < threads; first += per_load) {
      int group = std::min(per_load, threads - first);
      polling_loads_.add(world.cores_of(host), group * polling_share() * host->get_speed(), group);
    }
  }

  const ThreadSettings settings_;
  std::vector<std::shared_ptr<ProgressThread>> threads_;
  IdlePollingLoads polling_loads_;
  std::map<const sg4::Host*, std::unique_ptr<CoreQueue>> queues_;
  std::vector<CoreQueue*> queue_of_rank_; // its host's, looked up at every change of a rank's activity
  std::vector<std::unique_ptr<SharedCore>> shared_cores_; // by rank, when threads spin on their ranks' cores
};

const RegisterProgress registration{
    {"thread", 2, "progress-thread",
     "a progress thread per rank wakes every few microseconds and runs the protocol steps; it needs a "
     "core to run on",
     [](const Parameters& parameters) { return std::make_unique<ThreadProgress>(parameters); }}};

} // namespace

} // namespace progsim::models::progress
