/* Writes every change of a rank's activity as one JSON line, {"t", "rank", "state", "action", "line"}, and every
 * protocol step as {"t", "rank", "step", "by"}. */
#pragma once

#include "mpi/World.hpp"

#include <fstream>
#include <string>

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
};

} // namespace progsim::output
