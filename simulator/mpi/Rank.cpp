#include "mpi/Rank.hpp"
#include "mpi/CollectiveRequest.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <stdexcept>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(progsim_rank, progsim, "Rank actors replaying traces");

namespace sg4 = simgrid::s4u;
using progsim::trace::Action;
using progsim::trace::ActionType;

namespace progsim::mpi {

namespace {
bool is_mpi_call(ActionType type)
{
  return type != ActionType::Compute && type != ActionType::Sleep;
}
} // namespace

void Rank::operator()()
{
  try {
    replay();
  } catch (const std::invalid_argument& error) {
    // A setting that cannot apply to this run, such as a collective algorithm for another number of ranks, shows
    // when the rank starts the collective: bad input, named with the trace line, not a crash.
    world_.invalid_mpi(rank_, error.what());
  }
}

void Rank::replay()
{
  trace::ActionStream& actions = world_.actions(rank_);
  RankRecord& record           = world_.record(rank_);
  endpoint_.let_run_ahead(world_.lets_run_ahead(endpoint_));
  if (endpoint_.runs_ahead())
    XBT_VERB("rank %d: its CPU work runs ahead of SimGrid's clock until it looks at arrivals", rank_);
  while (const Action* next = read_next(actions)) {
    record.action        = *next;
    const Action& action = *next; // valid until the stream is read again
    XBT_VERB("rank %d: %s (line %u)", rank_, std::string(trace::action_name(action.type)).c_str(), action.line);
    const double start   = endpoint_.clock();
    if (is_mpi_call(action.type)) {
      world_.set_activity(rank_, Activity::InMpi, &action);
      if (world_.parameters().rank_progress_every_call)
        endpoint_.progress(endpoint_.own_runner());
      run(action);
      record.mpi_seconds += endpoint_.clock() - start;
    } else {
      run(action);
    }
    record.actions_done++;
  }
  // Like SMPI's replay, wait for the requests the trace left behind.
  record.trace_done   = true;
  const double start  = endpoint_.clock();
  world_.set_activity(rank_, Activity::InMpi);
  for (auto const& request : store_.take_all())
    wait(request);
  for (auto const& request : buffered_sends_)
    wait(request);
  endpoint_.catch_up(); // the rank ends at its date
  record.mpi_seconds += sg4::Engine::get_clock() - start;
  record.end_time = sg4::Engine::get_clock();
  world_.set_activity(rank_, Activity::Finished);
  world_.rank_finished(rank_);
}

const Action* Rank::read_next(trace::ActionStream& actions)
{
  try {
    return actions.next();
  } catch (const trace::TraceError& error) {
    world_.unreadable_trace(error.what());
  }
}

void Rank::pay_call()
{
  endpoint_.spend(world_.progress().costs().call_overhead);
}

void Rank::compute(double flops, const Action* action)
{
  // Only compute actions move memory; a reduction's extra computation is flops alone, as in SMPI's replay.
  int64_t bytes = action != nullptr && action->type == ActionType::Compute ? world_.memory_bytes(*action) : 0;
  if (flops <= 0 && bytes <= 0)
    return;
  if (bytes > 0) // its memory traffic starts at the rank's date, and shares the buses with others' from then on
    endpoint_.catch_up();
  const double start   = endpoint_.clock();
  const Activity before = world_.record(rank_).activity;
  world_.set_activity(rank_, Activity::Computing, action);
  // At the pace of its flops: a CPU-bound computation moves its bytes evenly over its duration.
  double pace = flops > 0 ? static_cast<double>(bytes) * endpoint_.host()->get_speed() / flops : 0.0;
  resources::BusTraffic memory = world_.memory().stream(rank_, bytes, pace);
  if (flops > 0)
    world_.progress().compute(endpoint_, flops, memory);
  memory.wait(world_.transfers());
  world_.memory().ended(memory);
  world_.record(rank_).compute_seconds += endpoint_.clock() - start;
  world_.set_activity(rank_, before, action);
}

RequestPtr Rank::post(bool is_send, int peer, int tag, int64_t bytes, Context context)
{
  return is_send ? endpoint_.post_send(peer, tag, bytes, context)
                 : endpoint_.post_receive(peer, tag, bytes, context);
}

void Rank::wait(const RequestPtr& request)
{
  if (request->complete()) {
    reduce_if_done(request);
    return;
  }
  const double start = endpoint_.clock();
  block_on(request);
  endpoint_.wait(request);
  unblock(start);
  reduce_if_done(request);
}

void Rank::block_on(const RequestPtr& request)
{
  world_.record(rank_).waiting_for = request;
  world_.set_activity(rank_, Activity::Blocked);
}

void Rank::unblock(double blocked_at)
{
  world_.progress().wait_ended(endpoint_);
  world_.record(rank_).waiting_for = nullptr;
  world_.record(rank_).blocked_seconds += endpoint_.clock() - blocked_at;
  world_.set_activity(rank_, Activity::InMpi);
}

void Rank::call_and_wait(const RequestPtr& request)
{
  if (request == nullptr || request->complete() || not endpoint_.waits_in_kernel()) {
    pay_call();
    if (request)
      wait(request);
    return;
  }
  double blocked_at = -1;
  endpoint_.call_and_wait(request, world_.progress().costs().call_overhead, [this, &request, &blocked_at]() {
    blocked_at = sg4::Engine::get_clock();
    block_on(request);
  });
  if (blocked_at >= 0) // as wait() after a call that left the request pending
    unblock(blocked_at);
  reduce_if_done(request);
}

void Rank::reduce_if_done(const RequestPtr& request)
{
  if (reductions_.empty() || not request->complete())
    return;
  auto it = reductions_.find(request->id);
  if (it == reductions_.end())
    return;
  const double flops = it->second;
  reductions_.erase(it);
  compute(flops, nullptr); // as the blocking forms: after the messages, on the rank's core
}

namespace {
/** How a wait or test line names its request, for error messages. */
std::string request_name(const Action& a)
{
  if (trace::is_nonblocking_request_tag(a.tag))
    return "(non-blocking collective, tag " + std::to_string(a.tag) + ")";
  return "(source " + std::to_string(a.peer) + ", destination " + std::to_string(a.peer2) + ", tag " +
         std::to_string(a.tag) + ")";
}
std::string pending_kind(const Action& a)
{
  return trace::is_nonblocking_request_tag(a.tag) ? "no non-blocking collective of its kind" : "no isend or irecv";
}
} // namespace

void Rank::run(const Action& a)
{
  switch (a.type) {
    case ActionType::Init:
    case ActionType::Finalize:
    case ActionType::CommSize:
    case ActionType::CommSplit:
    case ActionType::CommDup:
    case ActionType::Location:
      break; // no time, as in SMPI's replay (communicators are not created: everything runs on the world)
    case ActionType::Compute:
      compute(a.flops, &a);
      break;
    case ActionType::Sleep: {
      endpoint_.catch_up(); // SimGrid's sleep starts at its clock
      const double start = sg4::Engine::get_clock();
      world_.set_activity(rank_, Activity::Sleeping, &a);
      sg4::this_actor::sleep_for(a.flops);
      world_.record(rank_).compute_seconds += sg4::Engine::get_clock() - start;
      break;
    }
    case ActionType::Send: {
      RequestPtr send = endpoint_.post_send(a.peer, a.tag, a.bytes, Context::PointToPoint, true);
      if (send->buffered && not send->complete()) { // returns now; its protocol goes on
        if (buffered_sends_.size() >= 64) // keep the list short on long traces
          buffered_sends_.erase(std::remove_if(buffered_sends_.begin(), buffered_sends_.end(),
                                               [](const RequestPtr& r) { return r->complete(); }),
                                buffered_sends_.end());
        buffered_sends_.push_back(send);
      } else
        wait(send);
      break;
    }
    case ActionType::Recv:
      wait(post(false, a.peer, a.tag, a.bytes, Context::PointToPoint));
      break;
    case ActionType::Isend:
      store_.add(post(true, a.peer, a.tag, a.bytes, Context::PointToPoint), rank_, a.peer, a.tag);
      break;
    case ActionType::Irecv:
      store_.add(post(false, a.peer, a.tag, a.bytes, Context::PointToPoint), a.peer, rank_, a.tag);
      break;
    case ActionType::Wait: {
      bool found         = false;
      RequestPtr request = store_.pop(a.peer, a.peer2, a.tag, found);
      if (not found) // SMPI's tracer writes no wait for a null request: this one names none that was posted
        world_.invalid_mpi(rank_, "wait for " + request_name(a) + " but " + pending_kind(a) +
                                      " of this rank is pending under that name");
      call_and_wait(request); // a null one: the request completed in an earlier test
      break;
    }
    case ActionType::Test: {
      pay_call();
      bool found         = false;
      RequestPtr request = store_.pop(a.peer, a.peer2, a.tag, found);
      if (not found) // as for wait: SMPI's tracer writes no test of a null request
        world_.invalid_mpi(rank_, "test of " + request_name(a) + " but " + pending_kind(a) +
                                      " of this rank is pending under that name");
      if (not request)
        break;
      if (endpoint_.test(request)) {
        store_.add_placeholder(a.peer, a.peer2, a.tag);
        reduce_if_done(request);
      }
      else
        store_.add(request, a.peer, a.peer2, a.tag);
      break;
    }
    case ActionType::WaitAll:
      pay_call();
      for (auto const& request : store_.take_all())
        wait(request);
      break;
    case ActionType::SendRecv: {
      if (a.peer == rank_ && a.peer2 == rank_)
        break; // a copy to oneself
      auto sent     = post(true, a.peer, 0, a.bytes, Context::PointToPoint);
      auto received = post(false, a.peer2, 0, a.bytes2, Context::PointToPoint);
      wait(sent);
      wait(received);
      break;
    }
    default:
      run_collective(a);
  }
}

void Rank::run_collective(const Action& a)
{
  world_.enter_collective(rank_, a);
  Schedule schedule = world_.schedule(rank_, a);
  if (a.nonblocking) { // its first round is posted now; a wait or test of its request completes it
    RequestPtr request = endpoint_.start_collective(std::move(schedule), trace::nonblocking_request_tag(a.type));
    if (a.flops > 0)
      reductions_.emplace(request->id, a.flops);
    store_.add(request, -1, -1, request->tag); // wait and test find it by its tag alone (ActionParser)
    return;
  }
  CollectiveRequest collective(endpoint_, std::move(schedule));
  collective.start();
  while (not collective.complete()) {
    for (auto const& request : collective.pending())
      wait(request);
    collective.advance();
  }
  // The reductions' extra computation runs after the collective, as in SMPI's replay.
  if (a.type == ActionType::Reduce || a.type == ActionType::AllReduce || a.type == ActionType::ReduceScatter ||
      a.type == ActionType::Scan || a.type == ActionType::ExScan)
    compute(a.flops, &a);
}

} // namespace progsim::mpi
