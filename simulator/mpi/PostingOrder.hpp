/* Items kept in the order they were posted, any of which may be taken: one queue of MPI matching. */
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace progsim::mpi {

/**
 * A first-in first-out list from which any item may be taken. Most takes are of the oldest item (a ring's receive
 * matches the one message it waits for): that take only moves a start index, and the storage is reused from its
 * start once the list is empty, so that a rank's queue stays in the same cache lines message after message (a
 * std::deque walks through a 512-byte block, allocated and freed as it goes, and weighs 80 bytes before its first
 * item). A take from the middle moves the younger items down, as a deque would. The storage keeps the largest size
 * the list ever had (a deque gives its blocks back as it empties): a rank that once held many unexpected messages
 * keeps room for as many.
 */
template <class T> class PostingOrder {
public:
  using const_iterator = typename std::vector<T>::const_iterator;

  bool empty() const { return head_ == items_.size(); }
  std::size_t size() const { return items_.size() - head_; }
  const T& front() const { return items_[head_]; }
  const T& operator[](std::size_t i) const { return items_[head_ + i]; }
  const_iterator begin() const { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  const_iterator end() const { return items_.end(); }

  void push_back(T item)
  {
    if (empty())
      reset();
    items_.push_back(std::move(item));
  }

  /** Removes the item at `position` (an iterator of this list) and returns it. */
  T take(const_iterator position)
  {
    auto index = static_cast<std::size_t>(position - items_.cbegin());
    T item     = std::move(items_[index]);
    if (index != head_) {
      items_.erase(position);
      return item;
    }
    head_++;
    if (empty())
      reset();
    else if (head_ >= kCompactAfter && head_ * 2 >= items_.size()) { // taken items outnumber the rest: drop them
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    return item;
  }

private:
  static constexpr std::size_t kCompactAfter = 64; // so that a long queue taken from its front moves each item once

  void reset()
  {
    items_.clear(); // keeps the storage
    head_ = 0;
  }

  std::vector<T> items_;
  std::size_t head_ = 0; // items before it have been taken
};

} // namespace progsim::mpi
