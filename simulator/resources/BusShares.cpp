#include "resources/BusShares.hpp"
#include "sched/Timers.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <limits>
#include <utility>

namespace sg4 = simgrid::s4u;

namespace progsim::resources {

namespace {
constexpr double kPrecision = 1e-9; // surf/precision: ends that close to an event end with it
constexpr double kNever     = std::numeric_limits<double>::infinity();
} // namespace

BusShares::Model BusShares::Model::of(const simgrid::s4u::Link& link, const RouteDelay& network)
{
  Model model;
  model.bandwidth        = link.get_bandwidth();
  model.latency          = link.get_latency();
  model.weight           = 1.0 + (network.crosstraffic() ? RouteDelay::kCrossTrafficShare : 0.0);
  model.window           = network.window_bound(model.latency);
  model.latency_factor   = network.latency_factor();
  model.bandwidth_factor = network.bandwidth_factor();
  return model;
}

std::shared_ptr<sched::SharedFlow> BusShares::start(double bytes, double rate, double start)
{
  const double now = sg4::Engine::get_clock();
  catch_up(now);
  start         = std::max(start, now);
  double factor = model_.bandwidth_factor.at(bytes);
  double bound  = std::min(model_.bandwidth, model_.window);
  if (rate > 0)
    bound = std::min(bound, rate / factor);
  double latency = model_.latency * model_.latency_factor.at(bytes);
  auto handle    = std::make_shared<sched::SharedFlow>();
  now_.flows.push_back(Flow{bytes, bound, factor, start + latency, 0});
  handles_.push_back(handle);
  share(now_);
  schedule();
  return handle;
}

double BusShares::next_change(const Shares& shares, bool& an_end)
{
  double next_end   = kNever;
  double next_start = kNever;
  for (auto const& flow : shares.flows) {
    if (flow.value > 0)
      next_end = std::min(next_end, shares.at + flow.remaining / (flow.value * flow.factor));
    else if (flow.active_from > shares.at)
      next_start = std::min(next_start, flow.active_from);
  }
  an_end = next_end <= next_start;
  return std::min(next_end, next_start);
}

void BusShares::advance(Shares& shares, double now)
{
  const double elapsed = now - shares.at;
  if (elapsed > 0)
    for (auto& flow : shares.flows)
      if (flow.value > 0)
        flow.remaining -= flow.value * flow.factor * elapsed;
  shares.at = now;
}

bool BusShares::done(const Flow& flow)
{
  return flow.value > 0 && flow.remaining <= flow.value * flow.factor * kPrecision;
}

void BusShares::share(Shares& shares)
{
  active_.clear();
  for (auto& flow : shares.flows) {
    flow.value = 0;
    if (flow.active_from <= shares.at + kPrecision)
      active_.push_back(&flow);
  }
  std::sort(active_.begin(), active_.end(), [](const Flow* a, const Flow* b) { return a->bound < b->bound; });
  double capacity = model_.bandwidth;
  size_t left     = active_.size();
  for (Flow* flow : active_) {
    double fair = capacity / (model_.weight * static_cast<double>(left));
    flow->value = std::min(flow->bound, fair);
    capacity -= model_.weight * flow->value;
    left--;
  }
}

void BusShares::catch_up(double now)
{
  bool an_end = false;
  for (double date = next_change(now_, an_end); not an_end && date < now; date = next_change(now_, an_end)) {
    advance(now_, date); // schedule() made sure that no flow ends there
    share(now_);
  }
  advance(now_, now);
}

void BusShares::schedule()
{
  bool an_end = false;
  double date = next_change(now_, an_end);
  if (not an_end && date < kNever) { // latencies end first: their changes come without an event of their own
    ahead_.flows = now_.flows;
    ahead_.at    = now_.at;
    while (not an_end && date < kNever) {
      advance(ahead_, date);
      if (std::any_of(ahead_.flows.begin(), ahead_.flows.end(), done)) {
        an_end = true; // a flow ends with that latency, within the precision: someone hears of it then
        break;
      }
      share(ahead_);
      date = next_change(ahead_, an_end);
    }
  }
  if (date < kNever)
    next_event_.at(date, [this]() { on_event(); });
  else
    next_event_.clear();
}

void BusShares::on_event()
{
  catch_up(sg4::Engine::get_clock());
  std::vector<std::shared_ptr<sched::SharedFlow>> ended;
  size_t kept = 0;
  for (size_t i = 0; i < now_.flows.size(); i++) {
    if (done(now_.flows[i])) {
      ended.push_back(std::move(handles_[i]));
      continue;
    }
    now_.flows[kept] = now_.flows[i];
    handles_[kept]   = std::move(handles_[i]);
    kept++;
  }
  now_.flows.resize(kept);
  handles_.resize(kept);
  share(now_);
  schedule();
  for (auto& flow : ended) {
    flow->finish_time = now_.at;
    for (auto& tell : std::exchange(flow->on_end, {}))
      tell();
  }
}

} // namespace progsim::resources
