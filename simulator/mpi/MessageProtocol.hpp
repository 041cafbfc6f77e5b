/* One way of moving a message between two ranks, written as the steps each side runs: the interface the engine
 * owns; each protocol is one file of models/protocol. */
#pragma once

#include "mpi/Endpoint.hpp"

#include <stdexcept>

namespace progsim::mpi {

/**
 * What each side does, and when: the sender posts (inside its MPI call), the receiver runs `matched` as the step
 * after the envelope met a receive, the sender runs `clear_to_send` as the step after the receiver's answer.
 * Every transfer a protocol starts is followed by the endpoint that must act when it ends.
 */
class MessageProtocol {
public:
  virtual ~MessageProtocol() = default;
  /** Sends the envelope (with the data when eager) and sets the send request's state. */
  virtual void post(Endpoint& sender, const RequestPtr& send, Message* envelope) const = 0;
  /** The receiver matched the envelope to `receive`. */
  virtual void matched(Endpoint& receiver, const RequestPtr& receive, const Envelope& envelope) const = 0;
  /** The receiver is ready (protocols that wait for a clear-to-send). */
  virtual void clear_to_send(Endpoint&, const RequestPtr&, const RequestPtr&) const
  {
    throw std::logic_error("this protocol never waits for a clear-to-send");
  }
};

/** The protocol objects, by name: the models give them to the engine. */
class ProtocolTable {
public:
  virtual ~ProtocolTable() = default;
  virtual const MessageProtocol& operator[](Protocol protocol) const = 0;
};

} // namespace progsim::mpi
