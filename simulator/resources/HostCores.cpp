#include "resources/HostCores.hpp"
#include "sched/ActorParking.hpp"
#include "sched/Timers.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>

namespace sg4 = simgrid::s4u;

namespace progsim::resources {

HostCores::HostCores(const sg4::Host* host)
    : speed_(host->get_speed()), capacity_(host->get_speed() * host->get_core_count()), rate_(speed_)
{
}

void HostCores::run(double flops)
{
  if (flops <= 0)
    return;
  advance();
  running_.push(Job{virtual_time_ + flops, next_order_++, sched::parking::caller()});
  update_rate();
  schedule_next_end();
  sched::parking::park();
}

void HostCores::start(double first, const std::function<void()>& between, double then,
                      const std::function<void()>& done)
{
  if (first <= 0) {
    between();
    first = then;
    then  = 0;
  }
  advance();
  running_.push(Job{virtual_time_ + first, next_order_++, nullptr, then > 0 ? &between : nullptr, then, &done});
  update_rate();
  schedule_next_end();
}

uint64_t HostCores::start_load(double bound, double priority)
{
  advance();
  uint64_t handle = next_order_++;
  // In the order in which water-filling saturates them (update_rate).
  Load load{handle, User{bound, priority}};
  auto later = std::upper_bound(loads_.begin(), loads_.end(), load, [](const Load& a, const Load& b) {
    return a.share.bound * b.share.priority < b.share.bound * a.share.priority;
  });
  loads_.insert(later, load);
  update_rate();
  schedule_next_end();
  return handle;
}

void HostCores::stop_load(uint64_t load)
{
  advance();
  loads_.erase(std::find_if(loads_.begin(), loads_.end(), [load](const Load& l) { return l.handle == load; }));
  update_rate();
  schedule_next_end();
}

void HostCores::advance()
{
  double now = sg4::Engine::get_clock();
  virtual_time_ += rate_ * (now - updated_at_);
  updated_at_ = now;
}

void HostCores::update_rate()
{
  // Max-min fairness with bounds and priorities (water-filling): a level L such that each user gets
  // min(bound, L x priority) and the host's capacity is used up, unless every bound fits in it. The running
  // executions are one class: n users of one core each, priority 1.
  const auto n  = static_cast<double>(running_.size());
  double bounds = n * speed_;
  double priority = n;
  for (auto const& load : loads_) {
    bounds += load.share.bound;
    priority += load.share.priority;
  }
  if (bounds <= capacity_) {
    rate_ = speed_;
    return;
  }
  // The users that saturate their bound first (lowest bound / priority) are served whole; the others share the rest.
  // Loads are kept in that order; the executions' class, whose bound / priority is one core's speed, goes after the
  // loads whose ratio is lower.
  double left  = capacity_;
  double level = left / priority;
  auto saturates = [&](double user_bound, double user_priority) {
    if (user_bound > level * user_priority)
      return false;
    left -= user_bound;
    priority -= user_priority;
    level = priority > 0 ? left / priority : level;
    return true;
  };
  bool executions_placed = n == 0;
  for (auto const& load : loads_) {
    if (not executions_placed && load.share.bound >= speed_ * load.share.priority) {
      executions_placed = true;
      if (not saturates(n * speed_, n))
        break;
    }
    if (not saturates(load.share.bound, load.share.priority))
      break;
  }
  if (not executions_placed)
    saturates(n * speed_, n);
  rate_ = std::min(speed_, level);
}

void HostCores::schedule_next_end()
{
  double date = -1;
  if (not running_.empty() && rate_ > 0)
    date = std::max(updated_at_, updated_at_ + (running_.top().done_at - virtual_time_) / rate_);
  if (next_end_.pending() && date == next_end_.date())
    return; // most starts and ends leave the first end where it was
  if (date < 0)
    next_end_.clear();
  else
    next_end_.at(date, [this]() { end_due(); });
}

void HostCores::end_due()
{
  advance();
  // The timer's date came from the same virtual times: allow for the rounding of that round trip.
  const double due = virtual_time_ + 1e-12 * std::max(1.0, virtual_time_);
  while (not running_.empty() && running_.top().done_at <= due) {
    Job job = running_.top();
    running_.pop();
    if (job.between != nullptr) {
      (*job.between)();
      going_on_.push_back(job);
    } else if (job.done != nullptr) {
      (*job.done)();
    } else {
      sched::parking::resume(job.waiter);
    }
  }
  for (auto const& job : going_on_) // its second part begins now, as a new run would
    running_.push(Job{virtual_time_ + job.then, next_order_++, nullptr, nullptr, 0, job.done});
  going_on_.clear();
  update_rate();
  schedule_next_end();
}

} // namespace progsim::resources
