/* A trace as the replay reads it: its files found, checked whole (InputCheck does it beside the run), streamed rank by
 * rank. */
#pragma once

#include "trace/Action.hpp"
#include "trace/TraceError.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace progsim::trace {

/** The actions of one rank, parsed as the replay consumes them. */
class ActionStream {
public:
  virtual ~ActionStream() = default;
  /** The next action, or null once the rank's trace ends. The action stays valid until the next call. */
  virtual const Action* next() = 0;
  /** The byte vectors that the last action returned points to (Action::vector, vector2). */
  virtual const CountPool& counts() const = 0;
};

/**
 * A trace in SMPI's time-independent format, as SimGrid 3.32's replay reads it: either one file holding the lines
 * of every rank (each line starts with its rank), or a list file naming one trace file per rank, rank 0 first
 * (a list of one entry names a file shared by every rank). Trace files may be gzip-compressed.
 *
 * Opening a source finds its files (and, for a shared file, the world: the highest rank named). check() reads every
 * line once, in constant memory, and reports the first bad one in file order (file:line, what was expected). The
 * replay streams each rank's actions, a bounded chunk at a time.
 */
class TraceSource {
public:
  explicit TraceSource(const std::string& path);
  TraceSource(TraceSource&&) noexcept            = default;
  TraceSource& operator=(TraceSource&&) noexcept = default;
  ~TraceSource();

  const std::string& path() const { return path_; }
  int rank_count() const { return world_; }
  /** The file `rank`'s lines come from (the same file for every rank of a shared trace). */
  const std::string& file(int rank) const { return shared_ ? files_.front() : files_[rank]; }
  bool shared() const { return shared_; }
  /** Parses every line of every file: the number of actions (location lines excluded), or a TraceError naming the
   * first bad line, rank 0's file first. Safe to call from another thread while streams() are read. */
  uint64_t check() const;
  /**
   * The actions of each rank from its first one, one stream per rank. `chunk`: the actions a per-rank file's stream
   * parses at a time (0: sized so that every rank's chunk together stays near 8 MiB).
   */
  std::vector<std::unique_ptr<ActionStream>> streams(size_t chunk = 0) const;

private:
  uint64_t check_rank_files() const;
  uint64_t check_shared_file() const;

  std::string path_;
  std::vector<std::string> files_; // one per rank, or the shared file
  bool shared_      = false;
  int world_   = 0;
};

} // namespace progsim::trace
