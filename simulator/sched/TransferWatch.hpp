/* Who must hear of a followed transfer's end, told by SimGrid's kernel as it ends. */
#pragma once

#include "sched/Flow.hpp"

#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Actor.hpp>

#include <boost/container/small_vector.hpp>

#include <functional>
#include <unordered_map>

namespace progsim::sched {

/**
 * Rings the runner of a followed transfer (and its rank, when the rank runs that runner's steps too) when SimGrid
 * ends the transfer, from its kernel (a hook of SimGrid's that scripts/build_simgrid.sh adds). A waiting rank or agent
 * thus sleeps on its Wakeup alone, instead of on a list of every transfer it follows plus an execution that others
 * resume to wake it: no activity list to build and register at every wait, no execution for the solver.
 * One watch is live at a time (SimGrid runs one simulation per process).
 */
class TransferWatch {
public:
  TransferWatch();
  ~TransferWatch();
  TransferWatch(const TransferWatch&)            = delete;
  TransferWatch& operator=(const TransferWatch&) = delete;

  /** Calls `then` when `flow` ends: at once if it has, else from the kernel as it ends. */
  void on_end(const Flow& flow, std::function<void()> then);
  /** Blocks the calling actor until `flow` ends (at once if it has). Unlike Comm::wait, it leaves a transfer whose
   * start is deferred (TransferStarts.hpp) to the kernel. */
  void park_until_ended(const Flow& flow);
  /** Calls `then` from the kernel when `flow` ends (it must not have ended). */
  void when_ended(const Flow& flow, std::function<void()> then);

private:
  void ended(const simgrid::kernel::activity::ActivityImpl* transfer);

  // A transfer may be followed at both ends (a rendezvous's data): what its end calls, in the order it came. The
  // watch holds the transfer, so that a watcher that lets go of it does not free it amid SimGrid's end of it.
  struct Watch {
    simgrid::s4u::ActivityPtr transfer;
    boost::container::small_vector<std::function<void()>, 2> then;
  };
  std::unordered_map<const simgrid::kernel::activity::ActivityImpl*, Watch> watched_;
};

} // namespace progsim::sched
