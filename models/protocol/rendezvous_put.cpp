/* rendezvous-put (sender-driven): request-to-send, clear-to-send, then the sender pushes the data and sends a finish
 * message; the sender must run a step to answer the clear-to-send. The pipelined variant (TCP-like transports)
 * pushes fixed-size fragments, one sender step each. */
#include "protocol/MessageProtocol.hpp"
#include "mpi/World.hpp"

#include <algorithm>

namespace progsim::models::protocol {

namespace {
class RendezvousPut : public MessageProtocol {
public:
  void post(mpi::Endpoint& sender, const mpi::RequestPtr& send, mpi::Message* envelope) const override
  {
    send_request_to_send(sender, send, envelope, mpi::RequestState::WaitingClearToSend);
  }

  void matched(mpi::Endpoint& receiver, const mpi::RequestPtr& receive,
               const mpi::Envelope& envelope) const override
  {
    receive->state = mpi::RequestState::Matched;
    auto* clear    = new mpi::Message();
    clear->kind    = mpi::Message::Kind::ClearToSend;
    clear->send    = envelope.send;
    clear->receive = receive;
    receiver.send_message(envelope.source, clear, receiver.world().parameters().control_bytes);
  }

  void clear_to_send(mpi::Endpoint& sender, const mpi::RequestPtr& send, const mpi::RequestPtr& receive) const override
  {
    send->state = mpi::RequestState::Transferring;
    push(sender, send, receive, 0);
  }

protected:
  /** Bytes pushed at once: the whole message. */
  virtual int64_t fragment(const mpi::Endpoint&, const mpi::RequestPtr& send) const { return send->bytes; }

private:
  void push(mpi::Endpoint& sender, const mpi::RequestPtr& send, const mpi::RequestPtr& receive, int64_t offset) const
  {
    int64_t size = std::min(fragment(sender, send), send->bytes - offset);
    int64_t wire = size + (offset == 0 ? sender.world().parameters().envelope_bytes : 0);
    auto data    = sender.transfer(sender.rank(), send->peer, wire);
    sender.follow(data, mpi::Step::TransferDone, [this, &sender, send, receive, offset, size]() {
      if (offset + size < send->bytes) { // the next fragment, a step of the sender each
        push(sender, send, receive, offset + size);
        return;
      }
      sender.complete(send);
      auto* finish    = new mpi::Message();
      finish->kind    = mpi::Message::Kind::Finish;
      finish->receive = receive;
      sender.send_message(receive->owner, finish, sender.world().parameters().control_bytes);
    });
  }
};

class Pipelined : public RendezvousPut {
protected:
  int64_t fragment(const mpi::Endpoint& sender, const mpi::RequestPtr& send) const override
  {
    return sender.world().transport(sender.rank(), send->peer).fragment_size;
  }
};
} // namespace

const MessageProtocol& rendezvous_put()
{
  static const RendezvousPut protocol;
  return protocol;
}

const MessageProtocol& pipelined()
{
  static const Pipelined protocol;
  return protocol;
}

} // namespace progsim::models::protocol
