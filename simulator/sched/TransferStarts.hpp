/* Host-to-host transfers that the kernel starts once the running actors have yielded. */
#pragma once

#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Host.hpp>

#include <cstdint>

namespace progsim::sched::transfer_starts {

/**
 * A transfer of `bytes` from `from` to `to`, at most at `rate` B/s (0: no bound), set up in the calling actor and
 * started by a kernel timer at `start` (the current date if earlier), once the actors running then have yielded, in
 * the order asked. A start at a later date lets an actor whose CPU work comes first wait once, for the transfer.
 *
 * An actor that starts a host-to-host transfer itself passes the start to the maestro as a simcall and waits for its
 * next turn at the same date: a round trip through the maestro, two actor switches, for each of the three to five
 * transfers of a message (the wire, the DMA at both ends, the copies), each switch a cache miss at scale. The
 * engine's actors need no transfer started before they yield: they follow its end (TransferWatch) or park until it
 * (TransferWatch::park_until_ended; Comm::wait would start it a second time). The transfer starts at the date it
 * was asked for; only its order among the same date's starts and pauses moves (docs/engine.md, "deferred starts").
 */
simgrid::s4u::CommPtr sendto(simgrid::s4u::Host* from, simgrid::s4u::Host* to, uint64_t bytes, double rate = 0,
                            double start = 0);

} // namespace progsim::sched::transfer_starts
