/* One way of moving a message between two ranks, written as the steps each side runs. One file per protocol. */
#pragma once

#include "mpi/Endpoint.hpp"

namespace progsim::models::protocol {

/**
 * What each side does, and when: the sender posts (inside its MPI call), the receiver runs `matched` as the step
 * after the envelope met a receive, the sender runs `clear_to_send` as the step after the receiver's answer.
 * Every transfer a protocol starts is followed by the endpoint that must act when it ends.
 */
class MessageProtocol {
public:
  virtual ~MessageProtocol() = default;
  /** Sends the envelope (with the data when eager) and sets the send request's state. */
  virtual void post(mpi::Endpoint& sender, const mpi::RequestPtr& send, mpi::Message* envelope) const = 0;
  /** The receiver matched the envelope to `receive`. */
  virtual void matched(mpi::Endpoint& receiver, const mpi::RequestPtr& receive,
                       const mpi::Envelope& envelope) const = 0;
  /** The receiver is ready (protocols that wait for a clear-to-send). */
  virtual void clear_to_send(mpi::Endpoint& sender, const mpi::RequestPtr& send, const mpi::RequestPtr& receive) const;

protected:
  /** How every rendezvous starts: the envelope goes alone, as a request-to-send; the send waits in `waiting`. */
  static void send_request_to_send(mpi::Endpoint& sender, const mpi::RequestPtr& send, mpi::Message* envelope,
                                   mpi::RequestState waiting);
};

/** The protocol object for `protocol` (not for the direct protocol of `ideal`). */
const MessageProtocol& protocol_for(mpi::Protocol protocol);

const MessageProtocol& eager();
const MessageProtocol& rendezvous_get();
const MessageProtocol& rendezvous_put();
const MessageProtocol& pipelined();

} // namespace progsim::models::protocol
