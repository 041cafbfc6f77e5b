/* The direct protocol of `ideal` progression, as SMPI runs it: a message is matched when the second side posts,
 * and its one transfer then runs by itself; both sides wait on that same transfer. */
#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>

namespace sg4 = simgrid::s4u;

namespace progsim::mpi {

void Endpoint::post_direct_send(const RequestPtr& send)
{
  send->detached = send->bytes < world_.parameters().detached_threshold;
  Envelope envelope;
  envelope.source  = rank_;
  envelope.tag     = send->tag;
  envelope.context = send->context;
  envelope.bytes   = send->bytes;
  envelope.send    = send;
  Endpoint& destination = world_.endpoint(send->peer);
  if (RequestPtr receive = destination.queues_.match_arrival(envelope))
    start_direct_transfer(send, receive);
  if (send->detached)
    complete(send);
}

void Endpoint::post_direct_receive(const RequestPtr& receive)
{
  if (auto envelope = queues_.match_posted(receive))
    start_direct_transfer(envelope->send, receive);
}

void Endpoint::start_direct_transfer(const RequestPtr& send, const RequestPtr& receive)
{
  Endpoint& sender        = world_.endpoint(send->owner);
  Endpoint& receiver      = world_.endpoint(receive->owner);
  receive->matched_source = send->owner;
  receive->bytes          = send->bytes;
  int64_t wire            = send->bytes + world_.parameters().envelope_bytes;
  sender.bytes_sent_ += wire;
  auto transfer  = sg4::Comm::sendto_async(sender.host_, receiver.host_, wire);
  send->transfer = transfer;
  receive->transfer = transfer;
  if (not send->complete()) // a detached send completed when it was posted
    transition(*send, RequestState::Transferring);
  transition(*receive, RequestState::Transferring);
  sender.notify_rank();
  receiver.notify_rank();
}

void Endpoint::wait_direct(const RequestPtr& request)
{
  if (request->complete())
    return;
  while (request->transfer == nullptr) { // not matched yet: the other side's post rings
    if (doorbell_.arm() && request->transfer == nullptr) {
      rank_waiting_ = true;
      doorbell_.activity()->wait();
      rank_waiting_ = false;
    }
    doorbell_.spent();
  }
  request->transfer->wait();
  if (not request->complete())
    complete(request);
}

bool Endpoint::test_direct(const RequestPtr& request)
{
  // SMPI injects a growing sleep in every MPI_Test (smpi/test, smpi/grow-injected-times).
  int& sleeps = world_.smpi_test_sleeps();
  if (world_.parameters().smpi_test_sleep > 0)
    sg4::this_actor::sleep_for(sleeps * world_.parameters().smpi_test_sleep);
  bool done = request->complete() || (request->transfer && request->transfer->test());
  if (done) {
    if (not request->complete())
      complete(request);
    sleeps = 1;
  } else {
    sleeps++;
  }
  return done;
}

} // namespace progsim::mpi
