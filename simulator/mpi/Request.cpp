#include "mpi/Request.hpp"

namespace progsim::mpi {

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

std::string_view state_name(RequestState state)
{
  switch (state) {
    case RequestState::Posted:
      return "posted";
    case RequestState::WaitingClearToSend:
      return "waiting for clear-to-send";
    case RequestState::WaitingFinish:
      return "waiting for the receiver to pull the data";
    case RequestState::Matched:
      return "matched";
    case RequestState::Transferring:
      return "transferring";
    case RequestState::Complete:
      return "complete";
  }
  return "?";
}

} // namespace progsim::mpi
