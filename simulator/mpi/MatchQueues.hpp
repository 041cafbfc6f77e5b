/* MPI matching: the posted-receive queue and the unexpected-message queue of one rank. */
#pragma once

#include "mpi/PostingOrder.hpp"
#include "mpi/Request.hpp"

#include <optional>

namespace progsim::mpi {

/** What a sender announces: an eager message with its data, a request-to-send, or a direct (SMPI) message. */
struct Envelope {
  int source       = 0;
  int tag          = 0;
  Context context  = Context::PointToPoint;
  int64_t bytes    = 0;
  Protocol protocol = Protocol::Direct;
  RequestPtr send;        // the sender's request (rendezvous and direct)
};

/** True when a receive posted for (source, tag, context) accepts this envelope (MPI's matching rule). */
bool matches(const Request& receive, const Envelope& envelope);

/**
 * Both queues of a rank. Messages are offered in the order the sender posted them (the caller guarantees it),
 * receives are searched in the order they were posted: this gives MPI's non-overtaking rule.
 */
class MatchQueues {
public:
  /** An envelope arrived: returns the first posted receive it matches (removed from the queue), or queues it. */
  RequestPtr match_arrival(const Envelope& envelope);
  /** A receive is posted: returns the first unexpected envelope it matches (removed), or queues the receive. */
  std::optional<Envelope> match_posted(const RequestPtr& receive);

  const PostingOrder<RequestPtr>& posted() const { return posted_; }
  const PostingOrder<Envelope>& unexpected() const { return unexpected_; }

private:
  PostingOrder<RequestPtr> posted_;
  PostingOrder<Envelope> unexpected_;
};

} // namespace progsim::mpi
