#include "mpi/CollectiveRequest.hpp"
#include "mpi/Endpoint.hpp"

#include <xbt/asserts.h>
#include <xbt/log.h>

#include <algorithm>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(progsim_collective, progsim, "Collective operations, round by round");

namespace progsim::mpi {

void CollectiveRequest::start()
{
  xbt_assert(state_ == State::NotStarted, "a collective request starts once");
  state_ = State::InRound;
  round_ = 0;
  carries_over_ = std::any_of(schedule_.rounds.begin(), schedule_.rounds.end(),
                              [](const Round& round) { return not round.waits.empty(); });
  post_round();
  if (not nonblocking()) // the blocked rank goes on at once; a non-blocking call posts its first round only
    advance();
}

void CollectiveRequest::post_round()
{
  const size_t rounds = schedule_.in_network ? 1 : schedule_.rounds.size();
  if (round_ >= rounds) { // the last round's requests stay for the tests that look at them
    state_ = State::Complete;
    if (RequestPtr handle = handle_.lock())
      endpoint_.complete(handle);
    return;
  }
  requests_.clear();
  posting_ = true;
  CollectiveRequest* owner = handle_.expired() ? nullptr : this; // a non-blocking one: its rounds know it
  if (schedule_.in_network) {
    requests_.push_back(endpoint_.join_network_collective(*schedule_.in_network, owner));
    posting_ = false;
    return;
  }
  XBT_VERB("rank %d: collective round %zu of %zu (%zu transfers)", endpoint_.rank(), round_ + 1,
            schedule_.rounds.size(), schedule_.rounds[round_].transfers.size());
  const Round& round = schedule_.rounds[round_];
  if (not carries_over_) // only the rounds of a schedule that waits for earlier transfers need them
    posted_.clear();
  std::vector<RequestPtr>& posted = posted_.emplace_back();
  for (auto const& t : round.transfers)
    posted.push_back(t.is_send ? endpoint_.post_send(t.peer, t.tag, t.bytes, Context::Collective, false, owner)
                               : endpoint_.post_receive(t.peer, t.tag, t.bytes, Context::Collective, owner));
  if (round.waits.empty())
    requests_ = posted;
  for (auto const& ref : round.waits) {
    xbt_assert(carries_over_ && ref.round <= round_ && ref.index < posted_[ref.round].size(),
               "a collective round waits for a transfer never posted");
    requests_.push_back(posted_[ref.round][ref.index]);
  }
  posting_ = false;
}

void CollectiveRequest::advance()
{
  if (posting_) // a request of the round being posted completed at once: the poster advances afterwards
    return;
  while (state_ == State::InRound &&
         std::all_of(requests_.begin(), requests_.end(), [](const RequestPtr& r) { return r->complete(); })) {
    round_++;
    post_round();
  }
}

bool CollectiveRequest::round_done() const
{
  return state_ == State::InRound &&
         std::all_of(requests_.begin(), requests_.end(), [](const RequestPtr& r) { return r->complete(); });
}

std::vector<RequestPtr> CollectiveRequest::pending() const
{
  std::vector<RequestPtr> left;
  for (auto const& request : requests_)
    if (not request->complete())
      left.push_back(request);
  return left;
}

bool CollectiveRequest::found_complete(const RequestPtr& request) const
{
  return std::find(found_.begin(), found_.end(), request->id) != found_.end();
}

} // namespace progsim::mpi
