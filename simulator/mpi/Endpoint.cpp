#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"
#include "protocol/MessageProtocol.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <algorithm>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(progsim_endpoint, progsim, "MPI protocol engine of a rank");

namespace sg4 = simgrid::s4u;

namespace progsim::mpi {

Endpoint::Endpoint(World& world, int rank, sg4::Host* host)
    : world_(world)
    , rank_(rank)
    , host_(host)
{
}

RequestPtr Endpoint::make_request(bool is_send, int peer, int tag, int64_t bytes, Context context)
{
  auto request     = std::make_shared<Request>();
  request->id      = world_.next_request_id();
  request->is_send = is_send;
  request->owner   = rank_;
  request->peer    = peer;
  request->tag     = tag;
  request->bytes   = bytes;
  request->context = context;
  live_.emplace(request->id, request);
  return request;
}

void Endpoint::complete(const RequestPtr& request)
{
  request->state = RequestState::Complete;
  live_.erase(request->id);
  completed_since_notify_ = true;
}

std::vector<RequestPtr> Endpoint::pending_requests() const
{
  std::vector<RequestPtr> pending;
  for (auto const& [_, request] : live_)
    pending.push_back(request);
  return pending;
}


void Endpoint::send_message(int destination, Message* message, int64_t bytes)
{
  Endpoint& receiver = world_.endpoint(destination);
  auto carrier       = transfer(rank_, destination, bytes);
  Step step          = message->kind == Message::Kind::ClearToSend ? Step::ClearToSend
                       : message->kind == Message::Kind::Finish    ? Step::Finish
                                                                   : Step::Envelope;
  receiver.followed_.push_back({carrier, step, [&receiver, message]() { receiver.handle(message); }, message});
  receiver.wake_listener();
}

std::vector<Envelope> Endpoint::unreceived() const
{
  std::vector<Envelope> left(queues_.unexpected().begin(), queues_.unexpected().end());
  for (auto const& followed : followed_)
    if (followed.message && (followed.message->kind == Message::Kind::Eager ||
                             followed.message->kind == Message::Kind::RequestToSend))
      left.push_back(followed.message->envelope);
  for (auto const& [_, early] : early_)
    left.push_back(early->envelope);
  return left;
}

void Endpoint::follow(sg4::ActivityPtr activity, Step step, Callback on_done)
{
  followed_.push_back({std::move(activity), step, std::move(on_done)});
  wake_listener();
}

void Endpoint::wake_listener()
{
  // Whoever waits for this endpoint's activities must look again.
  if (not world_.progress().rank_drives(*this))
    world_.progress().wake(*this);
  else if (rank_waiting_)
    doorbell_.ring();
}

std::string_view step_name(Step step)
{
  switch (step) {
    case Step::Envelope:
      return "match";
    case Step::ClearToSend:
      return "clear-to-send";
    case Step::Finish:
      return "finish";
    case Step::TransferDone:
      return "transfer-done";
  }
  return "?";
}

void Endpoint::run_step(Step step)
{
  world_.step_started(rank_, step);
  world_.progress().execute_step(*this, world_.parameters().step_overhead);
}

/* ---------- posting, by the rank inside an MPI call ---------- */

RequestPtr Endpoint::post_send(int destination, int tag, int64_t bytes, Context context)
{
  RequestPtr send = make_request(true, destination, tag, bytes, context);
  if (world_.progress().direct_protocol()) {
    post_direct_send(send);
    return send;
  }
  send->protocol = models::protocol::choose(world_.transport(rank_, destination), bytes);

  auto* envelope              = new Message();
  envelope->sequence          = next_sequence_[destination]++;
  envelope->envelope.source   = rank_;
  envelope->envelope.tag      = tag;
  envelope->envelope.context  = context;
  envelope->envelope.bytes    = bytes;
  envelope->envelope.protocol = send->protocol;
  envelope->envelope.send     = send;
  models::protocol::protocol_for(send->protocol).post(*this, send, envelope);
  return send;
}

RequestPtr Endpoint::post_receive(int source, int tag, int64_t bytes, Context context)
{
  RequestPtr receive = make_request(false, source, tag, bytes, context);
  if (world_.progress().direct_protocol()) {
    post_direct_receive(receive);
    return receive;
  }
  if (auto envelope = queues_.match_posted(receive))
    on_matched(receive, *envelope);
  return receive;
}

/* ---------- explicit protocol steps ---------- */

void Endpoint::handle(Message* message)
{
  std::unique_ptr<Message> owned(message);
  switch (message->kind) {
    case Message::Kind::Eager:
    case Message::Kind::RequestToSend: {
      int source = message->envelope.source;
      if (message->sequence != expected_sequence_[source]) { // it overtook an earlier envelope: hold it back
        early_.emplace(std::make_pair(source, message->sequence), owned.release());
        return;
      }
      handle_envelope(message->envelope);
      expected_sequence_[source]++;
      for (auto it = early_.find({source, expected_sequence_[source]}); it != early_.end();
           it      = early_.find({source, expected_sequence_[source]})) {
        std::unique_ptr<Message> next(it->second);
        early_.erase(it);
        handle_envelope(next->envelope);
        expected_sequence_[source]++;
      }
      break;
    }
    case Message::Kind::ClearToSend:
      models::protocol::protocol_for(message->send->protocol).clear_to_send(*this, message->send, message->receive);
      break;
    case Message::Kind::Finish:
      complete(message->receive ? message->receive : message->send);
      break;
  }
}

void Endpoint::handle_envelope(const Envelope& envelope)
{
  if (RequestPtr receive = queues_.match_arrival(envelope))
    on_matched(receive, envelope);
}

void Endpoint::on_matched(const RequestPtr& receive, const Envelope& envelope)
{
  receive->matched_source = envelope.source;
  receive->bytes          = envelope.bytes;
  receive->protocol       = envelope.protocol;
  models::protocol::protocol_for(envelope.protocol).matched(*this, receive, envelope);
}

sg4::CommPtr Endpoint::transfer(int from, int to, int64_t bytes)
{
  world_.endpoint(from).bytes_sent_ += bytes;
  return sg4::Comm::sendto_async(world_.host_of(from), world_.host_of(to), bytes);
}

/* ---------- progress ---------- */

void Endpoint::progress()
{
  // One look at every followed transfer per step (test_any is a single call into SimGrid).
  std::vector<sg4::ActivityPtr> watched;
  while (true) {
    watched.clear();
    add_activities(watched);
    ssize_t ready = watched.empty() ? -1 : sg4::Activity::test_any(watched);
    if (ready < 0)
      break;
    Followed done = std::move(followed_[ready]);
    followed_.erase(followed_.begin() + ready);
    run_step(done.step);
    done.on_done();
  }
  if (completed_since_notify_) {
    completed_since_notify_ = false;
    notify_rank();
  }
}

void Endpoint::add_activities(std::vector<sg4::ActivityPtr>& into)
{
  for (auto const& followed : followed_)
    into.push_back(followed.activity);
}

void Endpoint::notify_rank()
{
  if (changed_)
    changed_->notify_all();
}

void Endpoint::wait_until(const std::function<bool()>& condition)
{
  if (not changed_) {
    mutex_   = sg4::Mutex::create();
    changed_ = sg4::ConditionVariable::create();
  }
  // Taking the lock yields to other actors: look at the condition only once it is held, or a wake-up is lost.
  std::unique_lock lock(*mutex_);
  while (not condition())
    changed_->wait(lock);
}

void Endpoint::wait(const RequestPtr& request)
{
  if (world_.progress().direct_protocol()) {
    if (request->complete())
      return;
    wait_until([&request]() { return request->transfer != nullptr; });
    request->transfer->wait();
    if (not request->complete())
      complete(request);
    return;
  }
  if (world_.progress().rank_drives(*this)) {
    progress();
    std::vector<sg4::ActivityPtr> watched;
    while (not request->complete()) {
      if (doorbell_.arm()) {
        // From here to the wait nothing yields: a message followed later finds the rank waiting and rings.
        rank_waiting_ = true;
        watched.assign(1, doorbell_.activity());
        add_activities(watched);
        if (sg4::Activity::wait_any(watched) == 0)
          doorbell_.spent();
        rank_waiting_ = false;
      } else {
        doorbell_.spent();
      }
      progress();
    }
    return;
  }
  wait_until([&request]() { return request->complete(); });
}

bool Endpoint::test(const RequestPtr& request)
{
  if (world_.progress().direct_protocol()) {
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
  if (world_.progress().rank_drives(*this))
    progress();
  return request->complete();
}

} // namespace progsim::mpi
