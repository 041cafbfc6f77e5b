#include "mpi/CollectiveRequest.hpp"
#include "mpi/Endpoint.hpp"

#include <xbt/asserts.h>

#include <algorithm>

namespace progsim::mpi {

void CollectiveRequest::start()
{
  xbt_assert(state_ == State::NotStarted, "a collective request starts once");
  state_ = State::InRound;
  round_ = 0;
  post_round();
  advance();
}

void CollectiveRequest::post_round()
{
  requests_.clear();
  if (round_ >= schedule_.rounds.size()) {
    state_ = State::Complete;
    return;
  }
  for (auto const& t : schedule_.rounds[round_].transfers)
    requests_.push_back(t.is_send ? endpoint_.post_send(t.peer, t.tag, t.bytes, Context::Collective)
                                  : endpoint_.post_receive(t.peer, t.tag, t.bytes, Context::Collective));
}

void CollectiveRequest::advance()
{
  while (state_ == State::InRound &&
         std::all_of(requests_.begin(), requests_.end(), [](const RequestPtr& r) { return r->complete(); })) {
    round_++;
    post_round();
  }
}

std::vector<RequestPtr> CollectiveRequest::pending() const
{
  std::vector<RequestPtr> left;
  for (auto const& request : requests_)
    if (not request->complete())
      left.push_back(request);
  return left;
}

} // namespace progsim::mpi
