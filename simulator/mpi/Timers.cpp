#include "mpi/Timers.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <vector>

namespace progsim::mpi::timers {

struct Timer {
  double date;
  uint64_t order;
  std::function<void()> callback;
  bool cancelled = false;
};

namespace {
struct Later {
  bool operator()(const Timer* a, const Timer* b) const
  {
    return a->date != b->date ? a->date > b->date : a->order > b->order;
  }
};

/** The queue: a binary heap in one array, under one SimGrid timer set at its first date. */
class Queue {
public:
  Queue() = default;
  Queue(const Queue&)            = delete;
  Queue& operator=(const Queue&) = delete;
  ~Queue()
  {
    for (Timer* timer : heap_) // the run is over: SimGrid's own timer went with its engine
      delete timer;
  }

  Timer* set(double date, std::function<void()> callback)
  {
    auto* timer = new Timer{date, next_order_++, std::move(callback)};
    heap_.push_back(timer);
    std::push_heap(heap_.begin(), heap_.end(), Later());
    if (not firing_ && (armed_ == nullptr || date < armed_date_))
      arm(date);
    return timer;
  }

  void cancel(Timer* timer)
  {
    timer->cancelled = true;
    if (firing_ || timer != heap_.front())
      return;
    // SimGrid's timer stays at a date where a timer of the queue fires: the kernel's clock stops at no other date.
    drop_cancelled();
    if (heap_.empty()) {
      armed_->remove();
      armed_ = nullptr;
    } else if (heap_.front()->date != armed_date_)
      arm(heap_.front()->date);
  }

private:
  void arm(double date)
  {
    if (armed_ != nullptr)
      armed_->remove();
    armed_date_ = date;
    armed_      = simgrid::kernel::timer::Timer::set(date, [this]() {
      armed_ = nullptr;
      fire();
    });
  }
  void fire()
  {
    firing_          = true;
    const double now = simgrid::s4u::Engine::get_clock();
    while (not heap_.empty() && heap_.front()->date <= now) {
      std::pop_heap(heap_.begin(), heap_.end(), Later());
      Timer* timer = heap_.back();
      heap_.pop_back();
      if (not timer->cancelled)
        timer->callback();
      delete timer;
    }
    firing_ = false;
    drop_cancelled();
    if (not heap_.empty())
      arm(heap_.front()->date);
  }
  void drop_cancelled()
  {
    while (not heap_.empty() && heap_.front()->cancelled) {
      std::pop_heap(heap_.begin(), heap_.end(), Later());
      delete heap_.back();
      heap_.pop_back();
    }
  }

  std::vector<Timer*> heap_;
  uint64_t next_order_                       = 0;
  simgrid::kernel::timer::Timer* armed_      = nullptr;
  double armed_date_                         = 0;
  bool firing_                               = false;
};

Queue& queue()
{
  static Queue instance;
  return instance;
}
} // namespace

Timer* set(double date, std::function<void()> callback)
{
  return queue().set(date, std::move(callback));
}

void cancel(Timer* timer)
{
  queue().cancel(timer);
}

} // namespace progsim::mpi::timers
