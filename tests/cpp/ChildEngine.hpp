/* SimGrid's engine for the one simulation of a forked test child. */
#pragma once

#include <simgrid/s4u/Engine.hpp>

#include <memory>
#include <string>
#include <vector>

namespace progsim::testing {

/** Creates SimGrid's engine with `options` (--cfg=..., --log=...). SimGrid's engine is global: one per process, so
 * a test runs each simulation in a child process of its own and calls this there. */
inline std::unique_ptr<simgrid::s4u::Engine> child_engine(const std::vector<std::string>& options)
{
  static std::vector<std::string> args; // the engine keeps pointers into its arguments
  static std::vector<char*> argv;
  static int argc = 0;
  args = {"test"};
  args.insert(args.end(), options.begin(), options.end());
  argv.clear();
  for (auto& arg : args)
    argv.push_back(arg.data());
  argc = static_cast<int>(argv.size());
  return std::make_unique<simgrid::s4u::Engine>(&argc, argv.data());
}

} // namespace progsim::testing
