/* rendezvous-get (receiver-driven): the request-to-send tells where the data is; the receiver pulls it (an RDMA
 * read, or a single copy in shared memory done by the receiver's CPU: CMA, KNEM, XPMEM) and sends a finish
 * message. The sender need not be awake meanwhile. */
#include "protocol/Protocols.hpp"
#include "mpi/World.hpp"

namespace progsim::models::protocol {

namespace {
class RendezvousGet : public mpi::MessageProtocol {
public:
  void post(mpi::Endpoint& sender, const mpi::RequestPtr& send, mpi::Message* envelope) const override
  {
    send_request_to_send(sender, send, envelope, mpi::RequestState::WaitingFinish);
  }

  void matched(mpi::Endpoint& receiver, const mpi::RequestPtr& receive,
               const mpi::Envelope& envelope) const override
  {
    mpi::transition(*receive, mpi::RequestState::Transferring);
    mpi::RequestPtr send = envelope.send;
    auto const& params   = receiver.world().parameters();
    auto pull            = receiver.transfer(send->owner, receiver.rank(), envelope.bytes + params.envelope_bytes);
    mpi::StepMessage message{send->id, send->owner, envelope.bytes};
    auto follow_pull = [&receiver, pull = std::move(pull), message, receive, send]() {
      receiver.follow(pull, mpi::Step::TransferDone, message, [&receiver, receive, send]() {
        receiver.complete(receive);
        auto* finish = new mpi::Message();
        finish->kind = mpi::Message::Kind::Finish;
        finish->send = send;
        receiver.send_message(send->owner, finish, receiver.world().parameters().control_bytes);
      }, receive->collective != nullptr);
    };
    if (receiver.world().same_node(send->owner, receiver.rank()))
      receiver.copy_in_step(envelope.bytes, follow_pull); // the single copy keeps the runner's core busy while the
                                                          // bus moves it
    else
      follow_pull();
  }
};
} // namespace

const mpi::MessageProtocol& rendezvous_get()
{
  static const RendezvousGet protocol;
  return protocol;
}

} // namespace progsim::models::protocol
