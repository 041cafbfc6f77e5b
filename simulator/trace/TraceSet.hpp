/* A whole trace in memory: for tests and tools that look at every action at once. The replay streams instead
 * (TraceSource). */
#pragma once

#include "trace/Action.hpp"
#include "trace/TraceError.hpp"

#include <istream>
#include <string>
#include <vector>

namespace progsim::trace {

struct RankTrace {
  std::string file;             // where the actions came from, for messages
  std::vector<Action> actions;
};

class TraceSet {
public:
  std::vector<RankTrace> ranks;
  CountPool pool;               // per-peer byte vectors of the v-collectives, addressed by Action::vector

  size_t rank_count() const { return ranks.size(); }
  size_t action_count() const;
  /** The byte vector (one entry per rank of the world) that an action points to. */
  const int64_t* vector_at(uint32_t offset) const { return pool.data() + offset; }
};

/** Reads a whole trace (any form TraceSource reads) into memory. */
TraceSet read_traces(const std::string& path);

/** Parses one rank's lines; exposed for tests. `world_size` sizes the v-collective vectors. */
void parse_rank_lines(std::istream& in, const std::string& file, int rank, int world_size, TraceSet& into,
                      RankTrace& out);

} // namespace progsim::trace
