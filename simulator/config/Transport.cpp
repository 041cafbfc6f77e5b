#include "config/Transport.hpp"

#include <stdexcept>

namespace progsim {

std::string_view protocol_name(Protocol protocol)
{
  switch (protocol) {
    case Protocol::Direct:
      return "direct";
    case Protocol::Eager:
      return "eager";
    case Protocol::RendezvousGet:
      return "rendezvous-get";
    case Protocol::RendezvousPut:
      return "rendezvous-put";
    case Protocol::RendezvousPipelined:
      return "pipelined";
  }
  return "?";
}

Protocol parse_rendezvous(const std::string& name)
{
  if (name == "get")
    return Protocol::RendezvousGet;
  if (name == "put")
    return Protocol::RendezvousPut;
  if (name == "pipelined")
    return Protocol::RendezvousPipelined;
  throw std::invalid_argument("unknown rendezvous protocol '" + name + "' (expected get, put or pipelined)");
}

Protocol choose(const TransportProtocol& transport, int64_t bytes)
{
  return bytes < transport.eager_threshold ? Protocol::Eager : transport.rendezvous;
}

} // namespace progsim
