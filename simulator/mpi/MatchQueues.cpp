#include "mpi/MatchQueues.hpp"

#include <algorithm>

namespace progsim::mpi {

bool matches(const Request& receive, const Envelope& envelope)
{
  if (receive.context != envelope.context)
    return false;
  if (receive.peer != kAnySource && receive.peer != envelope.source)
    return false;
  if (receive.tag == kAnyTag)
    return envelope.tag >= 0 || envelope.context == Context::Collective;
  return receive.tag == envelope.tag;
}

RequestPtr MatchQueues::match_arrival(const Envelope& envelope)
{
  auto it = std::find_if(posted_.begin(), posted_.end(),
                         [&envelope](const RequestPtr& receive) { return matches(*receive, envelope); });
  if (it == posted_.end()) {
    unexpected_.push_back(envelope);
    return nullptr;
  }
  return posted_.take(it);
}

std::optional<Envelope> MatchQueues::match_posted(const RequestPtr& receive)
{
  auto it = std::find_if(unexpected_.begin(), unexpected_.end(),
                         [&receive](const Envelope& envelope) { return matches(*receive, envelope); });
  if (it == unexpected_.end()) {
    posted_.push_back(receive);
    return std::nullopt;
  }
  return unexpected_.take(it);
}

} // namespace progsim::mpi
