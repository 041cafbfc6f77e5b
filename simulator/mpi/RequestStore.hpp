/* The requests of non-blocking trace actions, found again by the (src, dst, tag) that wait and test name. */
#pragma once

#include "mpi/Request.hpp"

#include <deque>
#include <map>
#include <tuple>
#include <vector>

namespace progsim::mpi {

/**
 * As in SMPI's replay: requests are kept per (src, dst, tag) key in posting order; `wait` and `test` take the
 * oldest. A test that succeeds leaves a placeholder so that the wait that follows it in the trace costs nothing.
 * Unlike SMPI, a receive posted from any source is found by the wait that names the actual source.
 */
class RequestStore {
public:
  using Key = std::tuple<int, int, int>; // world ranks src, dst, tag

  void add(const RequestPtr& request, int src, int dst, int tag);
  void add_placeholder(int src, int dst, int tag);
  /** The oldest request under this key (null for a placeholder); `found` tells if there was any entry. */
  RequestPtr pop(int src, int dst, int tag, bool& found);
  /** Every stored request, in key order then posting order, and forget them all (waitall). */
  std::vector<RequestPtr> take_all();
  bool empty() const { return store_.empty(); }

private:
  std::map<Key, std::deque<RequestPtr>> store_;
};

} // namespace progsim::mpi
