#include "mpi/Transport.hpp"

#include <stdexcept>

namespace progsim::mpi {

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

} // namespace progsim::mpi
