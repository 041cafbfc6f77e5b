/* A semaphore per actor, for actors that block until a kernel timer releases them. */
#pragma once

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <unordered_map>

namespace progsim::mpi {

/** Each actor's own semaphore, made at its first use: an actor blocks on it, a kernel timer releases it. */
class ActorSemaphores {
public:
  /** The calling actor's. */
  simgrid::s4u::Semaphore& of_caller()
  {
    simgrid::s4u::SemaphorePtr& semaphore = by_actor_[simgrid::s4u::this_actor::get_pid()];
    if (not semaphore)
      semaphore = simgrid::s4u::Semaphore::create(0);
    return *semaphore;
  }

private:
  std::unordered_map<long, simgrid::s4u::SemaphorePtr> by_actor_;
};

} // namespace progsim::mpi
