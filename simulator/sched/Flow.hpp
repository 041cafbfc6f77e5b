/* A flow the engine waits for: a SimGrid transfer, or a memory bus's flow that BusShares shares in closed form. */
#pragma once

#include <simgrid/s4u/Activity.hpp>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace progsim::sched {

/** A flow of a memory bus that BusShares shares: it ends once, then tells who waits, in the order they came. */
struct SharedFlow {
  double finish_time = -1;
  std::vector<std::function<void()>> on_end;
};

struct Flow {
  simgrid::s4u::ActivityPtr transfer;
  std::shared_ptr<SharedFlow> shared;

  Flow() = default;
  template <class Activity>
  Flow(boost::intrusive_ptr<Activity> activity) : transfer(std::move(activity)) // NOLINT: a transfer is a flow
  {
  }
  Flow(std::shared_ptr<SharedFlow> flow) : shared(std::move(flow)) {} // NOLINT
  explicit operator bool() const { return transfer || shared; }
  /** When it ended; -1 while it runs (or before it starts). */
  double finish_time() const
  {
    return transfer ? transfer->get_finish_time() : shared ? shared->finish_time : -1;
  }
};

} // namespace progsim::sched
