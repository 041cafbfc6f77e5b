#include "mpi/Request.hpp"

#include <xbt/asserts.h>

#include <string>

namespace progsim::mpi {

std::string_view state_name(RequestState state)
{
  switch (state) {
    case RequestState::Posted:
      return "posted";
    case RequestState::WaitingClearToSend:
      return "waiting for clear-to-send";
    case RequestState::WaitingFinish:
      return "waiting for the receiver to pull the data";
    case RequestState::Matched:
      return "matched";
    case RequestState::Transferring:
      return "transferring";
    case RequestState::Complete:
      return "complete";
  }
  return "?";
}

namespace {
bool allowed(RequestState from, RequestState to)
{
  switch (from) {
    case RequestState::Posted:
      return to != RequestState::Posted;
    case RequestState::WaitingClearToSend:
      return to == RequestState::Transferring;
    case RequestState::WaitingFinish:
    case RequestState::Matched:
    case RequestState::Transferring:
      return to == RequestState::Complete;
    case RequestState::Complete:
      return false;
  }
  return false;
}
} // namespace

void transition(Request& request, RequestState to)
{
  xbt_assert(allowed(request.state, to), "request %llu of rank %d: no transition from '%s' to '%s'",
             static_cast<unsigned long long>(request.id), request.owner, std::string(state_name(request.state)).c_str(),
             std::string(state_name(to)).c_str());
  request.state = to;
}

} // namespace progsim::mpi
