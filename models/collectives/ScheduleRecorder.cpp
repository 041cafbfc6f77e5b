#include "collectives/ScheduleRecorder.hpp"

#include <memory>
#include <stdexcept>

namespace progsim::models::collectives {

mpi::RequestPtr ScheduleRecorder::post(bool is_send, int peer, int tag, int64_t bytes)
{
  if (not unwaited_.empty())
    throw std::logic_error("a collective algorithm posted before waiting for everything it posted: its rounds are "
                           "not expressible as a schedule");
  auto request = std::make_shared<mpi::Request>();
  request->id  = next_id_++;
  open_.transfers.push_back({is_send, peer, tag, bytes});
  open_ids_.insert(request->id);
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
  if (open_ids_.count(request->id) != 0) { // the first wait after posts closes the round
    schedule_.rounds.push_back(std::move(open_));
    open_ = mpi::Round();
    unwaited_.swap(open_ids_);
    open_ids_.clear();
  }
  unwaited_.erase(request->id);
}

mpi::Schedule ScheduleRecorder::take()
{
  if (not open_ids_.empty() || not unwaited_.empty())
    throw std::logic_error("a collective algorithm left requests it never waited for");
  return std::move(schedule_);
}

} // namespace progsim::models::collectives
