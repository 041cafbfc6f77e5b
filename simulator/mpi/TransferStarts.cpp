#include "mpi/TransferStarts.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <utility>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace progsim::mpi::transfer_starts {

namespace {
/** Transfers set up at the current date, with the host that starts each (setting its destination starts it). */
std::vector<std::pair<sg4::CommPtr, sg4::Host*>> unstarted;

void start_all()
{
  auto due = std::move(unstarted);
  unstarted.clear();
  for (auto& [transfer, destination] : due)
    transfer->set_destination(destination); // in the maestro: started at once, no simcall
}
} // namespace

sg4::CommPtr sendto(sg4::Host* from, sg4::Host* to, uint64_t bytes, double rate)
{
  sg4::CommPtr transfer = sg4::Comm::sendto_init();
  transfer->set_payload_size(bytes);
  if (rate > 0) // SimGrid built by scripts/build_simgrid.sh keeps the rate of a host-to-host transfer
    transfer->set_rate(rate);
  transfer->set_source(from); // both ends set would start it
  if (sg4::Actor::is_maestro()) {
    transfer->set_destination(to);
    return transfer;
  }
  if (unstarted.empty())
    simgrid::kernel::timer::Timer::set(sg4::Engine::get_clock(), start_all);
  unstarted.emplace_back(transfer, to);
  return transfer;
}

} // namespace progsim::mpi::transfer_starts
