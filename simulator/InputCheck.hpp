/* The inputs' whole check and checksums, in a process of their own while the simulation runs. */
#pragma once

#include "output/Provenance.hpp"
#include "trace/TraceSource.hpp"

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>

namespace progsim {

/**
 * Reads every input once beside the replay: parses every trace line (TraceSource::check) and hashes every file for
 * the results' provenance, which took the engine a tenth to a sixth of a small capture's instructions before time 0.
 * A child process does it, forked before the platform loads, so that it costs no wall time where a second core is
 * free. Not a thread: once a process has started one, libstdc++ counts every shared_ptr with atomic instructions
 * (`__libc_single_threaded` never comes back), and the replay ran slower by more than the check took.
 *
 * Whatever ends the run (its end, a deadlock, an MPI error, a line the replay cannot read) asks verdict() first, so
 * that a bad line is reported as when the check came before time 0: the first one in file order, and nothing else.
 */
class InputCheck {
public:
  using Inputs = std::vector<std::pair<std::string, std::string>>; // role, path

  /** Starts the check of `traces` and the hashes of `inputs` (in this process if no child can be forked). */
  InputCheck(const trace::TraceSource& traces, Inputs inputs);
  ~InputCheck();
  InputCheck(const InputCheck&)            = delete;
  InputCheck& operator=(const InputCheck&) = delete;

  /** Whether the check has found a bad input (it may still be running): a load from memory shared with the child,
   * cheap enough for every time step. */
  bool failed() const { return shared_->failed.load(std::memory_order_relaxed); }
  /** Waits for the check: empty when every input is good, else what is wrong with the first bad one. */
  const std::string& verdict();
  /** The inputs with their checksums (after a good verdict). */
  const std::vector<output::InputFile>& hashed() const { return hashed_; }

private:
  struct Shared {
    std::atomic<bool> failed{false};
  };
  /** The check itself: what the child sends back (a checksum per input, one per line), or throws what is wrong. */
  static std::string run(const trace::TraceSource& traces, const Inputs& inputs);
  /** Takes the child's (or run()'s) answer. */
  void conclude(bool good, const std::string& answer);

  Inputs inputs_;
  Shared own_;
  Shared* shared_ = &own_;   // a page shared with the child where one can be mapped
  pid_t child_    = -1;
  int answer_fd_  = -1;      // the read end of the child's pipe
  bool concluded_ = false;
  std::string error_;
  std::vector<output::InputFile> hashed_;
};

} // namespace progsim
