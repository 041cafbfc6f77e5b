/* The requests of non-blocking trace actions, found again by the (src, dst, tag) that wait and test name. */
#pragma once

#include "mpi/Request.hpp"

#include <boost/container/small_vector.hpp>

#include <map>
#include <set>
#include <tuple>
#include <vector>

namespace progsim::mpi {

/**
 * As in SMPI's replay: requests are kept per (src, dst, tag) key in posting order; `wait` and `test` take the
 * oldest. A test that succeeds leaves a placeholder so that the wait that follows it in the trace costs nothing.
 * The replay may complete a request sooner than the traced run did: then the trace tests it again, or waits for it
 * after such a test took the placeholder. Like SMPI (smpi_replay.cpp, TestAction and WaitAction), those calls find
 * a placeholder under any key a test once completed a request of; a key never posted is still an error.
 * Unlike SMPI, a receive posted from any source is found by the wait that names the actual source.
 */
class RequestStore {
public:
  using Key = std::tuple<int, int, int>; // world ranks src, dst, tag

  void add(const RequestPtr& request, int src, int dst, int tag);
  void add_placeholder(int src, int dst, int tag);
  /** The oldest request under this key (null for a placeholder); `found` tells if there was any entry. */
  RequestPtr pop(int src, int dst, int tag, bool& found);
  /** Every stored request, in key order then posting order, and forget them all, placeholders too (waitall). */
  std::vector<RequestPtr> take_all();
  bool empty() const { return store_.empty(); }

private:
  /** A key's requests in posting order, from the oldest not taken yet. Most keys hold one or two at a time: they
   * stay inline (a std::deque allocated half a kilobyte per key, made and freed at every isend or irecv). */
  struct Posted {
    boost::container::small_vector<RequestPtr, 2> requests;
    size_t next = 0;
  };
  std::map<Key, Posted> store_;
  std::set<Key> completed_by_test_; // keys a test completed a request of
};

} // namespace progsim::mpi
