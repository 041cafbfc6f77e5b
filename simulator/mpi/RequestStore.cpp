#include "mpi/RequestStore.hpp"

namespace progsim::mpi {

void RequestStore::add(const RequestPtr& request, int src, int dst, int tag)
{
  store_[{src, dst, tag}].push_back(request);
}

void RequestStore::add_placeholder(int src, int dst, int tag)
{
  store_[{src, dst, tag}].push_back(nullptr);
}

RequestPtr RequestStore::pop(int src, int dst, int tag, bool& found)
{
  auto it = store_.find({src, dst, tag});
  if (it == store_.end()) // a receive from any source / with any tag, waited under the names it matched
    for (Key key : {Key{kAnySource, dst, tag}, Key{src, dst, kAnyTag}, Key{kAnySource, dst, kAnyTag}})
      if ((it = store_.find(key)) != store_.end())
        break;
  found = it != store_.end();
  if (not found)
    return nullptr;
  RequestPtr request = it->second.front();
  it->second.pop_front();
  if (it->second.empty())
    store_.erase(it);
  return request;
}

std::vector<RequestPtr> RequestStore::take_all()
{
  std::vector<RequestPtr> all;
  for (auto const& [_, requests] : store_)
    for (auto const& request : requests)
      if (request)
        all.push_back(request);
  store_.clear();
  return all;
}

} // namespace progsim::mpi
