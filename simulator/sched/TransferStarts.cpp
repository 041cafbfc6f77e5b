#include "sched/TransferStarts.hpp"
#include "sched/Timers.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <unordered_map>
#include <utility>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace progsim::sched::transfer_starts {

namespace {
/** Transfers set up and not started, by start date, in the order asked, each with the host that starts it (setting
 * its destination does). One kernel timer per date keeps that order (SimGrid's timer heap orders ties otherwise). */
std::unordered_map<double, std::vector<std::pair<sg4::CommPtr, sg4::Host*>>> unstarted;

void start_all(double date)
{
  auto due = unstarted.extract(date);
  for (auto& [transfer, destination] : due.mapped())
    transfer->set_destination(destination); // in the maestro: started at once, no simcall
}
} // namespace

sg4::CommPtr sendto(sg4::Host* from, sg4::Host* to, uint64_t bytes, double rate, double start)
{
  sg4::CommPtr transfer = sg4::Comm::sendto_init();
  transfer->set_payload_size(bytes);
  if (rate > 0) // SimGrid built by scripts/build_simgrid.sh keeps the rate of a host-to-host transfer
    transfer->set_rate(rate);
  transfer->set_source(from); // both ends set would start it
  const double now = sg4::Engine::get_clock();
  if (start < now)
    start = now;
  if (start == now && sg4::Actor::is_maestro()) {
    transfer->set_destination(to);
    return transfer;
  }
  auto [pending, first] = unstarted.try_emplace(start);
  if (first)
    timers::set(start, [start]() { start_all(start); });
  pending->second.emplace_back(transfer, to);
  return transfer;
}

} // namespace progsim::sched::transfer_starts
