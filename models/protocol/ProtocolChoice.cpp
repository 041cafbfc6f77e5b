#include "protocol/ProtocolChoice.hpp"

#include <stdexcept>
#include <string>

namespace progsim::models::protocol {

mpi::Protocol parse_rendezvous(const std::string& name)
{
  if (name == "get")
    return mpi::Protocol::RendezvousGet;
  if (name == "put")
    return mpi::Protocol::RendezvousPut;
  if (name == "pipelined")
    return mpi::Protocol::RendezvousPipelined;
  throw std::invalid_argument("unknown rendezvous protocol '" + name + "' (expected get, put or pipelined)");
}

mpi::Protocol choose(const TransportProtocol& transport, int64_t bytes)
{
  return bytes < transport.eager_threshold ? mpi::Protocol::Eager : transport.rendezvous;
}

} // namespace progsim::models::protocol

