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
 * rank, which spins in its own waits: the OS gives the two sched-quantum slices in turn (SharedCore below). */
#include "mpi/ActorParking.hpp"
#include "mpi/Endpoint.hpp"
#include "mpi/Wakeup.hpp"
#include "mpi/World.hpp"
#include "progress/IdlePollingLoads.hpp"
#include "progress/ProgressAgent.hpp"
#include "mpi/ProgressModel.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mutex.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

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

class PollBeforeSteps;

/** Where threads wait for a core of a host: told when one of its ranks leaves its core. */
struct CoreQueue {
  std::vector<PollBeforeSteps*> waiting; // in the order they came
  void core_freed() const;
};

/**
 * What a polling thread does once work is ready, before its steps: it waits for its next poll (a tick of the poll
 * interval); on a host whose cores are all held by ranks, the OS runs it when a time slice ends or sooner if a rank
 * leaves its core (it sleeps, or finishes); then the poll costs CPU. The thread pauses until its tick itself, so that
 * it looks at the host's cores among the actors of that date, as it always did; from there the kernel drives the
 * wait for a core and the poll's CPU work, and the thread parks once, until the poll is done, where each would resume
 * it only for it to park again. A thread that waits for a core looks again once the actors running when a rank left
 * its core have yielded, as a woken thread would. (Looking from the kernel at the tick too saved a park more, but
 * moved that look before the actors of its date: a poll then overlapped a step or not depending on whether a memory
 * flow that ended at the same date was SimGrid's or BusShares'.)
 */
class PollBeforeSteps {
public:
  PollBeforeSteps(const Parameters& p, CoreQueue& queue) : parameters_(p), queue_(queue) {}

  /** Blocks the calling thread (`endpoint`'s) until its poll is done. */
  void run(mpi::Endpoint& endpoint)
  {
    endpoint_ = &endpoint;
    poller_   = mpi::parking::caller();
    done_     = false;
    endpoint.world().pause().until(next_tick(parameters_.thread_poll_interval));
    look_for_core();
    if (not done_) {
      parked_ = true;
      mpi::parking::park();
      parked_ = false;
    }
  }

  /** A rank of the host left its core: if waiting for one, look again once the running actors have yielded. */
  void core_freed()
  {
    if (waiting_until_ < 0 || look_pending_)
      return;
    look_pending_ = true;
    mpi::once_actors_yield([this]() {
      look_pending_ = false;
      if (waiting_until_ >= 0)
        look_for_core();
    });
  }

private:
  void look_for_core()
  {
    if (not parameters_.thread_spare_core && busy()) {
      double now = sg4::Engine::get_clock();
      if (waiting_until_ < 0) {
        double slice = next_tick(parameters_.sched_quantum);
        XBT_VERB("rank %d's thread: every core of %s is held by a rank; waits for the slice at %g s",
                 endpoint_->rank(), endpoint_->host()->get_cname(), slice);
        if (now < slice) {
          waiting_until_ = slice;
          queue_.waiting.push_back(this);
          slice_end_ = simgrid::kernel::timer::Timer::set(slice, [this]() {
            slice_end_ = nullptr;
            look_for_core();
          });
          return;
        }
      } else if (now < waiting_until_) {
        return; // still every core held: on until the slice ends
      }
    }
    if (waiting_until_ >= 0) { // it has a core
      waiting_until_ = -1;
      queue_.waiting.erase(std::find(queue_.waiting.begin(), queue_.waiting.end(), this));
      if (slice_end_ != nullptr)
        slice_end_->remove();
      slice_end_ = nullptr;
    }
    poll();
  }

  bool busy() const
  {
    const sg4::Host* host = endpoint_->host();
    return endpoint_->world().cores_held_on(host) >= host->get_core_count();
  }

  void poll()
  {
    double cost = parameters_.thread_poll_cost;
    if (cost <= 0)
      polled_();
    else if (parameters_.thread_spare_core) // a core of its own: nothing to share
      simgrid::kernel::timer::Timer::set(sg4::Engine::get_clock() + cost, [this]() { polled_(); });
    else
      endpoint_->world().start_cpu(endpoint_->host(), cost, polled_);
  }

  const Parameters& parameters_;
  CoreQueue& queue_;
  mpi::Endpoint* endpoint_     = nullptr;
  sg4::Actor* poller_          = nullptr;
  bool parked_                 = false;
  bool done_                   = false;
  double waiting_until_        = -1; // the slice's end, while it waits for a core
  bool look_pending_           = false;
  simgrid::kernel::timer::Timer* slice_end_ = nullptr;
  const std::function<void()> polled_ = [this]() {
    done_ = true;
    if (parked_)
      mpi::parking::resume(poller_);
  };
};

void CoreQueue::core_freed() const
{
  for (auto* thread : waiting)
    thread->core_freed();
}

/**
 * A rank's core that the rank shares with its spinning progress thread. Both are always runnable (the rank computes
 * or spins in its MPI calls, the thread spins), so the scheduler gives them the core in turn, one tick each: from
 * the start of the run, the rank's slices are [2kq, (2k+1)q) and the thread's the others (q = sched-quantum).
 * - The rank computes only in its slices: a computation of T takes about 2T once T exceeds a slice.
 * - The thread runs steps at once while the rank is in MPI (both call the progress engine, and whoever holds the
 *   lock moves the transfers on), but only in its own slices while the rank computes.
 * - A rank's wait that completes in the thread's slice returns only when the rank has the core again.
 * Measured here with MPICH 4.0.2 (MPIR_CVAR_ASYNC_PROGRESS=1, ranks bound to cores, Linux 6.18 EEVDF, HZ=250, so
 * q = one 4 ms tick): computations alone of 1 and 3 ms took 1.0x as long, 10 ms 1.82x, 30 ms 1.95x (18 and 58 ms
 * with these slices; validation/measured/mpich-shm-asyncthread.csv, t_comp_ref), also when cut by MPI_Test calls;
 * and a receiver computing 1 or 3 ms beside a 16 MiB message (2.9 ms alone) left its wait at 8.0 ms, two ticks,
 * in most repetitions. In reality the phase of the ticks against the program is random, so that repetitions of
 * the same cell end one tick apart; here it is fixed at the start of the run. A step the thread began in its slice
 * ends even if the slice ends first (the kernel would finish it one slice later): a simplification that matters
 * only for steps longer than what is left of a slice.
 */
class SharedCore {
public:
  SharedCore(double slice, mpi::TimedPause& pause) : slice_(slice), pause_(pause) {}

  /** The rank computes `flops` on `host`, in its slices. */
  void compute(mpi::World& world, sg4::Host* host, double flops)
  {
    const double speed = host->get_speed();
    double remaining   = flops;
    while (remaining > 0) {
      double now = sg4::Engine::get_clock();
      if (threads_turn(now)) {
        give_core_until(slice_end(now));
        continue;
      }
      double room = (slice_end(now) - now) * speed; // what the rank computes in the rest of its slice
      double part = remaining <= room * (1 + 1e-12) ? remaining : room;
      world.compute(host, part);
      remaining -= part;
    }
  }

  /** The rank's wait ended: it returns once it has the core. */
  void rank_resumes()
  {
    double now = sg4::Engine::get_clock();
    if (threads_turn(now))
      give_core_until(slice_end(now));
  }

  /** The rank's activity changed: outside its computations, the thread's steps run at once. */
  void rank_is(mpi::Activity activity)
  {
    bool computing = activity == mpi::Activity::Computing;
    if (computing != rank_computing_) {
      rank_computing_ = computing;
      std::unique_lock lock(*mutex_);
      changed_->notify_all();
    }
  }

  /** Blocks the thread until it may run: its slice, or the rank not computing. */
  void wait_for_core()
  {
    std::unique_lock lock(*mutex_);
    for (double now = sg4::Engine::get_clock(); rank_computing_ && not threads_turn(now);
         now        = sg4::Engine::get_clock())
      changed_->wait_until(lock, slice_end(now));
  }

  /** Seconds the rank, runnable, spent off its core while the thread had it. */
  double seconds_given() const { return given_; }

private:
  // SimGrid ends an activity within its precision (1e-9 s by default): a time that close to a slice's end is past it.
  static constexpr double kResolution = 1e-9;

  double slice_index(double time) const { return std::floor((time + kResolution) / slice_); }
  bool threads_turn(double time) const { return std::fmod(slice_index(time), 2.0) == 1.0; }
  double slice_end(double time) const { return (slice_index(time) + 1) * slice_; }

  void give_core_until(double end)
  {
    XBT_DEBUG("the thread has the rank's core until %g s", end);
    given_ += end - sg4::Engine::get_clock();
    pause_.until(end);
  }

  const double slice_;
  mpi::TimedPause& pause_;
  double given_        = 0;
  bool rank_computing_ = false;
  sg4::MutexPtr mutex_               = sg4::Mutex::create();
  sg4::ConditionVariablePtr changed_ = sg4::ConditionVariable::create();
};

class ProgressThread : public ProgressAgent {
public:
  ProgressThread(const Parameters& p, CoreQueue& queue, SharedCore* core)
      : parameters_(p), poll_(p, queue), shared_core_(core)
  {
  }
  std::string_view name() const override { return "progress-thread"; }

  void execute(mpi::Endpoint& endpoint, const mpi::StepWork& work) override
  {
    // The step's CPU work, then its copy, on the thread's own core or one it shares: one wait
    endpoint.copy(work.copy_bytes, not parameters_.thread_spare_core, work.cpu_seconds);
    endpoint.add_step_seconds(work.cpu_seconds);
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

private:
  const Parameters& parameters_;
  PollBeforeSteps poll_;
  SharedCore* shared_core_; // null unless the thread spins on its rank's core
};

class ThreadProgress : public ProgressModel {
public:
  explicit ThreadProgress(const Parameters& p) : ProgressModel(CallCosts::of(p)), parameters_(p) {}

  std::string_view name() const override { return "thread"; }

  mpi::StepRunner& runner(mpi::Endpoint& endpoint, mpi::Step, int) override { return *threads_[endpoint.rank()]; }
  bool rank_also_runs(const mpi::StepRunner&) const override { return true; }

  /** Share of a core that idle polling keeps busy: one poll of poll_cost every poll_interval. A spinning thread's
   * share is its slices, taken in compute(). */
  double polling_share() const
  {
    if (parameters_.thread_busy)
      return 0.0;
    double period = parameters_.thread_poll_interval + parameters_.thread_poll_cost;
    return period > 0 ? parameters_.thread_poll_cost / period : 0.0;
  }

  void compute(mpi::Endpoint& endpoint, double flops, const mpi::BusTraffic& stream) override
  {
    if (parameters_.thread_busy)
      shared_cores_[endpoint.rank()]->compute(endpoint.world(), endpoint.host(), flops);
    else
      ProgressModel::compute(endpoint, flops, stream);
  }

  void wait_ended(mpi::Endpoint& endpoint) override
  {
    if (parameters_.thread_busy)
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
      if (parameters_.thread_busy)
        core = shared_cores_.emplace_back(std::make_unique<SharedCore>(parameters_.sched_quantum, world.pause())).get();
      auto thread = std::make_shared<ProgressThread>(parameters_, *queue, core);
      thread->serve(endpoint);
      threads_.push_back(thread);
      sg4::Actor::create("progress-thread-" + std::to_string(rank), endpoint.host(), [thread]() { (*thread)(); });
    }
    if (polling_share() > 0 && not parameters_.thread_spare_core) { // idle polling keeps part of a core busy
      for (sg4::Host* host : hosts)
        add_polling_loads(world, host, world.ranks_on(host));
      polling_loads_.start();
    }
  }

  int extra_cpu_users(const mpi::World& world, const sg4::Host* host) const override
  {
    if (parameters_.thread_spare_core || parameters_.thread_busy) // a busy thread runs on its rank's own core
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
    if (parameters_.thread_busy)
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

  const Parameters parameters_;
  std::vector<std::shared_ptr<ProgressThread>> threads_;
  IdlePollingLoads polling_loads_;
  std::map<const sg4::Host*, std::unique_ptr<CoreQueue>> queues_;
  std::vector<CoreQueue*> queue_of_rank_; // its host's, looked up at every change of a rank's activity
  std::vector<std::unique_ptr<SharedCore>> shared_cores_; // by rank, when threads spin on their ranks' cores
};
} // namespace

std::unique_ptr<ProgressModel> make_thread(const Parameters& parameters)
{
  return std::make_unique<ThreadProgress>(parameters);
}

} // namespace progsim::models::progress
