#include "mpi/Timers.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <boost/heap/d_ary_heap.hpp>

namespace progsim::mpi::timers {

struct Timer {
  std::function<void()> callback;
  bool cancelled = false;
};

namespace {
/** A timer in the heap, with its keys at hand: sifting compares keys in the array only, not in timers all over. */
struct Entry {
  double date;
  uint64_t order;
  Timer* timer;
};
struct Later {
  bool operator()(const Entry& a, const Entry& b) const
  {
    return a.date != b.date ? a.date > b.date : a.order > b.order;
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
    for (Entry const& entry : heap_) // the run is over: SimGrid's own timer went with its engine
      delete entry.timer;
  }

  Timer* set(double date, std::function<void()> callback)
  {
    auto* timer = new Timer{std::move(callback)};
    heap_.push(Entry{date, next_order_++, timer});
    if (not firing_ && (armed_ == nullptr || date < armed_date_))
      arm(date);
    return timer;
  }

  void cancel(Timer* timer)
  {
    timer->cancelled = true;
    if (firing_ || timer != heap_.top().timer)
      return;
    // SimGrid's timer stays at a date where a timer of the queue fires: the kernel's clock stops at no other date.
    drop_cancelled();
    if (heap_.empty()) {
      armed_->remove();
      armed_ = nullptr;
    } else if (heap_.top().date != armed_date_)
      arm(heap_.top().date);
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
    while (not heap_.empty() && heap_.top().date <= now) {
      Timer* timer = heap_.top().timer;
      heap_.pop();
      if (not timer->cancelled)
        timer->callback();
      delete timer;
    }
    firing_ = false;
    drop_cancelled();
    if (not heap_.empty())
      arm(heap_.top().date);
  }
  void drop_cancelled()
  {
    while (not heap_.empty() && heap_.top().timer->cancelled) {
      delete heap_.top().timer;
      heap_.pop();
    }
  }

  // Four children a node: half the levels of a binary heap, and a node's children in one or two cache lines.
  boost::heap::d_ary_heap<Entry, boost::heap::arity<4>, boost::heap::compare<Later>> heap_;
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
