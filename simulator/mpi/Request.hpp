/* An MPI request and the protocol state it goes through. */
#pragma once

#include "config/Transport.hpp"

#include <simgrid/s4u/Comm.hpp>

#include <cstdint>
#include <memory>
#include <string_view>

namespace progsim::mpi {

class CollectiveRequest;

/** Wildcards, spelled as SMPI spells them in traces. */
constexpr int kAnySource = -555;
constexpr int kAnyTag    = -444;

/** Matching context: application messages never match a collective's internal messages. */
enum class Context : uint8_t { PointToPoint, Collective };

/**
 * Life cycle of a request. Sends: Posted -> (eager) Complete, or Posted -> WaitingClearToSend (put/pipelined)
 * -> Transferring -> Complete, or Posted -> WaitingFinish (get) -> Complete. Receives: Posted -> Matched ->
 * Transferring -> Complete.
 */
enum class RequestState : uint8_t { Posted, WaitingClearToSend, WaitingFinish, Matched, Transferring, Complete };
std::string_view state_name(RequestState state);

struct Request {
  uint64_t id       = 0;
  bool is_send      = true;
  int owner         = 0;   // world rank that posted it
  int peer          = 0;   // destination (send) or source (receive, may be kAnySource)
  int tag           = 0;
  Context context   = Context::PointToPoint;
  int64_t bytes     = 0;   // payload; a receive learns the real size when it matches
  Protocol protocol = Protocol::Direct;
  RequestState state = RequestState::Posted;
  bool buffered     = false;            // a blocking send copied aside: the rank goes on before it completes
  bool in_network   = false;            // a rank's part in a collective that the network runs (no peer)
  int matched_source = -1;              // receive: who it matched
  CollectiveRequest* collective = nullptr; // the non-blocking collective it belongs to (a round's, or its handle)
  std::shared_ptr<CollectiveRequest> keeps; // a non-blocking collective's handle keeps it while the rank holds it

  bool complete() const { return state == RequestState::Complete; }
};
using RequestPtr = std::shared_ptr<Request>;

/** The one way a request changes state: aborts on a change the life cycle above does not allow. */
void transition(Request& request, RequestState to);

} // namespace progsim::mpi
