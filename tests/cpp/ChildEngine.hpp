/* SimGrid's engine for the one simulation of a forked test child. */
#pragma once

#include "TempDir.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <functional>
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

/** Runs `body` in a child process; returns the exit status it returned (128 if the child did not exit). */
inline int in_child(const std::function<int()>& body)
{
  pid_t child = fork();
  if (child == 0) {
    int status = body();
    std::fflush(stdout); // _exit does not
    _exit(status);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/** What a simulation saw that it should not have, one line each. */
using Failures = std::vector<std::string>;

inline void expect(Failures& failures, const std::string& what, bool holds)
{
  if (not holds)
    failures.push_back(what);
}

/** `got` within `tolerance` of `expected` (1 ns: SimGrid ends an activity within surf/precision of its date). */
inline void expect_near(Failures& failures, const std::string& what, double got, double expected,
                        double tolerance = 1e-9)
{
  if (std::fabs(got - expected) <= tolerance)
    return;
  char numbers[64];
  std::snprintf(numbers, sizeof numbers, ": %.12g s, expected %.12g", got, expected);
  failures.push_back(what + numbers);
}

/** SimGrid's XML for a platform of one zone with full routing (every route given), whose hosts, links and routes
 * are `zone` (XML elements). */
inline std::string full_routing_platform(const std::string& zone)
{
  return "<?xml version='1.0'?>\n"
         "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
         "<platform version=\"4.1\">\n"
         "  <zone id=\"z\" routing=\"Full\">" +
         zone + "  </zone>\n</platform>\n";
}

/**
 * One simulation in a child process: SimGrid's engine with `options` (quiet logs added) on the platform whose XML
 * is `platform_xml`; `setup` creates its actors, `check` looks at what they saw once it ran. The failures either
 * notes are printed in the child, whose exit status is 0 when there was none.
 */
inline int simulate_in_child(const std::string& platform_xml, std::vector<std::string> options,
                             const std::function<void(Failures&)>& setup,
                             const std::function<void(Failures&)>& check = {})
{
  const TempDir dir; // the parent's: removed once the child is done
  const std::string platform = dir.write("platform.xml", platform_xml);
  options.emplace_back("--log=root.thres:critical");
  return in_child([&]() {
    auto engine = child_engine(options);
    engine->load_platform(platform);
    Failures failures;
    setup(failures);
    engine->run();
    if (check)
      check(failures);
    for (auto const& failure : failures)
      std::printf("%s\n", failure.c_str());
    return failures.empty() ? 0 : 1;
  });
}

} // namespace progsim::testing
