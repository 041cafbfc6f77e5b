/* The message protocols (one file each) and what they share. */
#pragma once

#include "mpi/MessageProtocol.hpp"

#include <memory>

namespace progsim::models::protocol {

const mpi::MessageProtocol& eager();
const mpi::MessageProtocol& rendezvous_get();
const mpi::MessageProtocol& rendezvous_put();
const mpi::MessageProtocol& pipelined();
const mpi::MessageProtocol& direct();

/** The table the engine looks protocols up in. */
std::unique_ptr<mpi::ProtocolTable> make_protocols();

/** How every rendezvous starts: the envelope goes alone, as a request-to-send; the send waits in `waiting`. */
void send_request_to_send(mpi::Endpoint& sender, const mpi::RequestPtr& send, mpi::Message* envelope,
                          mpi::RequestState waiting);

} // namespace progsim::models::protocol
