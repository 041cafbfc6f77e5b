/* Writes every change of a rank's activity as one JSON line, {"t", "rank", "state", "action", "line"} (its first
 * line adds "node"), and every protocol step, once it is done, as {"t", "rank", "step", "by", "end", "agent", "node",
 * "cpu", "copied"}, plus "msg", "peer", "bytes" for a step of a message ("msg": the sender's request id, the same on
 * both sides) and "from_t", "from_agent" for a step called for by an arrival (when and by which actor the message
 * or transfer was started). Lines are in the order they are written: a step's line comes when the step ends. */
#pragma once

#include "mpi/World.hpp"

#include <fstream>
#include <string>
#include <vector>

namespace progsim::output {

class TimelineWriter {
public:
  TimelineWriter(const std::string& path, mpi::World& world);
  /** Closes the file and moves it into place. */
  void finish();

private:
  void write(const mpi::RankEvent& event);
  void write(const mpi::StepEvent& event);

  std::string path_;
  std::ofstream file_;
  const mpi::World& world_;
  std::vector<bool> seen_; // ranks whose first line is written
};

} // namespace progsim::output
