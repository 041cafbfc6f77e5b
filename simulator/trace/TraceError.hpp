/* The error of a malformed or missing trace. */
#pragma once

#include <stdexcept>

namespace progsim::trace {

/** A malformed or missing trace. The message names the file and line. */
class TraceError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace progsim::trace
