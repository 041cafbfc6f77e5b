#include "mpi/RequestStore.hpp"

namespace progsim::mpi {

void RequestStore::add(const RequestPtr& request, int src, int dst, int tag)
{
  store_[{src, dst, tag}].requests.push_back(request);
}

void RequestStore::add_placeholder(int src, int dst, int tag)
{
  store_[{src, dst, tag}].requests.push_back(nullptr);
  completed_by_test_.insert({src, dst, tag});
}

RequestPtr RequestStore::pop(int src, int dst, int tag, bool& found)
{
  const Key keys[] = {Key{src, dst, tag}, // then a receive from any source / with any tag, under the names it matched
                      Key{kAnySource, dst, tag}, Key{src, dst, kAnyTag}, Key{kAnySource, dst, kAnyTag}};
  auto it = store_.end();
  for (Key const& key : keys)
    if ((it = store_.find(key)) != store_.end())
      break;
  found = it != store_.end();
  if (not found) { // a request a test completed, tested or waited for again: a placeholder
    for (Key const& key : keys)
      found = found || completed_by_test_.count(key) > 0;
    return nullptr;
  }
  Posted& posted      = it->second;
  RequestPtr request = std::move(posted.requests[posted.next++]);
  if (posted.next == posted.requests.size())
    store_.erase(it);
  return request;
}

std::vector<RequestPtr> RequestStore::take_all()
{
  std::vector<RequestPtr> all;
  for (auto const& [_, posted] : store_)
    for (size_t i = posted.next; i < posted.requests.size(); i++)
      if (posted.requests[i])
        all.push_back(posted.requests[i]);
  store_.clear();
  completed_by_test_.clear(); // a waitall ends them all: nothing is left to test or wait for again
  return all;
}

} // namespace progsim::mpi
