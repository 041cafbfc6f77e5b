#include "sched/TransferWatch.hpp"
#include "sched/ActorParking.hpp"

#include <simgrid/s4u/Comm.hpp>
#include <xbt/asserts.h>

#include <utility>

namespace sg4 = simgrid::s4u;

namespace progsim::sched {

namespace {
TransferWatch* live_watch = nullptr; // the hook's slot is connected once per process, to whichever watch is live
} // namespace

TransferWatch::TransferWatch()
{
  xbt_assert(live_watch == nullptr, "one TransferWatch at a time");
  static bool connected = false;
  if (not connected) {
    sg4::Comm::on_kernel_completion_cb([](const simgrid::kernel::activity::ActivityImpl* transfer) {
      if (live_watch != nullptr)
        live_watch->ended(transfer);
    });
    connected = true;
  }
  live_watch = this;
}

TransferWatch::~TransferWatch()
{
  live_watch = nullptr;
}

void TransferWatch::on_end(const Flow& flow, std::function<void()> then)
{
  if (flow.finish_time() >= 0) // already over: nothing will end it again
    then();
  else
    when_ended(flow, std::move(then));
}

void TransferWatch::park_until_ended(const Flow& flow)
{
  if (flow.finish_time() >= 0)
    return;
  when_ended(flow, [parked = parking::caller()]() { parking::resume(parked); });
  parking::park(); // nothing since the look let the kernel run: the end cannot have come before the actor parks
}

void TransferWatch::when_ended(const Flow& flow, std::function<void()> then)
{
  if (flow.shared) // BusShares ends it from the kernel too
    flow.shared->on_end.push_back(std::move(then));
  else {
    Watch& watch = watched_[flow.transfer->get_impl()];
    if (not watch.transfer)
      watch.transfer = flow.transfer;
    watch.then.push_back(std::move(then));
  }
}

void TransferWatch::ended(const simgrid::kernel::activity::ActivityImpl* transfer)
{
  auto it = watched_.find(transfer);
  if (it == watched_.end()) // a flow nobody follows, or not first (Endpoint::Followed::after)
    return;
  Watch watch = std::move(it->second);
  watched_.erase(it);
  // SimGrid's kernel calls this before it marks the transfer done, and marks the interface of a transfer the maestro
  // started only: the watchers may let go of the last handle, whose destructor would then report it "freed before
  // its completion" (with a backtrace on stderr). It is complete: say so first.
  if (watch.transfer->get_state() == sg4::Activity::State::STARTED)
    watch.transfer->complete(sg4::Activity::State::FINISHED);
  for (auto const& then : watch.then)
    then();
}

} // namespace progsim::sched
