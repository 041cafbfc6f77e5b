/* A rank's core shared with its spinning progress thread, time slice by time slice. */
#pragma once

#include "sched/TimedPause.hpp"
#include "mpi/World.hpp"

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <cmath>
#include <mutex>

namespace progsim::models::progress {

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
  SharedCore(double slice, sched::TimedPause& pause) : slice_(slice), pause_(pause) {}

  /** The rank computes `flops` on `host`, in its slices. */
  void compute(mpi::World& world, simgrid::s4u::Host* host, double flops)
  {
    const double speed = host->get_speed();
    double remaining   = flops;
    while (remaining > 0) {
      double now = simgrid::s4u::Engine::get_clock();
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
    double now = simgrid::s4u::Engine::get_clock();
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
    for (double now = simgrid::s4u::Engine::get_clock(); rank_computing_ && not threads_turn(now);
         now        = simgrid::s4u::Engine::get_clock())
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

  void give_core_until(double end);

  const double slice_;
  sched::TimedPause& pause_;
  double given_        = 0;
  bool rank_computing_ = false;
  simgrid::s4u::MutexPtr mutex_               = simgrid::s4u::Mutex::create();
  simgrid::s4u::ConditionVariablePtr changed_ = simgrid::s4u::ConditionVariable::create();
};

} // namespace progsim::models::progress
