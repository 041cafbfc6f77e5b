/* Schedules as text for the collective tests: "S0:8 S1:8 | R0:8" (sends and receives by peer, with their bytes),
 * rounds separated by bars; describe_peers() leaves the bytes out. */
#pragma once

#include "mpi/Schedule.hpp"

#include <string>

namespace progsim::testing {

inline std::string describe_schedule(const mpi::Schedule& schedule, bool with_bytes)
{
  std::string out;
  for (auto const& round : schedule.rounds) {
    if (not out.empty())
      out += " | ";
    std::string items;
    for (auto const& t : round.transfers)
      items += (items.empty() ? "" : " ") + std::string(t.is_send ? "S" : "R") + std::to_string(t.peer) +
               (with_bytes ? ":" + std::to_string(t.bytes) : "");
    out += items;
  }
  return out;
}

/** With bytes: "S0:8 | R1:8". */
inline std::string describe(const mpi::Schedule& schedule)
{
  return describe_schedule(schedule, true);
}

/** Peers only: "S0 | R1". */
inline std::string describe_peers(const mpi::Schedule& schedule)
{
  return describe_schedule(schedule, false);
}

} // namespace progsim::testing
