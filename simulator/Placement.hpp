/* Reads a hostfile (as smpirun does: one host per line, or "host:count") into a rank placement. */
#pragma once

#include "mpi/World.hpp"

#include <stdexcept>
#include <string>

namespace progsim {

class InputError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/**
 * Rank i runs on the i-th host listed. The node of a host is its "progsim:node" property (set by the platform
 * compiler), or the host itself for platforms written by hand.
 */
mpi::Placement read_placement(const std::string& hostfile, int ranks);

} // namespace progsim
