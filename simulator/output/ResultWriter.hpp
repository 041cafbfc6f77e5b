/* Writes the results of a finished run as JSON: the same inputs give the same bytes. */
#pragma once

#include "mpi/World.hpp"
#include "output/Provenance.hpp"

#include <string>

namespace progsim::output {

struct RunDescription {
  std::string platform;
  std::string hostfile;
  std::string trace;
};

/** Writes to `path` through a temporary file, so that a reader never sees half a result. */
void write_results(const std::string& path, const mpi::World& world, const RunDescription& run,
                   const Provenance& provenance);
/** The simulated time: when the last rank finished. */
double simulated_time(const mpi::World& world);
/** A short human-readable summary. */
std::string summary(const mpi::World& world);

} // namespace progsim::output
