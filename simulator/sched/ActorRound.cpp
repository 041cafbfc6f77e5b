#include "sched/ActorRound.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <utility>

namespace sg4 = simgrid::s4u;

namespace progsim::sched {

void ActorRound::at(double date, std::function<void()> then)
{
  due_[date].push_back(std::move(then));
  wakeup_.wake_by(date);
}

void ActorRound::start(sg4::Host* host)
{
  sg4::Actor::create("actor-round", host, [this]() { run(); })->daemonize();
}

void ActorRound::run()
{
  while (true) {
    wakeup_.wait_until(due_.empty() ? Wakeup::kNoDate : due_.begin()->first);
    const double now = sg4::Engine::get_clock();
    while (not due_.empty() && due_.begin()->first <= now) {
      std::vector<std::function<void()>> calls = std::move(due_.begin()->second); // a call may add to it
      due_.erase(due_.begin());
      for (auto const& call : calls)
        call();
    }
  }
}

} // namespace progsim::sched
