/* What all ranks share: their endpoints and records, the host cores and copies their CPU work takes, the activity
 * that background loads follow. The checks of the traces and the end-of-run reports: WorldChecks.cpp. */
#include "mpi/World.hpp"
#include "sched/ActorParking.hpp"
#include "mpi/Rank.hpp"
#include "sched/Timers.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <xbt/log.h>

#include <algorithm>

// The root of every progsim log category: --log=progsim.thres:debug opens them all.
XBT_LOG_NEW_CATEGORY(progsim, "progsim: MPI progression simulator");
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(progsim_world, progsim, "The ranks' world: cores, memory traffic, collectives");

namespace sg4 = simgrid::s4u;

namespace progsim::mpi {

bool holds_a_core(Activity activity)
{
  return activity == Activity::Computing || activity == Activity::InMpi || activity == Activity::Blocked;
}

std::string_view activity_name(Activity activity)
{
  switch (activity) {
    case Activity::Starting:
      return "starting";
    case Activity::Computing:
      return "computing";
    case Activity::Sleeping:
      return "sleeping";
    case Activity::InMpi:
      return "mpi";
    case Activity::Blocked:
      return "blocked";
    case Activity::Finished:
      return "finished";
  }
  return "?";
}

World::World(Parameters parameters, trace::TraceSource traces, Placement placement,
             std::unique_ptr<models::progress::ProgressModel> progress, std::unique_ptr<ProtocolTable> protocols,
             std::unique_ptr<CollectiveAlgorithms> collectives,
             std::unique_ptr<models::contention::BusPolicy> bus_policy)
    : parameters_(std::move(parameters))
    , traces_(std::move(traces))
    , streams_(traces_.streams())
    , placement_(std::move(placement))
    , progress_(std::move(progress))
    , protocols_(std::move(protocols))
    , collectives_(std::move(collectives))
    , memory_(parameters_.memory, std::move(bus_policy))
    , records_(streams_.size())
    , polling_(streams_.size())
{
  endpoints_.reserve(streams_.size());
  recent_routes_.resize(streams_.size());
  for (size_t rank = 0; rank < streams_.size(); rank++)
    endpoints_.push_back(nullptr);
  for (size_t rank = 0; rank < streams_.size(); rank++) {
    endpoints_[rank] = std::make_unique<Endpoint>(*this, static_cast<int>(rank), placement_.hosts[rank]);
    ranks_on_[placement_.hosts[rank]]++;
  }
}

double World::control_arrival(int from, int to, double date) const
{
  if (not route_delay_ || parameters_.control_transfers)
    return -1;
  return route_delay_->arrival(host_of(from), host_of(to), date, parameters_.control_bytes,
                               recent_routes_[from]);
}

double World::loopback_arrival(int from, int to, int64_t bytes, double date) const
{
  if (not route_delay_ || parameters_.loopback_transfers)
    return -1;
  return route_delay_->loopback_arrival(host_of(from), host_of(to), date, bytes, recent_routes_[from]);
}

double World::dated_arrival(int from, int to, int64_t bytes, double date, bool data) const
{
  if (not data || not dated(bytes)) // control messages are dates or transfers by progsim/control-transfers
    return -1;
  double arrives = route_delay_->arrival(host_of(from), host_of(to), date, bytes, recent_routes_[from]);
  if (arrives < 0 || same_node(from, to) || memory_.cached(bytes))
    return arrives; // a cached message's DMA is a write-back, which nobody waits for (and a small one loads nothing)
  for (int end : {from, to}) { // the NIC reads the data at one end and writes it at the other
    auto dma = memory_.dma_route(end);
    if (dma.memory == nullptr)
      continue;
    double done = dma.in_parts ? -1 : route_delay_->arrival(dma.from, dma.memory, date, bytes);
    if (done < 0)
      return -1;
    arrives = std::max(arrives, done);
  }
  return arrives;
}

double World::dated_copy_seconds(int rank, int64_t bytes, const sg4::Host* copier) const
{
  const int64_t traffic = 2 * bytes; // read and write
  const double seconds  = copy_seconds(bytes);
  if (seconds <= 0 || not dated(traffic))
    return -1;
  auto flow = memory_.copy_route(rank);
  if (not parameters_.memory.copy_loads_bus || memory_.cached(bytes) || flow.memory == nullptr)
    return seconds; // no traffic that the copy waits for (a cached one's write-back loads nothing when small)
  if (flow.in_parts)
    return -1;
  const double rate = copier == flow.from ? static_cast<double>(traffic) / seconds : 0; // paced on the rank's core
  const double idle = route_delay_->arrival(flow.from, flow.memory, 0.0, traffic, rate);
  return idle < 0 ? -1 : std::max(seconds, idle);
}

void World::start()
{
  if (resources::RouteDelay delay; delay.applies())
    route_delay_ = delay;
  memory_.start(placement_.hosts);
  for (int rank = 0; rank < size(); rank++) {
    sg4::Actor::create("rank-" + std::to_string(rank), host_of(rank), Rank(*this, rank));
  }
  progress_->start(*this);
  if (parameters_.steps_in_kernel)
    actor_round_.start(host_of(0));

  for (auto const& [host, ranks] : ranks_on_) {
    if (cores_suffice(host, progress_->extra_cpu_users(*this, host)))
      uncontended_hosts_.insert(host);
  }
}

void World::copy(int rank, int64_t bytes, bool shared_core, double cpu_before, double cpu_free)
{
  double seconds  = copy_seconds(bytes);
  sg4::Host* host = host_of(rank);
  if (shared_core && not never_shared(host)) {
    pause_.until(cpu_free);
    if (seconds > 0) { // the actor parks once, until the copy is done
      CoreCopy copy;
      copy.done = [copier = sched::parking::caller()]() { sched::parking::resume(copier); };
      copy_on_shared_cores(rank, bytes, seconds, cpu_before, copy, sg4::this_actor::get_host());
      sched::parking::park();
    } else if (cpu_before > 0)
      spend_cpu(host, cpu_before);
    return;
  }
  // On a core of its own or one nobody shares, CPU work is a pause: the copy's flows are set to start when the CPU
  // work before it ends, and the actor waits once (for them, below) where it would pause, then wait.
  const double now   = sg4::Engine::get_clock();
  const double begin = cpu_before > 0 || cpu_free > now ? std::max(now, cpu_free) + cpu_before : now;
  if (seconds <= 0) {
    pause_.until(begin);
    return;
  }
  if (double dated = dated_copy_seconds(rank, bytes, sg4::this_actor::get_host()); dated >= 0) {
    pause_.until(begin + dated); // a small copy: its time on the idle bus, no flow
    return;
  }
  resources::BusTraffic bus; // read and write, at the copy's pace; a cached copy's bytes reach memory later, unwaited
  if (parameters_.memory.copy_loads_bus)
    bus = memory_.copy(rank, 2 * bytes, 2 * bytes / seconds, sg4::this_actor::get_host(), memory_.cached(bytes), begin);
  // Paced at the copy's speed, the flow lasts at least the copy's CPU time: waiting for it alone ends the copy at the
  // same time, with one activity instead of two.
  if (bus.paced && not bus.empty()) {
    bus.wait(transfers_);
    return;
  }
  pause_.until(begin); // the CPU work before, as the pause it is
  pause_.pass(seconds);
  bus.wait(transfers_);
}

void World::copy_on_shared_cores(int rank, int64_t bytes, double seconds, double cpu_before, CoreCopy& copy,
                                 const sg4::Host* copier)
{
  // The CPU work before and the copy are one execution on the shared cores; the copy's flows start between its
  // parts, from the kernel; it is done at the later of its CPU work's end and its flows' ends. Two executions and a
  // wait for each flow would park an actor up to four times for the same dates.
  resources::HostCores& cores = cores_of(host_of(rank));
  if (double dated = dated_copy_seconds(rank, bytes, copier); dated >= 0) {
    // A small copy: one execution, then what its flow takes beyond the copy's CPU time on the idle bus (exact when
    // the copy's part runs at full speed; later by what a slower share stretches that part, nanoseconds).
    copy.pending      = 1;
    const double rest = dated - seconds;
    copy.after_cpu    = [&copy, rest]() {
      if (rest > 0)
        sched::timers::set(sg4::Engine::get_clock() + rest, copy.one_ended);
      else
        copy.one_ended();
    };
    cores.start((cpu_before + seconds) * cores.speed(), copy.after_cpu, 0, copy.after_cpu); // no second part
    return;
  }
  copy.pending     = 1; // the execution, then each flow still running
  copy.start_flows = [this, &copy, rank, bytes, seconds, copier]() {
    if (not parameters_.memory.copy_loads_bus)
      return;
    copy.bus = memory_.copy(rank, 2 * bytes, 2 * bytes / seconds, copier, memory_.cached(bytes));
    count_flows(copy);
  };
  cores.start(cpu_before * cores.speed(), copy.start_flows, seconds * cores.speed(), copy.one_ended);
}

void World::count_flows(CoreCopy& copy)
{
  for (auto const& flow : copy.bus.transfers)
    if (flow.finish_time() < 0) {
      copy.pending++;
      transfers_.when_ended(flow, copy.one_ended);
    }
}

bool World::start_copy(int rank, int64_t bytes, bool shared_core, double cpu_before, CoreCopy& copy,
                       const sg4::Host* copier)
{
  // What copy() does, step for step, with `copy` counting what must end instead of an actor waiting for each.
  const double seconds = copy_seconds(bytes);
  sg4::Host* host      = host_of(rank);
  if (shared_core && not never_shared(host)) {
    if (seconds > 0)
      copy_on_shared_cores(rank, bytes, seconds, cpu_before, copy, copier);
    else if (cpu_before > 0)
      start_cpu(host, cpu_before, copy.done);
    return seconds > 0 || cpu_before > 0;
  }
  const double now   = sg4::Engine::get_clock();
  const double begin = now + std::max(cpu_before, 0.0);
  copy.pending       = 1; // the CPU work (a timer at its end), then each flow still running
  if (double dated = dated_copy_seconds(rank, bytes, copier); dated >= 0) { // a small copy: a date, no flow
    sched::timers::set(begin + dated, copy.one_ended);
    return true;
  }
  if (seconds > 0 && parameters_.memory.copy_loads_bus)
    copy.bus = memory_.copy(rank, 2 * bytes, 2 * bytes / seconds, copier, memory_.cached(bytes), begin);
  const bool paced = copy.bus.paced && not copy.bus.empty(); // its flows alone end it no earlier than its CPU work
  count_flows(copy);
  const double cpu_end = paced ? now : begin + std::max(seconds, 0.0);
  if (cpu_end > now)
    sched::timers::set(cpu_end, [&copy]() { copy.one_ended(); });
  else
    copy.pending--;
  return copy.pending > 0;
}

int64_t World::memory_bytes(const trace::Action& compute) const
{
  if (compute.bytes >= 0)
    return compute.bytes;
  if (parameters_.memory.compute_intensity > 0)
    return static_cast<int64_t>(compute.flops / parameters_.memory.compute_intensity);
  return 0;
}

bool World::lets_run_ahead(const Endpoint& endpoint)
{
  return parameters_.run_ahead && never_shared(endpoint.host()) && progress_->rank_runs_alone(endpoint) &&
         not observes_steps() &&
         on_rank_event.get_slot_count() == 0;
}

void World::spend_cpu(sg4::Host* host, double seconds)
{
  if (never_shared(host)) {
    pause_.pass(seconds);
    return;
  }
  resources::HostCores& cores = cores_of(host);
  cores.run(seconds * cores.speed()); // its speed at hand: the host's is a cold read at scale
}

void World::start_cpu(sg4::Host* host, double seconds, const std::function<void()>& done)
{
  if (never_shared(host)) {
    sched::timers::set(sg4::Engine::get_clock() + seconds, [&done]() { done(); });
    return;
  }
  static const std::function<void()> nothing = []() {};
  resources::HostCores& cores = cores_of(host);
  cores.start(seconds * cores.speed(), nothing, 0, done);
}

void World::compute(sg4::Host* host, double flops, const resources::BusTraffic& stream)
{
  // Paced at the computation's flops, its stream lasts at least the computation's time: on a core nobody shares,
  // waiting for the stream alone ends the computation at the same time, with one wait instead of two (as copy()).
  if (not never_shared(host))
    cores_of(host).run(flops);
  else if (not stream.paced || stream.empty())
    pause_.pass(flops / host->get_speed());
}

resources::HostCores& World::cores_of(const sg4::Host* host)
{
  auto& cores = cores_[host];
  if (not cores)
    cores = std::make_unique<resources::HostCores>(host);
  return *cores;
}

bool World::set_polling(Endpoint& endpoint, bool polling)
{
  if (not polling) {
    polling_.reset(endpoint.rank());
    return false;
  }
  if (not progress_->costs().poll_in_wait || never_shared(endpoint.host()))
    return false; // a core of its own, or a mechanism whose waits cost nothing: the polling changes nothing
  polling_.set(endpoint.rank());
  return not background_paused_;
}

void World::rank_finished(int rank)
{
  endpoints_[rank]->finish();
  if (finished_ + 1 == size())
    check_every_collective_called();
  if (++finished_ == size()) {
    progress_->stop(*this);
    return;
  }
  update_background();
}

void World::update_background()
{
  // When every unfinished rank waits, background loads (idle polling, reserved cores, polling waits) stop until one
  // goes on. They had to when they were SimGrid executions, which would have kept a deadlock alive; HostCores' loads
  // start no activity, and the pause stays so that steps run while every rank waits share the cores as before.
  bool all_waiting = blocked_ > 0 && blocked_ + finished_ == size();
  if (all_waiting != background_paused_) {
    background_paused_ = all_waiting;
    progress_->pause_background(all_waiting);
    for (auto rank = polling_.find_first(); rank != polling_.npos; rank = polling_.find_next(rank))
      endpoints_[rank]->pause_polling(all_waiting); // polling ranks drop or take up their load
  }
}

void World::set_activity(int rank, Activity activity, const trace::Action* action)
{
  Activity before = records_[rank].activity;
  records_[rank].activity = activity;
  if (holds_a_core(before) != holds_a_core(activity))
    holding_[host_of(rank)] += holds_a_core(activity) ? 1 : -1;
  if ((before == Activity::Blocked) != (activity == Activity::Blocked)) {
    blocked_ += activity == Activity::Blocked ? 1 : -1;
    update_background();
  }
  if (on_rank_event.get_slot_count() > 0)
    on_rank_event(RankEvent{rank, sg4::Engine::get_clock(), activity, action});
}

Schedule World::schedule(int rank, const trace::Action& action)
{
  if (not progress_->runs_in_network(action))
    return collectives_->schedule(action, rank, size(), streams_[rank]->counts());
  Schedule part;
  part.in_network = InNetwork{collectives_entered_[rank] - 1, action.type == trace::ActionType::Barrier ? 0 : action.bytes};
  return part;
}

} // namespace progsim::mpi
