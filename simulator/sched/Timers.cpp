#include "sched/Timers.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>

namespace progsim::sched::timers {

struct Timer {
  std::function<void()> callback;
  uint32_t slot; // its index among all timers, where the queue keeps its position
};

namespace {
/** A timer's place at its date: stale once the timer fired, was cancelled or moved (its slot's stamp moved on). */
struct Entry {
  uint32_t slot;
  uint32_t stamp;
};

/** A date's hash: its bits, mixed (the standard library's hash of a double runs a byte-wise hash of its 8 bytes). */
struct DateHash {
  size_t operator()(double date) const noexcept
  {
    if (date == 0)
      return 0; // 0.0 and -0.0 are one date
    uint64_t bits;
    std::memcpy(&bits, &date, sizeof bits);
    bits ^= bits >> 33; // MurmurHash3's 64-bit finaliser
    bits *= 0xff51afd7ed558ccdULL;
    bits ^= bits >> 33;
    return static_cast<size_t>(bits);
  }
};

/** The timers of one date, in the order they were set there. */
struct Date {
  std::vector<Entry> entries;
  size_t live = 0; // entries not stale
};

using DateMap = std::unordered_map<double, Date, DateHash>;

/**
 * The queue: the timers of each date in a list, in the order they were set (a replay sets many at the same date:
 * every rank of a ring does the same thing at the same dates), and the dates in a heap, under one SimGrid timer set
 * at the first. Firing a date reads its list in order; setting a timer appends to its date's list. A timer cancelled
 * or moved leaves a stale entry in its former date's list, recognised by its stamp; a date whose timers all left is
 * dropped, so that SimGrid's clock never stops there.
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
    enqueue(timer->slot, date);
    rearm();
    return timer;
  }

  void move(Timer* timer, double date)
  {
    // As a cancellation and a new timer: at its new date, after the timers set before.
    dequeue(timer->slot);
    enqueue(timer->slot, date);
    rearm();
  }

  void cancel(Timer* timer)
  {
    dequeue(timer->slot);
    release(timer);
    rearm();
  }

private:
  Timer* allocate()
  {
    if (free_.empty()) {
      auto slot = static_cast<uint32_t>(timers_.size());
      timers_.push_back(Timer{{}, slot}); // a deque: the timers handed out stay where they are
      stamps_.push_back(0);
      dates_.push_back(0);
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

  void enqueue(uint32_t slot, double date)
  {
    auto [it, added] = by_date_.try_emplace(date);
    if (added) {
      if (not spare_lists_.empty()) { // a list that served an earlier date, with its capacity
        it->second.entries = std::move(spare_lists_.back());
        spare_lists_.pop_back();
      }
      dates_heap_.push_back(date);
      std::push_heap(dates_heap_.begin(), dates_heap_.end(), std::greater<>());
    }
    it->second.entries.push_back(Entry{slot, ++stamps_[slot]});
    it->second.live++;
    dates_[slot] = date;
  }
  /** The timer in `slot` leaves its date: its entry goes stale, and the date goes once it has no timer left. */
  void dequeue(uint32_t slot)
  {
    ++stamps_[slot];
    auto it = by_date_.find(dates_[slot]);
    if (--it->second.live == 0 && dates_[slot] != firing_date_)
      drop(it);
  }
  void drop(DateMap::iterator it)
  {
    if (not dates_heap_.empty() && it->first == dates_heap_.front())
      front_may_be_stale_ = true;
    it->second.entries.clear();
    spare_lists_.push_back(std::move(it->second.entries));
    by_date_.erase(it); // its date stays in the heap until it comes first, then goes
  }

  /** SimGrid's timer goes to the first date, where a timer of the queue fires: the kernel's clock stops at no other
   * date. */
  void rearm()
  {
    if (firing_)
      return;
    while (front_may_be_stale_ && not dates_heap_.empty() && by_date_.count(dates_heap_.front()) == 0) {
      std::pop_heap(dates_heap_.begin(), dates_heap_.end(), std::greater<>());
      dates_heap_.pop_back();
    }
    front_may_be_stale_ = false;
    if (dates_heap_.empty()) {
      if (armed_ != nullptr)
        armed_->remove();
      armed_ = nullptr;
      return;
    }
    if (armed_ != nullptr && dates_heap_.front() == armed_date_)
      return;
    if (armed_ != nullptr)
      armed_->remove();
    armed_date_ = dates_heap_.front();
    armed_      = simgrid::kernel::timer::Timer::set(armed_date_, [this]() {
      armed_ = nullptr;
      fire();
    });
  }
  void fire()
  {
    firing_          = true;
    const double now = simgrid::s4u::Engine::get_clock();
    while (not dates_heap_.empty() && dates_heap_.front() <= now) {
      const double date = dates_heap_.front();
      std::pop_heap(dates_heap_.begin(), dates_heap_.end(), std::greater<>());
      dates_heap_.pop_back();
      auto it = by_date_.find(date);
      if (it == by_date_.end())
        continue; // every timer of that date left it
      firing_date_ = date;
      Date& timers = it->second; // stays in place: the map's elements do not move
      for (size_t i = 0; i < timers.entries.size(); i++) { // the callbacks may append to it: read by index
        const Entry entry = timers.entries[i];
        if (entry.stamp != stamps_[entry.slot])
          continue;
        ++stamps_[entry.slot];
        timers.live--;
        Timer* timer = &timers_[entry.slot];
        timer->callback(); // it may set timers: the deque keeps this one where it is
        release(timer);
      }
      firing_date_ = -1;
      drop(by_date_.find(date)); // found again: a date the callbacks added may have rehashed the map
    }
    firing_             = false;
    front_may_be_stale_ = true; // the first date left may be one dropped before it came first
    rearm();
  }

  DateMap by_date_;
  std::vector<double> dates_heap_;              // a min-heap of the dates in by_date_ (and of some dropped since)
  std::vector<std::vector<Entry>> spare_lists_; // emptied lists, reused for new dates
  std::vector<uint32_t> stamps_;                // by slot: its entry's stamp while queued
  std::vector<double> dates_;                   // by slot: its date while queued
  std::deque<Timer> timers_;                    // by slot
  std::vector<Timer*> free_;
  simgrid::kernel::timer::Timer* armed_ = nullptr;
  double armed_date_                    = 0;
  double firing_date_                   = -1;
  bool firing_                          = false;
  bool front_may_be_stale_              = false; // the heap's first date may have been dropped
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

} // namespace progsim::sched::timers
