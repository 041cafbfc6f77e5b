/* The table from a protocol's name to the object that runs it. */
#include "protocol/MessageProtocol.hpp"
#include "mpi/World.hpp"

#include <stdexcept>

namespace progsim::models::protocol {

void MessageProtocol::clear_to_send(mpi::Endpoint&, const mpi::RequestPtr&, const mpi::RequestPtr&) const
{
  throw std::logic_error("this protocol never waits for a clear-to-send");
}

void MessageProtocol::send_request_to_send(mpi::Endpoint& sender, const mpi::RequestPtr& send,
                                           mpi::Message* envelope, mpi::RequestState waiting)
{
  envelope->kind = mpi::Message::Kind::RequestToSend;
  mpi::transition(*send, waiting);
  sender.send_message(send->peer, envelope, sender.world().parameters().control_bytes);
}

const MessageProtocol& protocol_for(mpi::Protocol protocol)
{
  switch (protocol) {
    case mpi::Protocol::Eager:
      return eager();
    case mpi::Protocol::RendezvousGet:
      return rendezvous_get();
    case mpi::Protocol::RendezvousPut:
      return rendezvous_put();
    case mpi::Protocol::RendezvousPipelined:
      return pipelined();
    case mpi::Protocol::Direct:
      break;
  }
  throw std::logic_error("the direct protocol has no message protocol object");
}

} // namespace progsim::models::protocol
