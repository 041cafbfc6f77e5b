#include "trace/TraceSet.hpp"
#include "trace/ActionParser.hpp"
#include "trace/TraceSource.hpp"

namespace progsim::trace {

size_t TraceSet::action_count() const
{
  size_t total = 0;
  for (auto const& rank : ranks)
    total += rank.actions.size();
  return total;
}

void parse_rank_lines(std::istream& in, const std::string& file, int rank, int world_size, TraceSet& into,
                      RankTrace& out)
{
  out.file              = file;
  int default_type_size = 1; // MPI_BYTE until an "init" says otherwise
  std::string line;
  uint32_t number = 0;
  Action action;
  while (std::getline(in, line)) {
    number++;
    if (parse_line(line, file, number, rank, world_size, default_type_size, into.pool, action))
      out.actions.push_back(action);
  }
}

namespace {
/** Moves a vector of `world` counts from a stream's pool to the set's; returns its new offset. */
uint32_t keep_counts(const CountPool& from, uint32_t offset, int world, CountPool& into)
{
  auto kept = static_cast<uint32_t>(into.size());
  into.insert(into.end(), from.begin() + offset, from.begin() + offset + world);
  return kept;
}
} // namespace

TraceSet read_traces(const std::string& path)
{
  TraceSource source(path);
  TraceSet set;
  const int world = source.rank_count();
  set.ranks.resize(static_cast<size_t>(world));
  auto streams = source.streams();
  for (int rank = 0; rank < world; rank++) {
    RankTrace& trace = set.ranks[rank];
    trace.file       = source.file(rank);
    while (const Action* next = streams[rank]->next()) {
      Action action = *next;
      switch (action.type) { // the actions with per-peer vectors (ActionParser)
        case ActionType::AllToAllV:
          action.vector2 = keep_counts(streams[rank]->counts(), next->vector2, world, set.pool);
          [[fallthrough]];
        case ActionType::GatherV:
        case ActionType::ScatterV:
        case ActionType::AllGatherV:
        case ActionType::ReduceScatter:
          action.vector = keep_counts(streams[rank]->counts(), next->vector, world, set.pool);
          break;
        default:
          break;
      }
      trace.actions.push_back(action);
    }
  }
  return set;
}

} // namespace progsim::trace
