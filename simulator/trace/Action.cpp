#include "trace/Action.hpp"

#include <array>
#include <utility>

namespace progsim::trace {

namespace {
constexpr std::array<std::pair<std::string_view, ActionType>, 31> kNames = {{
    {"init", ActionType::Init},           {"finalize", ActionType::Finalize},
    {"comm_size", ActionType::CommSize},  {"comm_split", ActionType::CommSplit},
    {"comm_dup", ActionType::CommDup},    {"send", ActionType::Send},
    {"isend", ActionType::Isend},         {"recv", ActionType::Recv},
    {"irecv", ActionType::Irecv},         {"test", ActionType::Test},
    {"wait", ActionType::Wait},           {"waitall", ActionType::WaitAll},
    {"sendRecv", ActionType::SendRecv},   {"barrier", ActionType::Barrier},
    {"bcast", ActionType::Bcast},         {"reduce", ActionType::Reduce},
    {"allreduce", ActionType::AllReduce}, {"alltoall", ActionType::AllToAll},
    {"alltoallv", ActionType::AllToAllV}, {"gather", ActionType::Gather},
    {"gatherv", ActionType::GatherV},     {"scatter", ActionType::Scatter},
    {"scatterv", ActionType::ScatterV},   {"allgather", ActionType::AllGather},
    {"allgatherv", ActionType::AllGatherV}, {"reducescatter", ActionType::ReduceScatter},
    {"scan", ActionType::Scan},           {"exscan", ActionType::ExScan},
    {"compute", ActionType::Compute},     {"sleep", ActionType::Sleep},
    {"location", ActionType::Location},
}};
} // namespace

std::string_view action_name(ActionType type)
{
  for (auto const& [name, t] : kNames)
    if (t == type)
      return name;
  return "?";
}

bool action_from_name(std::string_view name, ActionType& type)
{
  for (auto const& [n, t] : kNames)
    if (n == name) {
      type = t;
      return true;
    }
  return false;
}

} // namespace progsim::trace
