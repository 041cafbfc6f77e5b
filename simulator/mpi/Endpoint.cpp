#include "mpi/Endpoint.hpp"
#include "mpi/KernelSteps.hpp"
#include "mpi/KernelWait.hpp"
#include "mpi/World.hpp"
#include "mpi/MessageProtocol.hpp"
#include "mpi/TransferStarts.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(progsim_protocol, progsim, "Protocol steps of every rank: who runs what, when");

namespace sg4 = simgrid::s4u;

namespace progsim::mpi {

void RankRunner::execute(Endpoint& endpoint, const StepWork& work)
{
  endpoint.spend(work.cpu_seconds, work.copy_bytes);
  endpoint.add_step_seconds(work.cpu_seconds);
}

bool RankRunner::start(Endpoint& endpoint, const StepWork& work, CoreCopy& state)
{
  endpoint.add_step_seconds(work.cpu_seconds);
  return endpoint.start_copy(work.copy_bytes, true, work.cpu_seconds, state, endpoint.host());
}

bool StepRunner::start(Endpoint&, const StepWork&, CoreCopy&)
{
  throw std::logic_error("this runner's steps run in its actor only");
}

void RankRunner::ring(Endpoint& endpoint)
{
  endpoint.notify_rank();
}

void RankRunner::expect(Endpoint& endpoint, double date)
{
  endpoint.rank_expects(date);
}

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
      follow_by(runner, Transfer{transfer_starts::sendto(host_, host_, 1), {}}, Step::TransferDone,
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

TimedPause& Endpoint::world_pause()
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
  world_.copy(rank_, copy_bytes, true, cpu_seconds, clock_.hand_over()); // the CPU work, then the copy
  copy_seconds_ += world_.copy_seconds(copy_bytes);
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

void Endpoint::follow(const Transfer& transfer, Step step, const StepMessage& message, Callback on_done,
                      bool in_collective)
{
  follow_by(world_.progress().runner(*this, step, message.peer), transfer, step, std::move(on_done), in_collective,
            message);
}

void Endpoint::follow(const Transfer& transfer, const Request& request, Step step, const StepMessage& message,
                      Callback on_done)
{
  auto& progress = world_.progress();
  follow_by(request.collective != nullptr ? progress.collective_runner(*this, step, message.peer)
                                          : progress.runner(*this, step, message.peer),
            transfer, step, std::move(on_done), request.collective != nullptr, message);
}

void Endpoint::follow_by(StepRunner& runner, const Transfer& transfer, Step step, Callback on_done,
                         bool in_collective, const StepMessage& message)
{
  Followed followed{transfer.wire, transfer.memory, step, StepWork{world_.progress().costs().step_overhead, 0},
                    &runner, std::move(on_done)};
  followed.arrives       = transfer.arrives;
  followed.in_collective = in_collective;
  describe(followed, message);
  add_followed(std::move(followed));
}

void Endpoint::describe(Followed& followed, const StepMessage& message) const
{
  if (not world_.observes_steps())
    return;
  followed.about        = message;
  followed.origin_time  = clock();
  followed.origin_actor = actor_name();
}

void Endpoint::add_followed(Followed followed)
{
  followed_.push_back(std::move(followed));
  announce(followed_.back());
}

void Endpoint::announce(const Followed& followed)
{
  StepRunner& runner = *followed.runner;
  if (followed.activity) { // its end rings them
    world_.transfers().watch(followed.activity, *this, runner);
    return;
  }
  runner.expect(*this, followed.arrives);
  if (&runner != &own_runner_ && world_.progress().rank_also_runs(runner))
    own_runner_.expect(*this, followed.arrives);
}

void Endpoint::transfer_ended(StepRunner& runner)
{
  runner.ring(*this);
  if (&runner != &own_runner_ && world_.progress().rank_also_runs(runner))
    own_runner_.ring(*this);
}

bool Endpoint::handles(const StepRunner& runner, const StepRunner& assigned) const
{
  return &runner == &assigned || (&runner == &own_runner_ && world_.progress().rank_also_runs(assigned));
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

std::string_view step_name(Step step)
{
  switch (step) {
    case Step::Envelope:
      return "match";
    case Step::RequestToSend:
      return "match-rendezvous";
    case Step::ClearToSend:
      return "clear-to-send";
    case Step::Finish:
      return "finish";
    case Step::TransferDone:
      return "transfer-done";
  }
  return "?";
}

void Endpoint::run_step(StepRunner& runner, Step step, const StepWork& work, const Callback& effect,
                        const StepMessage& about, double origin_time, std::string_view origin_actor,
                        double arrival_time)
{
  uint64_t serial      = step_begins(runner, step, work, about, origin_time, origin_actor, arrival_time);
  int64_t outer_copied = step_copied_;
  step_copied_         = work.copy_bytes;
  runner.execute(*this, work); // the step's time passes before its effect
  StepRunner* outer = running_;
  running_          = &runner;
  effect();
  running_ = outer;
  step_ends(serial);
  step_copied_ = outer_copied;
}

uint64_t Endpoint::step_begins(const StepRunner& runner, Step step, const StepWork& work, const StepMessage& about,
                               double origin_time, std::string_view origin_actor, double arrival_time)
{
  XBT_VERB("rank %d: %s step by %s (%g s CPU, %lld B copied)", rank_, std::string(step_name(step)).c_str(),
            std::string(runner.name()).c_str(), work.cpu_seconds, static_cast<long long>(work.copy_bytes));
  if (not world_.observes_steps())
    return 0;
  return world_.step_started(StepEvent{0, rank_, clock(), step, runner.name(), actor_name(), work.cpu_seconds, about,
                                       origin_time, origin_actor, arrival_time});
}

void Endpoint::step_ends(uint64_t serial) const
{
  if (serial != 0)
    world_.step_ended(StepEnd{serial, clock(), step_copied_});
}

std::string Endpoint::actor_name() const
{
  return kernel_actor_ != nullptr ? kernel_actor_->get_name() : sg4::this_actor::get_name();
}

bool Endpoint::copy_in_step(int64_t bytes)
{
  xbt_assert(running_ != nullptr, "a copy in a step needs a step being run");
  step_copied_ += bytes;
  if (kernel_steps_ != nullptr) // the kernel runs the step: the copy goes on from there
    return false;
  running_->execute(*this, StepWork{0, bytes});
  return true;
}

void Endpoint::copy_in_step_from_kernel(int64_t bytes, std::function<void()> then)
{
  kernel_steps_->copy_then(bytes, std::move(then));
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
    StepMessage about{envelope->send ? envelope->send->id : 0, envelope->source, envelope->bytes};
    run_step(running_ != nullptr ? *running_ : own_runner_, eager ? Step::Envelope : Step::RequestToSend, work,
             [this, &receive, &envelope]() { on_matched(receive, *envelope); }, about);
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
  if (transfer.arrives < 0)
    transfer.wire = transfer_starts::sendto(world_.host_of(from), world_.host_of(to), bytes, 0, date);
  if (data && not world_.same_node(from, to)) // the NIC reads the data at one end and writes it at the other
    for (int end : {from, to}) // a cached message's DMA reaches memory later, as a write-back nobody waits for
      for (auto const& flow : world_.memory().dma(end, bytes, world_.memory().cached(bytes), date).transfers)
        transfer.memory.push_back(flow);
  return transfer;
}

/* ---------- progress ---------- */

void Endpoint::progress(StepRunner& runner)
{
  // Steps run in the order their transfers were followed, as Activity::test_any would find them.
  while (true) {
    if (&runner == &own_runner_) // what arrives by the rank's date is known once SimGrid's clock is there too
      catch_up();
    Followed* ready = first_ready(runner);
    if (ready == nullptr)
      break;
    Followed done = take(ready);
    run_step(runner, done.step, done.work, done.on_done, done.about, done.origin_time, done.origin_actor,
             done.arrival_time);
  }
  if (&runner == &own_runner_ && not collectives_.empty())
    advance_collectives();
}

Endpoint::Followed* Endpoint::first_ready(StepRunner& runner)
{
  // A transfer is over once SimGrid gave it a finish time: a look at it needs no simcall, where
  // Activity::test_any costs one per look (and most looks find nothing ready).
  while (true) {
    auto it = std::find_if(followed_.begin(), followed_.end(),
                           [this, &runner](const Followed& f) { return ready_for(runner, f); });
    if (it == followed_.end())
      return nullptr;
    if (world_.observes_steps()) // the step could run once its last flow ended (maybe long before a runner looked)
      it->arrival_time = std::max({it->arrival_time, it->origin_time,
                                   it->activity ? it->activity.finish_time() : it->arrives});
    if (it->after.empty())
      return &*it;
    // the step waits for the transfer's other flows too
    it->activity = it->after.back();
    it->after.pop_back();
    announce(*it);
  }
}

Endpoint::Followed Endpoint::take(Followed* ready)
{
  auto it       = followed_.begin() + (ready - followed_.data());
  Followed done = std::move(*it);
  followed_.erase(it);
  // What the NIC wrote is read from memory: behind the computations' queued requests when they load it.
  done.work.cpu_seconds += world_.memory().access_stall(rank_);
  return done;
}

double Endpoint::next_ready(const StepRunner& runner) const
{
  double next = Wakeup::kNoDate;
  for (auto const& followed : followed_) {
    if (not handles(runner, *followed.runner))
      continue;
    double ready = followed.activity ? followed.activity.finish_time() : followed.arrives;
    if (ready >= 0 && ready < next) {
      if (followed.arrived(clock()))
        return ready;
      next = ready;
    }
  }
  return next;
}

void Endpoint::finish()
{
  world_.set_polling(*this, false);
}

void Endpoint::notify_rank()
{
  if (rank_waiting_)
    wakeup_.ring();
}

void Endpoint::rank_expects(double date)
{
  if (rank_waiting_)
    wakeup_.wake_by(date);
}

bool Endpoint::waits_in_kernel()
{
  // Where the rank's CPU work is a pause (a core nobody shares, a clock running ahead) its steps cost no park.
  if (shares_cores_ < 0) // the host's sharing is known once the run started: looked up once (a cold read at scale)
    shares_cores_ = world_.parameters().steps_in_kernel && not world_.never_shared(host_) ? 1 : 0;
  return shares_cores_ == 1 && not runs_ahead_ && collectives_.empty();
}

void Endpoint::call_and_wait(const RequestPtr& request, double call_seconds, std::function<void()> blocked)
{
  if (not kernel_wait_)
    kernel_wait_ = std::make_unique<KernelWait>(*this);
  if (kernel_wait_->run(request, call_seconds, std::move(blocked)))
    return;
  do // a step the rank must run itself is ready
    progress(own_runner_);
  while (not kernel_wait_->run(request));
}

void Endpoint::wait(const RequestPtr& request)
{
  if (waits_in_kernel()) {
    call_and_wait(request, 0, nullptr);
    return;
  }
  progress(own_runner_);
  while (not request->complete()) {
    double next = next_ready(own_runner_);
    if (next > clock()) {
      if (clock_.ahead()) { // a round posted by advance_collectives: its CPU work passes, then the rank looks again
        catch_up();
        progress(own_runner_);
        continue;
      }
      // From here to the wait nothing yields: work made ready later finds the rank waiting and rings.
      rank_waiting_ = true;
      // A polling rank keeps its core busy: a load of one core, at the priority of any execution.
      std::optional<uint64_t> poll_load;
      if (world_.set_polling(*this, true))
        poll_load = world_.cores_of(host_).start_load(host_->get_speed(), 1);
      wakeup_.wait_until(next);
      rank_waiting_ = false;
      if (poll_load)
        world_.cores_of(host_).stop_load(*poll_load);
      world_.set_polling(*this, false);
    }
    progress(own_runner_);
  }
}

bool Endpoint::test(const RequestPtr& request)
{
  auto& mechanism = world_.progress();
  mechanism.test_entered(*this);
  progress(own_runner_);
  bool done = request->complete();
  CollectiveRequest* collective = request->collective;
  if (collective != nullptr && collective->handle() == request) {
    // As SMPI's MPI_Test of a non-blocking collective (smpi_request.cpp, Request::test and testall): it tests each
    // of the collective's requests, each test a call of its own (with its own cost), and succeeds once all are.
    done = true;
    std::vector<RequestPtr> parts = collective->round_requests(); // progress may start the next round
    for (auto const& part : parts) {
      mechanism.test_entered(*this);
      progress(own_runner_);
      if (collective->found_complete(part))
        continue;
      bool part_done = part->complete();
      if (part_done)
        collective->set_found_complete(part);
      done = done && part_done;
      mechanism.test_returned(part_done);
    }
    done = done && request->complete();
  }
  mechanism.test_returned(done);
  return done;
}

} // namespace progsim::mpi
