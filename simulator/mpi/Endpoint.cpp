/* An endpoint's requests, the messages it sends and the envelopes it matches: posting by the rank inside its MPI
 * calls, and the explicit protocol's steps. The followed transfers and running steps: EndpointSteps.cpp; the waits:
 * EndpointWaits.cpp. */
#include "mpi/Endpoint.hpp"
#include "mpi/WaitInKernel.hpp"
#include "mpi/World.hpp"
#include "mpi/MessageProtocol.hpp"
#include "sched/TransferStarts.hpp"

#include <simgrid/s4u/Comm.hpp>
#include <xbt/log.h>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(progsim_protocol, progsim, "Protocol steps of every rank: who runs what, when");

namespace sg4 = simgrid::s4u;

namespace progsim::mpi {

Endpoint::Endpoint(World& world, int rank, sg4::Host* host)
    : world_(world)
    , rank_(rank)
    , host_(host)
{
}

Endpoint::~Endpoint() = default;

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
  XBT_VERB("rank %d: %s rank %d complete", rank_, request->is_send ? "send to" : "receive from",
            request->is_send ? request->peer : request->matched_source);
  transition(*request, RequestState::Complete);
  live_.erase(request->id);
  notify_rank();
  // The last request of a non-blocking collective's round: its runner starts the next one if the mechanism lets it
  // (an MPI call of the rank otherwise: advance_collectives).
  if (request->collective != nullptr &&
      world_.progress().starts_collective_rounds(running_ != nullptr ? *running_ : own_runner_))
    request->collective->advance();
}

RequestPtr Endpoint::start_collective(Schedule schedule, int tag)
{
  auto handle     = std::make_shared<Request>(); // not live: the deadlock report lists its round's requests
  handle->id      = world_.next_request_id();
  handle->owner   = rank_;
  handle->peer    = rank_;
  handle->tag     = tag;
  handle->context = Context::Collective;
  auto collective = std::make_shared<CollectiveRequest>(*this, std::move(schedule));
  collective->set_handle(handle);
  handle->collective = collective.get();
  handle->keeps      = collective;
  collectives_.push_back(collective);
  collective->start(); // its first round, inside the rank's call
  if (collective->round_done()) {
    // A round that completed at once (eager sends) goes on when someone looks: the rank in its next MPI call, or
    // the mechanism's agent at once, as a step of its own (it notices a local completion).
    StepRunner& runner = world_.progress().collective_runner(*this, Step::TransferDone, rank_);
    if (&runner != &own_runner_ && world_.progress().starts_collective_rounds(runner))
      follow_by(runner, Transfer{sched::transfer_starts::sendto(host_, host_, 1), {}}, Step::TransferDone,
                [collective]() { collective->advance(); }, true);
  }
  return handle;
}

RequestPtr Endpoint::join_network_collective(const InNetwork& part, CollectiveRequest* collective)
{
  RequestPtr request  = make_request(true, rank_, 0, part.bytes, Context::Collective);
  request->collective = collective;
  request->in_network = true;
  charge(world_.progress().costs().send_overhead);
  XBT_VERB("rank %d: joins collective #%llu, run by the network", rank_,
           static_cast<unsigned long long>(part.sequence + 1));
  world_.network_collectives().join(part.sequence, rank_, request);
  return request;
}

void Endpoint::advance_collectives()
{
  for (size_t i = 0; i < collectives_.size(); i++) // a round started here may complete others' requests
    collectives_[i]->advance();
  collectives_.erase(std::remove_if(collectives_.begin(), collectives_.end(),
                                    [](auto const& collective) { return collective->complete(); }),
                     collectives_.end());
}

std::vector<RequestPtr> Endpoint::pending_requests() const
{
  std::vector<RequestPtr> pending;
  for (auto const& [_, request] : live_)
    pending.push_back(request);
  return pending;
}

sched::TimedPause& Endpoint::world_pause()
{
  return world_.pause();
}

void Endpoint::spend(double cpu_seconds, int64_t copy_bytes)
{
  if (copy_bytes <= 0) {
    if (cpu_seconds <= 0)
      return;
    if (runs_ahead_)
      clock_.work(cpu_seconds);
    else
      world_.spend_cpu(host_, cpu_seconds);
    return;
  }
  copy_seconds_ += world_.copy_seconds(copy_bytes);
  if (runs_ahead_) // a small copy on a core of its own is time alone, which the rank's clock runs ahead through
    if (double dated = world_.dated_copy_seconds(rank_, copy_bytes, host_); dated >= 0) {
      clock_.work(cpu_seconds + dated);
      return;
    }
  world_.copy(rank_, copy_bytes, true, cpu_seconds, clock_.hand_over()); // the CPU work, then the copy
}

void Endpoint::charge(double cpu_seconds, int64_t copy_bytes)
{
  if (running_ != nullptr)
    step_copied_ += copy_bytes;
  if (running_ != nullptr && running_ != &own_runner_)
    running_->execute(*this, StepWork{cpu_seconds, copy_bytes});
  else
    spend(cpu_seconds, copy_bytes);
}

void Endpoint::copy(int64_t bytes, bool shared_core, double cpu_before)
{
  world_.copy(rank_, bytes, shared_core, cpu_before, clock_.hand_over());
  copy_seconds_ += world_.copy_seconds(bytes);
}

bool Endpoint::start_copy(int64_t bytes, bool shared_core, double cpu_before, CoreCopy& state,
                          const sg4::Host* copier)
{
  copy_seconds_ += world_.copy_seconds(bytes);
  return world_.start_copy(rank_, bytes, shared_core, cpu_before, state, copier);
}

namespace {
Step step_of(Message::Kind kind)
{
  switch (kind) {
    case Message::Kind::ClearToSend:
      return Step::ClearToSend;
    case Message::Kind::Finish:
      return Step::Finish;
    case Message::Kind::RequestToSend:
      return Step::RequestToSend;
    default:
      return Step::Envelope;
  }
}
} // namespace

void Endpoint::send_message(int destination, Message* message, int64_t bytes)
{
  Endpoint& receiver = world_.endpoint(destination);
  Step step          = step_of(message->kind);
  StepMessage about;
  if (world_.observes_steps()) { // the sender's request names the message on both sides
    bool envelope   = message->kind == Message::Kind::Eager || message->kind == Message::Kind::RequestToSend;
    const auto& send = envelope ? message->envelope.send : message->send;
    if (send)
      about = StepMessage{send->id, rank_, send->bytes};
  }
  StepWork work{world_.progress().costs().step_overhead, 0};
  if (message->kind == Message::Kind::Eager) // copied out of the arrival buffer (into the receive or an unexpected one)
    work.copy_bytes = message->envelope.bytes;
  StepRunner& runner = world_.progress().runner(receiver, step, rank_);
  Followed followed{{}, {}, step, work, &runner, [&receiver, message]() { receiver.handle(message); }, message};
  bool envelope = message->kind == Message::Kind::Eager || message->kind == Message::Kind::RequestToSend;
  followed.in_collective = envelope ? message->envelope.context == Context::Collective
                                    : (message->send && message->send->collective != nullptr) ||
                                          (message->receive && message->receive->collective != nullptr);
  double arrival = message->kind == Message::Kind::Eager ? -1 : world_.control_arrival(rank_, destination, clock());
  if (arrival >= 0) { // a control message: an arrival date, no transfer (RouteDelay says why)
    bytes_sent_      += bytes;
    followed.arrives = arrival;
  } else {
    Transfer carrier = transfer(rank_, destination, bytes, message->kind == Message::Kind::Eager);
    followed.activity = carrier.wire;
    followed.arrives  = carrier.arrives;
    followed.after    = std::move(carrier.memory);
  }
  describe(followed, about);
  receiver.add_followed(std::move(followed));
}

void Endpoint::deliver(int destination, Message* message)
{
  world_.endpoint(destination).handle(message);
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

/* ---------- posting, by the rank inside an MPI call ---------- */

RequestPtr Endpoint::post_send(int destination, int tag, int64_t bytes, Context context, bool blocking,
                               CollectiveRequest* collective)
{
  RequestPtr send    = make_request(true, destination, tag, bytes, context);
  send->collective   = collective; // before it can complete: its completion may start the collective's next round
  auto const& costs  = world_.progress().costs();
  send->protocol     = world_.progress().protocol(world_.transport(rank_, destination), bytes);
  // A blocking send the capture's MPI buffered: copied aside, it completes for the rank while its protocol goes on.
  send->buffered = blocking && bytes < costs.buffered_send_threshold;
  bool copied    = send->protocol == Protocol::Eager || send->buffered;
  charge(costs.send_overhead, copied ? bytes : 0);
  XBT_VERB("rank %d: send of %lld B to rank %d, tag %d: %s%s", rank_, static_cast<long long>(bytes), destination,
            tag, std::string(protocol_name(send->protocol)).c_str(), send->buffered ? ", buffered" : "");

  auto* envelope              = new Message();
  envelope->sequence          = next_sequence_[destination]++;
  envelope->envelope.source   = rank_;
  envelope->envelope.tag      = tag;
  envelope->envelope.context  = context;
  envelope->envelope.bytes    = bytes;
  envelope->envelope.protocol = send->protocol;
  envelope->envelope.send     = send;
  world_.protocols()[send->protocol].post(*this, send, envelope);
  return send;
}

RequestPtr Endpoint::post_receive(int source, int tag, int64_t bytes, Context context, CollectiveRequest* collective)
{
  RequestPtr receive = make_request(false, source, tag, bytes, context);
  receive->collective = collective; // before it can match
  charge(world_.progress().costs().recv_overhead);
  XBT_VERB("rank %d: receive of %lld B from %d, tag %d posted", rank_, static_cast<long long>(bytes), source, tag);
  if (auto envelope = queues_.match_posted(receive)) {
    // Matching an unexpected message is a step of the rank's own; an eager one is copied out of its buffer.
    bool eager = envelope->protocol == Protocol::Eager;
    StepWork work{world_.progress().costs().step_overhead, eager ? envelope->bytes : 0};
    // (a runner that posts a collective's round matches it as a step of its own)
    StepOrigin origin{{envelope->send ? envelope->send->id : 0, envelope->source, envelope->bytes}};
    run_step(running_ != nullptr ? *running_ : own_runner_, eager ? Step::Envelope : Step::RequestToSend, work,
             [this, &receive, &envelope]() { on_matched(receive, *envelope); }, &origin);
  }
  return receive;
}

/* ---------- explicit protocol steps ---------- */

void Endpoint::handle(Message* message)
{
  std::unique_ptr<Message> owned(message);
  switch (message->kind) {
    case Message::Kind::Eager:
    case Message::Kind::RequestToSend: {
      int source         = message->envelope.source;
      uint64_t& expected = expected_sequence_[source]; // stays valid: a counter never moves
      if (message->sequence != expected) { // it overtook an earlier envelope: hold it back
        early_.emplace(std::make_pair(source, message->sequence), owned.release());
        return;
      }
      handle_envelope(message->envelope);
      expected++;
      for (auto it = early_.find({source, expected}); it != early_.end(); it = early_.find({source, expected})) {
        std::unique_ptr<Message> next(it->second);
        early_.erase(it);
        handle_envelope(next->envelope);
        expected++;
      }
      break;
    }
    case Message::Kind::ClearToSend:
      world_.protocols()[message->send->protocol].clear_to_send(*this, message->send, message->receive);
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
  // MPI_ERR_TRUNCATE, as SMPI reports it: a receive (posted with a size) must hold the whole message.
  if (receive->bytes >= 0 && envelope.bytes > receive->bytes)
    world_.invalid_mpi(rank_, "a message of " + std::to_string(envelope.bytes) + " B from rank " +
                                  std::to_string(envelope.source) + " (tag " + std::to_string(envelope.tag) +
                                  ") does not fit the receive of " + std::to_string(receive->bytes) + " B" +
                                  (envelope.context == Context::Collective
                                       ? ": inside a collective, whose sizes differ across ranks"
                                       : " (message truncated)"));
  receive->matched_source = envelope.source;
  receive->bytes          = envelope.bytes;
  receive->protocol       = envelope.protocol;
  world_.protocols()[envelope.protocol].matched(*this, receive, envelope);
}

Transfer Endpoint::transfer(int from, int to, int64_t bytes, bool data)
{
  world_.endpoint(from).bytes_sent_ += bytes;
  const double date = clock(); // this endpoint's rank or agent starts it
  Transfer transfer;
  transfer.arrives = world_.loopback_arrival(from, to, bytes, date);
  if (transfer.arrives < 0) // a small message: its route's time and its DMA's, no flow
    transfer.arrives = world_.dated_arrival(from, to, bytes, date, data);
  if (transfer.arrives >= 0)
    return transfer;
  transfer.wire = sched::transfer_starts::sendto(world_.host_of(from), world_.host_of(to), bytes, 0, date);
  if (data && not world_.same_node(from, to)) // the NIC reads the data at one end and writes it at the other
    for (int end : {from, to}) // a cached message's DMA reaches memory later, as a write-back nobody waits for
      for (auto const& flow : world_.memory().dma(end, bytes, world_.memory().cached(bytes), date).transfers)
        transfer.memory.push_back(flow);
  return transfer;
}

} // namespace progsim::mpi
