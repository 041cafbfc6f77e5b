/* The parsed traces of every rank, read before the simulation starts. */
#pragma once

#include "trace/Action.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace progsim::trace {

/** A malformed or missing trace. The message names the file and line. */
class TraceError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct RankTrace {
  std::string file;             // where the actions came from, for messages
  std::vector<Action> actions;
};

class TraceSet {
public:
  std::vector<RankTrace> ranks;
  std::vector<int64_t> pool;    // per-peer byte vectors of the v-collectives, addressed by Action::vector

  size_t rank_count() const { return ranks.size(); }
  size_t action_count() const;
  /** The byte vector (one entry per rank of the world) that an action points to. */
  const int64_t* vector_at(uint32_t offset) const { return pool.data() + offset; }
};

/**
 * Reads a trace in SMPI's time-independent format, as SimGrid 3.32's replay reads it:
 * either one file holding the lines of every rank (each line starts with its rank),
 * or a list file naming one trace file per rank, rank 0 first.
 * A list entry is opened relative to the current folder (as SMPI does) and, failing that, relative to the folder
 * of the list file, then to each folder above it.
 */
TraceSet read_traces(const std::string& path);

/**
 * Parses one rank's lines; exposed for tests. `world_size` sizes the v-collective vectors; `line_numbers`, when
 * given, are the line numbers to report for each line read (those of a shared file the lines came from).
 */
void parse_rank_lines(std::istream& in, const std::string& file, int rank, int world_size, TraceSet& into,
                      RankTrace& out, const std::vector<uint32_t>* line_numbers = nullptr);

} // namespace progsim::trace
