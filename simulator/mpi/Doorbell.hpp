/* Something an actor waits on together with its transfers, and that another actor rings to wake it. */
#pragma once

#include <simgrid/s4u/Exec.hpp>

namespace progsim::mpi {

/**
 * A waiting actor watches a set of activities; when another actor gives it one more to watch, it must look again.
 * The bell is a suspended one-flop execution: ringing resumes it, which ends the wait. A ring that comes while
 * nobody waits is remembered until the next wait.
 */
class Doorbell {
public:
  /** Gets the bell ready for a wait; false if it rang already (then look again instead of waiting). */
  bool arm();
  /** The activity to wait on beside the others (valid after arm()). */
  simgrid::s4u::ActivityPtr activity() const { return bell_; }
  /** The wait ended because of the bell (or arm() said it rang): it is spent, the next arm() makes a new one. */
  void spent();
  void ring();
  /** Withdraws the bell (its owner stops waiting for good). */
  void cancel();

private:
  simgrid::s4u::ExecPtr bell_;
  bool rung_ = false;
};

} // namespace progsim::mpi
