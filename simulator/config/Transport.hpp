/* The protocol settings of a transport, and the size rule that picks eager or a rendezvous. */
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace progsim {

/** Which protocol moves a message (chosen per message by models/protocol). */
enum class Protocol : uint8_t { Direct, Eager, RendezvousGet, RendezvousPut, RendezvousPipelined };
std::string_view protocol_name(Protocol protocol);

/** Protocol settings of one transport (the NIC path, or shared memory inside a node); their defaults are
 * Parameters' (config/Parameters.cpp). */
struct TransportProtocol {
  int64_t eager_threshold = 0;               // bytes; smaller messages go eagerly
  Protocol rendezvous     = Protocol::Eager; // used at and above the threshold
  int64_t fragment_size   = 0;               // bytes per fragment of the pipelined protocol
};

/** Parses "get", "put" or "pipelined"; throws std::invalid_argument otherwise. */
Protocol parse_rendezvous(const std::string& name);

/** The protocol for a message of `bytes` over `transport`: eager strictly below the threshold. */
Protocol choose(const TransportProtocol& transport, int64_t bytes);

} // namespace progsim
