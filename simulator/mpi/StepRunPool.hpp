/* The state of the runs of kernel steps, lent from one pool per simulation. */
#pragma once

#include <memory>
#include <vector>

namespace progsim::mpi {

struct StepRunState; // StepsInKernel.cpp

/**
 * What runs of steps from the kernel (StepsInKernel) keep while they go on: the step taken, its copies' state, what
 * comes next (about 600 bytes). A run borrows it as it begins and gives it back as it ends, and the next run, of
 * whichever runner, takes the one given back last. Lent rather than kept by each runner (over 700 bytes per progress
 * thread and per rank's wait, read at each of their turns), there are only as many as runs going on at once, and a
 * run that begins soon after another ended finds that state still in the cache.
 */
class StepRunPool {
public:
  StepRunPool();
  ~StepRunPool();
  StepRunPool(const StepRunPool&)            = delete;
  StepRunPool& operator=(const StepRunPool&) = delete;

  StepRunState& borrow();
  void give_back(StepRunState& run);

private:
  std::vector<std::unique_ptr<StepRunState>> all_; // every run's state made, in use or not
  std::vector<StepRunState*> idle_;                // those not in use, the last given back on top
};

} // namespace progsim::mpi
