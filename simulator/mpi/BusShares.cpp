#include "mpi/BusShares.hpp"
#include "mpi/Timers.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <limits>
#include <utility>

namespace sg4 = simgrid::s4u;

namespace progsim::mpi {

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

std::shared_ptr<SharedFlow> BusShares::start(double bytes, double rate, double start)
{
  const double now = sg4::Engine::get_clock();
  advance(now);
  start         = std::max(start, now);
  double factor = model_.bandwidth_factor.at(bytes);
  double bound  = std::min(model_.bandwidth, model_.window);
  if (rate > 0)
    bound = std::min(bound, rate / factor);
  double latency = model_.latency * model_.latency_factor.at(bytes);
  auto handle = std::make_shared<SharedFlow>();
  flows_.push_back(Flow{bytes, bound, factor, start + latency, 0, handle});
  share(now);
  schedule(now);
  return handle;
}

void BusShares::advance(double now)
{
  const double elapsed = now - updated_at_;
  if (elapsed > 0)
    for (auto& flow : flows_)
      if (flow.value > 0)
        flow.remaining -= flow.value * flow.factor * elapsed;
  updated_at_ = now;
}

void BusShares::share(double now)
{
  active_.clear();
  for (auto& flow : flows_) {
    flow.value = 0;
    if (flow.active_from <= now + kPrecision)
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

void BusShares::schedule(double now)
{
  double next = kNever;
  for (auto const& flow : flows_) {
    if (flow.value > 0)
      next = std::min(next, now + flow.remaining / (flow.value * flow.factor));
    else if (flow.active_from > now)
      next = std::min(next, flow.active_from);
  }
  if (next < kNever)
    next_event_.at(next, [this]() { on_event(); });
  else
    next_event_.clear();
}

void BusShares::on_event()
{
  const double now = sg4::Engine::get_clock();
  advance(now);
  std::vector<std::shared_ptr<SharedFlow>> done;
  for (auto it = flows_.begin(); it != flows_.end();) {
    bool ends = it->value > 0 && it->remaining <= it->value * it->factor * kPrecision;
    if (ends) {
      done.push_back(std::move(it->handle));
      it = flows_.erase(it);
    } else
      ++it;
  }
  share(now);
  schedule(now);
  for (auto& flow : done) {
    flow->finish_time = now;
    for (auto& tell : std::exchange(flow->on_end, {}))
      tell();
  }
}

} // namespace progsim::mpi
