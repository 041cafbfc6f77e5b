#include "mpi/Doorbell.hpp"

#include <simgrid/s4u/Actor.hpp>

namespace sg4 = simgrid::s4u;

namespace progsim::mpi {

bool Doorbell::arm()
{
  if (not bell_) {
    rung_ = false;
    bell_ = sg4::this_actor::exec_init(1.0);
    bell_->start();
    bell_->suspend();
  }
  // Starting and suspending yield to other actors: a ring in between is kept in rung_.
  return not rung_;
}

void Doorbell::spent()
{
  // Let the bell end rather than cancel it: SimGrid forgets an execution only once its actor waited for it,
  // and cancelled bells would pile up in the actor's list of activities (each later wait scans that list).
  if (bell_) {
    if (bell_->is_suspended())
      bell_->resume();
    bell_->wait();
  }
  bell_ = nullptr;
}

void Doorbell::ring()
{
  rung_ = true;
  if (bell_ && bell_->is_suspended())
    bell_->resume();
}

void Doorbell::cancel()
{
  if (bell_)
    bell_->cancel();
  bell_ = nullptr;
}

} // namespace progsim::mpi
