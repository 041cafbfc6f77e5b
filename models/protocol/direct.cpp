/* direct: SMPI's own protocol, used by `ideal`. The envelope reaches the receiver's queues when it is posted (no
 * message travels), the match starts one transfer of the data and its 16-byte envelope, and each side's request
 * completes when that transfer ends; sends below SMPI's detached threshold complete when posted. */
#include "protocol/Protocols.hpp"
#include "mpi/World.hpp"

namespace progsim::models::protocol {

namespace {
class Direct : public mpi::MessageProtocol {
public:
  void post(mpi::Endpoint& sender, const mpi::RequestPtr& send, mpi::Message* envelope) const override
  {
    if (send->bytes < sender.world().parameters().detached_threshold)
      sender.complete(send); // smpi/send-is-detached-thresh: the sender goes on at once
    envelope->kind = mpi::Message::Kind::Eager;
    sender.deliver(send->peer, envelope);
  }

  void matched(mpi::Endpoint& receiver, const mpi::RequestPtr& receive,
               const mpi::Envelope& envelope) const override
  {
    mpi::RequestPtr send = envelope.send;
    auto data = receiver.transfer(send->owner, receiver.rank(),
                                  envelope.bytes + receiver.world().parameters().envelope_bytes);
    mpi::transition(*receive, mpi::RequestState::Transferring);
    mpi::StepMessage message{send->id, send->owner, envelope.bytes};
    receiver.follow(data, *receive, mpi::Step::TransferDone, message,
                    [&receiver, receive]() { receiver.complete(receive); });
    if (send->complete())
      return;
    mpi::transition(*send, mpi::RequestState::Transferring);
    mpi::Endpoint& sender = receiver.world().endpoint(send->owner);
    message.peer = receiver.rank();
    sender.follow(data, *send, mpi::Step::TransferDone, message, [&sender, send]() { sender.complete(send); });
  }
};
} // namespace

const mpi::MessageProtocol& direct()
{
  static const Direct protocol;
  return protocol;
}

} // namespace progsim::models::protocol
