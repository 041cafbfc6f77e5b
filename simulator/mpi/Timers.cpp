#include "mpi/Timers.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <deque>
#include <limits>
#include <vector>

namespace progsim::mpi::timers {

struct Timer {
  std::function<void()> callback;
  uint32_t slot; // its index among all timers, where the queue keeps its position
};

namespace {
/** A timer in the heap, with its keys at hand: sifting reads the heap's array only, not timers all over. */
struct Entry {
  double date;
  uint64_t order;
  uint32_t slot;
};

bool before(const Entry& a, const Entry& b)
{
  return a.date != b.date ? a.date < b.date : a.order < b.order;
}

/**
 * The queue: a four-ary heap in one array (half the levels of a binary heap, a node's children in one or two cache
 * lines) under one SimGrid timer set at its first date. Each timer's position in the heap is kept in a dense array,
 * so that a timer is cancelled or moved in place: no cancelled timer stays behind, to be freed later, cold.
 */
class Queue {
public:
  Queue() = default;
  Queue(const Queue&)            = delete;
  Queue& operator=(const Queue&) = delete;

  Timer* set(double date, std::function<void()> callback)
  {
    Timer* timer    = allocate();
    timer->callback = std::move(callback);
    heap_.push_back(Entry{date, next_order_++, timer->slot});
    sift_up(heap_.size() - 1);
    rearm();
    return timer;
  }

  void move(Timer* timer, double date)
  {
    // As a cancellation and a new timer: at its new date, after the timers set before.
    const size_t at = position_[timer->slot];
    heap_[at].date  = date;
    heap_[at].order = next_order_++;
    restore(at);
    rearm();
  }

  void cancel(Timer* timer)
  {
    erase(position_[timer->slot]);
    release(timer);
    rearm();
  }

private:
  static constexpr uint32_t kNotQueued = std::numeric_limits<uint32_t>::max();

  Timer* allocate()
  {
    if (free_.empty()) {
      auto slot = static_cast<uint32_t>(timers_.size());
      timers_.push_back(Timer{{}, slot}); // a deque: the timers handed out stay where they are
      position_.push_back(kNotQueued);
      return &timers_.back();
    }
    Timer* timer = free_.back();
    free_.pop_back();
    return timer;
  }
  void release(Timer* timer)
  {
    timer->callback = nullptr;
    free_.push_back(timer);
  }

  void place(size_t at, const Entry& entry)
  {
    heap_[at]             = entry;
    position_[entry.slot] = static_cast<uint32_t>(at);
  }
  void sift_up(size_t at)
  {
    const Entry entry = heap_[at];
    while (at > 0) {
      size_t parent = (at - 1) / 4;
      if (not before(entry, heap_[parent]))
        break;
      place(at, heap_[parent]);
      at = parent;
    }
    place(at, entry);
  }
  void sift_down(size_t at)
  {
    const Entry entry = heap_[at];
    const size_t size = heap_.size();
    while (true) {
      size_t first = 4 * at + 1;
      if (first >= size)
        break;
      size_t least = first;
      for (size_t child = first + 1; child < std::min(first + 4, size); child++)
        if (before(heap_[child], heap_[least]))
          least = child;
      if (not before(heap_[least], entry))
        break;
      place(at, heap_[least]);
      at = least;
    }
    place(at, entry);
  }
  /** The entry at `at` changed: it goes up or down to its place. */
  void restore(size_t at)
  {
    if (at > 0 && before(heap_[at], heap_[(at - 1) / 4]))
      sift_up(at);
    else
      sift_down(at);
  }
  void erase(size_t at)
  {
    position_[heap_[at].slot] = kNotQueued;
    const Entry last          = heap_.back();
    heap_.pop_back();
    if (at < heap_.size()) {
      place(at, last);
      restore(at);
    }
  }

  /** SimGrid's timer goes to the first date, where a timer of the queue fires: the kernel's clock stops at no other
   * date. */
  void rearm()
  {
    if (firing_)
      return;
    if (heap_.empty()) {
      if (armed_ != nullptr)
        armed_->remove();
      armed_ = nullptr;
      return;
    }
    if (armed_ != nullptr && heap_.front().date == armed_date_)
      return;
    if (armed_ != nullptr)
      armed_->remove();
    armed_date_ = heap_.front().date;
    armed_      = simgrid::kernel::timer::Timer::set(armed_date_, [this]() {
      armed_ = nullptr;
      fire();
    });
  }
  void fire()
  {
    firing_          = true;
    const double now = simgrid::s4u::Engine::get_clock();
    while (not heap_.empty() && heap_.front().date <= now) {
      Timer* timer = &timers_[heap_.front().slot];
      erase(0);
      timer->callback(); // it may set timers: the deque keeps this one where it is
      release(timer);
    }
    firing_ = false;
    rearm();
  }

  std::vector<Entry> heap_;
  std::vector<uint32_t> position_; // by slot
  std::deque<Timer> timers_;       // by slot
  std::vector<Timer*> free_;
  uint64_t next_order_                  = 0;
  simgrid::kernel::timer::Timer* armed_ = nullptr;
  double armed_date_                    = 0;
  bool firing_                          = false;
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

void move(Timer* timer, double date)
{
  queue().move(timer, date);
}

void cancel(Timer* timer)
{
  queue().cancel(timer);
}

} // namespace progsim::mpi::timers
