/* The table from a protocol's name to the object that runs it, and what rendezvous protocols share. */
#include "protocol/Protocols.hpp"
#include "mpi/World.hpp"

#include <stdexcept>

namespace progsim::models::protocol {

void send_request_to_send(mpi::Endpoint& sender, const mpi::RequestPtr& send, mpi::Message* envelope,
                          mpi::RequestState waiting)
{
  envelope->kind = mpi::Message::Kind::RequestToSend;
  mpi::transition(*send, waiting);
  sender.send_message(send->peer, envelope, sender.world().parameters().control_bytes);
}

namespace {
class Table : public mpi::ProtocolTable {
public:
  const mpi::MessageProtocol& operator[](Protocol protocol) const override
  {
    switch (protocol) {
      case Protocol::Eager:
        return eager();
      case Protocol::RendezvousGet:
        return rendezvous_get();
      case Protocol::RendezvousPut:
        return rendezvous_put();
      case Protocol::RendezvousPipelined:
        return pipelined();
      case Protocol::Direct:
        return direct();
    }
    throw std::logic_error("unknown protocol");
  }
};
} // namespace

std::unique_ptr<mpi::ProtocolTable> make_protocols()
{
  return std::make_unique<Table>();
}

} // namespace progsim::models::protocol
