/* Writes every change of a rank's activity as one JSON line, {"t", "rank", "state", "action", "line"} (a rank's
 * first line adds "node"), and every protocol step as {"t", "rank", "step", "by", "end", "copied", "agent", "node",
 * "cpu"}, with "msg", "peer", "bytes" for a step of a message ("msg": the sender's request id, the same on both
 * sides) and "from_t", "from_agent", "arrived" for a step called for by an arrival (when and by which actor the
 * message or the transfer was started, and when it arrived: the step waited for its runner from then on). Lines are
 * in time order: a step's line takes its place when the step starts, and is written once it ends (the lines after
 * it wait until then). */
#pragma once

#include "mpi/World.hpp"

#include <deque>
#include <fstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace progsim::output {

class TimelineWriter {
public:
  TimelineWriter(const std::string& path, mpi::World& world);
  /** Writes what waits (a step that never ended has no "end"), closes the file and moves it into place. */
  void finish();
  /** Where the timeline for `path` is written until finish(): a run that ends without one removes it. */
  static std::string partial_path(const std::string& path) { return path + ".partial"; }

private:
  void write(const mpi::RankEvent& event);
  void write(const mpi::StepEvent& event);
  void write(const mpi::StepEnd& end);
  /** Writes the lines at the front of the queue that are complete. */
  void flush();

  /** A line in its place: a step's is complete once the step ends ("end" and "copied" go between head and tail). */
  struct Line {
    std::string head;
    std::string tail;
    bool done;
  };

  std::string path_;
  std::ofstream file_;
  const mpi::World& world_;
  std::vector<bool> seen_;                      // ranks whose first line is written
  std::deque<Line> queue_;                      // lines behind a step that has not ended yet
  uint64_t written_ = 0;                        // lines written: the index of the queue's front
  std::unordered_map<uint64_t, uint64_t> open_; // steps not ended: their line's index, by serial
};

} // namespace progsim::output
