#include "collectives/ScheduleRecorder.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace progsim::models::collectives {

mpi::RequestPtr ScheduleRecorder::post(bool is_send, int peer, int tag, int64_t bytes)
{
  if (waiting_) // a post after waits: the round is over
    close_round();
  auto request = std::make_shared<mpi::Request>();
  request->id  = next_id_++;
  in_flight_.emplace(request->id, mpi::TransferRef{schedule_.rounds.size(), open_.transfers.size()});
  open_.transfers.push_back({is_send, peer, tag, bytes});
  return request;
}

mpi::RequestPtr ScheduleRecorder::isend(int destination, int tag, int64_t bytes)
{
  return post(true, destination, tag, bytes);
}

mpi::RequestPtr ScheduleRecorder::irecv(int source, int tag, int64_t bytes)
{
  return post(false, source, tag, bytes);
}

void ScheduleRecorder::wait(const mpi::RequestPtr& request)
{
  auto found = in_flight_.find(request->id);
  if (found == in_flight_.end()) // waited already: nothing to wait for
    return;
  waiting_ = true;
  open_.waits.push_back(found->second);
  in_flight_.erase(found);
}

void ScheduleRecorder::close_round()
{
  // A round that waits for exactly its own transfers says so by waiting for nothing in particular.
  const size_t index = schedule_.rounds.size();
  bool own_only      = open_.waits.size() == open_.transfers.size() &&
                  std::all_of(open_.waits.begin(), open_.waits.end(),
                              [index](const mpi::TransferRef& ref) { return ref.round == index; });
  if (own_only)
    open_.waits.clear();
  schedule_.rounds.push_back(std::move(open_));
  open_    = mpi::Round();
  waiting_ = false;
}

mpi::Schedule ScheduleRecorder::take()
{
  if (not in_flight_.empty())
    throw std::logic_error("a collective algorithm left requests it never waited for");
  if (waiting_ || not open_.transfers.empty())
    close_round();
  return std::move(schedule_);
}

} // namespace progsim::models::collectives
