/* The state of the runs of kernel steps, lent from one pool per simulation. */
#pragma once

#include <memory>
#include <vector>

namespace progsim::mpi {

struct KernelRun; // KernelSteps.cpp

/**
 * What runs of steps from the kernel (KernelSteps) keep while they go on: the step taken, the copies' state, what
 * comes next. A run borrows it as it begins and gives it back as it ends, and the next run, of whichever runner,
 * takes the one given back last. At scale every rank's and agent's turn comes between two turns of one of them, so
 * that state kept by each runner is cold whenever it runs; lent from here, it was in use a moment before.
 */
class KernelRuns {
public:
  KernelRuns();
  ~KernelRuns();
  KernelRuns(const KernelRuns&)            = delete;
  KernelRuns& operator=(const KernelRuns&) = delete;

  KernelRun& borrow();
  void give_back(KernelRun& run);

private:
  std::vector<std::unique_ptr<KernelRun>> all_; // every run's state made, in use or not
  std::vector<KernelRun*> idle_;                // those not in use, the last given back on top
};

} // namespace progsim::mpi
