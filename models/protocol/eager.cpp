/* eager: the data leaves with the envelope and waits at the receiver; the sender's buffer is free at once. */
#include "protocol/Protocols.hpp"
#include "mpi/World.hpp"

namespace progsim::models::protocol {

namespace {
class Eager : public mpi::MessageProtocol {
public:
  void post(mpi::Endpoint& sender, const mpi::RequestPtr& send, mpi::Message* envelope) const override
  {
    envelope->kind = mpi::Message::Kind::Eager;
    sender.send_message(send->peer, envelope, send->bytes + sender.world().parameters().envelope_bytes);
    sender.complete(send);
  }

  void matched(mpi::Endpoint& receiver, const mpi::RequestPtr& receive, const mpi::Envelope&) const override
  {
    receiver.complete(receive); // the data is already here
  }
};
} // namespace

const mpi::MessageProtocol& eager()
{
  static const Eager protocol;
  return protocol;
}

} // namespace progsim::models::protocol
