/* Which protocol moves a message: eager below a threshold, a rendezvous variant above it. */
#pragma once

#include "mpi/Request.hpp"

#include <cstdint>

namespace progsim::models::protocol {

/** Protocol settings of one transport (the NIC path, or shared memory inside a node). */
struct TransportProtocol {
  int64_t eager_threshold = 65536;                        // bytes; smaller messages go eagerly
  mpi::Protocol rendezvous = mpi::Protocol::RendezvousGet; // used at and above the threshold
  int64_t fragment_size    = 131072;                      // bytes per fragment of the pipelined protocol
};

/** Parses "get", "put" or "pipelined"; throws std::invalid_argument otherwise. */
mpi::Protocol parse_rendezvous(const std::string& name);

/** The protocol for a message of `bytes` over `transport`. */
mpi::Protocol choose(const TransportProtocol& transport, int64_t bytes);

} // namespace progsim::models::protocol
