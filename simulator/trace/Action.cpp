#include "trace/Action.hpp"

#include <array>
#include <utility>
#include <vector>

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
  // Looked up once or twice per trace line, in both passes: the names of each length, then a few comparisons.
  static const auto by_length = []() {
    std::array<std::vector<std::pair<std::string_view, ActionType>>, 16> buckets;
    for (auto const& entry : kNames)
      buckets[entry.first.size()].push_back(entry);
    return buckets;
  }();
  if (name.size() >= by_length.size())
    return false;
  for (auto const& [n, t] : by_length[name.size()])
    if (n == name) {
      type = t;
      return true;
    }
  return false;
}

bool is_collective(ActionType type)
{
  return type >= ActionType::Barrier && type <= ActionType::ExScan;
}

bool nonblocking_collective_from_name(std::string_view name, ActionType& type)
{
  return name.size() > 1 && name.front() == 'i' && action_from_name(name.substr(1), type) && is_collective(type);
}

int collective_tag(ActionType type)
{
  // SMPI's COLL_TAG_* (src/smpi/include/private.hpp; scans use -888).
  switch (type) {
    case ActionType::Barrier:
      return -778;
    case ActionType::Bcast:
      return -3334;
    case ActionType::Reduce:
      return -112;
    case ActionType::AllReduce:
      return -4445;
    case ActionType::AllToAll:
      return -1112;
    case ActionType::AllToAllV:
      return -1000;
    case ActionType::Gather:
      return -445;
    case ActionType::GatherV:
      return -2223;
    case ActionType::Scatter:
      return -223;
    case ActionType::ScatterV:
      return -334;
    case ActionType::AllGather:
      return -556;
    case ActionType::AllGatherV:
      return -667;
    case ActionType::ReduceScatter:
      return -889;
    case ActionType::Scan:
    case ActionType::ExScan:
      return -888;
    default:
      return 0;
  }
}

int nonblocking_request_tag(ActionType type)
{
  int tag = collective_tag(type);
  return tag == 0 ? 0 : tag - 1; // one below: SMPI's tag for a collective that the application called
}

bool is_nonblocking_request_tag(int tag)
{
  if (tag >= 0)
    return false;
  for (auto t = static_cast<int>(ActionType::Barrier); t <= static_cast<int>(ActionType::ExScan); t++)
    if (nonblocking_request_tag(static_cast<ActionType>(t)) == tag)
      return true;
  return false;
}

} // namespace progsim::trace
