/* rendezvous-put (sender-driven): request-to-send, clear-to-send, then the sender pushes the data (RDMA write, or a
 * single copy by the sender's CPU in shared memory) and sends a finish message; the sender must run a step to answer
 * the clear-to-send. The pipelined variant (TCP-like transports) pushes fixed-size fragments and keeps a window of
 * progsim/pipeline-depth of them in flight; each fragment's end is a step of the sender. */
#include "protocol/Protocols.hpp"
#include "mpi/World.hpp"

#include <algorithm>
#include <memory>

namespace progsim::models::protocol {

namespace {
/** A message being pushed: the next fragment to start and the fragments in flight. */
struct Push {
  mpi::RequestPtr send;
  mpi::RequestPtr receive;
  int64_t fragment  = 0; // bytes per fragment
  int64_t fragments = 0; // in all (at least one, even for an empty message)
  int64_t started   = 0;
  int64_t ended     = 0;
};

class RendezvousPut : public mpi::MessageProtocol {
public:
  void post(mpi::Endpoint& sender, const mpi::RequestPtr& send, mpi::Message* envelope) const override
  {
    send_request_to_send(sender, send, envelope, mpi::RequestState::WaitingClearToSend);
  }

  void matched(mpi::Endpoint& receiver, const mpi::RequestPtr& receive,
               const mpi::Envelope& envelope) const override
  {
    mpi::transition(*receive, mpi::RequestState::Matched);
    auto* clear    = new mpi::Message();
    clear->kind    = mpi::Message::Kind::ClearToSend;
    clear->send    = envelope.send;
    clear->receive = receive;
    receiver.send_message(envelope.source, clear, receiver.world().parameters().control_bytes);
  }

  void clear_to_send(mpi::Endpoint& sender, const mpi::RequestPtr& send, const mpi::RequestPtr& receive) const override
  {
    mpi::transition(*send, mpi::RequestState::Transferring);
    auto push       = std::make_shared<Push>();
    push->send      = send;
    push->receive   = receive;
    push->fragment  = std::max<int64_t>(1, fragment(sender, send));
    push->fragments = std::max<int64_t>(1, (send->bytes + push->fragment - 1) / push->fragment);
    fill_window(sender, push);
  }

protected:
  /** Bytes pushed at once: the whole message. */
  virtual int64_t fragment(const mpi::Endpoint&, const mpi::RequestPtr& send) const { return send->bytes; }
  /** Fragments in flight at once. */
  virtual int64_t window(const mpi::Endpoint&) const { return 1; }

private:
  /** Starts fragments while the window has room, one after the other: each one's copy, in shared memory, comes
   * before the next one starts. */
  void fill_window(mpi::Endpoint& sender, const std::shared_ptr<Push>& push) const
  {
    if (push->started < push->fragments && push->started - push->ended < window(sender))
      start_fragment(sender, push);
  }

  void start_fragment(mpi::Endpoint& sender, const std::shared_ptr<Push>& push) const
  {
    const mpi::RequestPtr& send = push->send;
    int64_t offset = push->started * push->fragment;
    int64_t size   = std::min(push->fragment, send->bytes - offset);
    int64_t wire   = size + (push->started == 0 ? sender.world().parameters().envelope_bytes : 0);
    push->started++;
    auto data             = sender.transfer(sender.rank(), send->peer, wire);
    auto follow_then_next = [this, &sender, push, data = std::move(data), size]() {
      const mpi::RequestPtr& send = push->send;
      mpi::StepMessage message{send->id, send->peer, size};
      sender.follow(data, mpi::Step::TransferDone, message, [this, &sender, push]() {
        push->ended++;
        if (push->ended < push->fragments) {
          fill_window(sender, push);
          return;
        }
        sender.complete(push->send);
        auto* finish    = new mpi::Message();
        finish->kind    = mpi::Message::Kind::Finish;
        finish->send    = push->send; // names the message in timelines
        finish->receive = push->receive;
        sender.send_message(push->receive->owner, finish, sender.world().parameters().control_bytes);
      }, send->collective != nullptr);
      fill_window(sender, push);
    };
    if (sender.world().same_node(sender.rank(), send->peer))
      sender.copy_in_step(size, follow_then_next); // shared memory: the sender's CPU writes into the receiver's buffer
    else
      follow_then_next();
  }
};

class Pipelined : public RendezvousPut {
protected:
  int64_t fragment(const mpi::Endpoint& sender, const mpi::RequestPtr& send) const override
  {
    return sender.world().transport(sender.rank(), send->peer).fragment_size;
  }
  int64_t window(const mpi::Endpoint& sender) const override { return sender.world().parameters().pipeline_depth; }
};
} // namespace

const mpi::MessageProtocol& rendezvous_put()
{
  static const RendezvousPut protocol;
  return protocol;
}

const mpi::MessageProtocol& pipelined()
{
  static const Pipelined protocol;
  return protocol;
}

} // namespace progsim::models::protocol
