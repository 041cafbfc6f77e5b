/* progsim-engine: replays SMPI time-independent traces with an explicit MPI progress mechanism.
 *
 *   progsim-engine PLATFORM.xml HOSTFILE TRACE [--cfg=progsim/progress:none] [--cfg=progsim/out:results.json] ...
 *
 * Exit status: 0 on success, 2 on bad input (nothing written), 3 when the simulation deadlocks (a report of every
 * blocked rank is printed, nothing written).
 */
#include "InputCheck.hpp"
#include "config/Parameters.hpp"
#include "Placement.hpp"
#include "collectives/SmpiDefault.hpp"
#include "protocol/Protocols.hpp"
#include "mpi/World.hpp"
#include "output/Provenance.hpp"
#include "output/ResultWriter.hpp"
#include "output/TimelineWriter.hpp"
#include "mpi/ProgressModel.hpp"
#include "trace/TraceSource.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <xbt/config.hpp>
#include <xbt/log.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <map>
#include <iostream>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(progsim_main, progsim, "Command line and run set-up");

namespace sg4 = simgrid::s4u;

namespace {
/**
 * SimGrid guards each actor's stack with a page that splits the stack's memory mapping in two, and Linux caps a
 * process's mappings (vm.max_map_count, 65 530 by default): tens of thousands of ranks, with an agent each, would
 * exceed it and abort. Past half the cap (the allocator needs mappings too), stacks go unguarded, as SimGrid's
 * documentation advises for large simulations ("Configuring the User Code Virtualization"). An explicit
 * --cfg=contexts/guard-size wins.
 */
void drop_stack_guards_if_too_many(int ranks)
{
  if (not simgrid::config::is_default("contexts/guard-size"))
    return;
  long cap = 0;
  std::ifstream limit("/proc/sys/vm/max_map_count");
  if (not(limit >> cap))
    cap = 65530; // Linux's default
  const long actors   = 2L * ranks; // a rank and, at most, a progress thread each
  const long mappings = 2 * actors;
  if (mappings > cap / 2)
    simgrid::config::set_value<int>("contexts/guard-size", 0);
}

/**
 * SimGrid gives each actor an 8 MiB stack by default, sized for the MPI programs SMPI runs on them. The engine's
 * actors run only its own code, and the deepest use is jemalloc's: an actor whose free fills a size class of its
 * thread cache flushes it with an array on the stack, as long as the cache. A 1 024-rank ring under `thread` runs
 * in guarded stacks of 12 KiB (contexts/stack-size with contexts/guard-size:4096) with jemalloc's default cache, the
 * engine's (JemallocTuning.cpp); with a cache of 2 048 objects it overflows 16 KiB. With thousands
 * of actors, 8 MiB stacks scatter the few pages each actor uses over as many separate 8 MiB of address space (4 096
 * ranks under `thread`: jemalloc's metadata 186 MB, against 12 MB with 256 KiB stacks; peak memory 181 MB, against
 * 157 MB), and the simulation, which switches actors at every simcall, misses more in the caches: the same
 * instructions (valgrind's callgrind) took 1.15 to 1.3x as long.
 * The deepest use measured is below 6 KiB on the benchmark's ring under every mechanism (guarded 4 KiB stacks
 * overflow, 6 KiB do not; the deepest frames are the dynamic linker's first resolution of a symbol, then jemalloc's
 * slow paths) and below 8 KiB on the 16-rank real captures, collectives included, under every mechanism: 128 KiB
 * keeps 16 times that. Smaller stacks take less of jemalloc's bookkeeping of the address space: 65 536 ranks under
 * `thread` with 1 MiB messages held 2 062 MiB with 256 KiB stacks, 2 030 MiB with 128 KiB.
 * An explicit --cfg=contexts/stack-size wins.
 */
void size_actor_stacks()
{
  constexpr int kStackKiB = 128;
  if (simgrid::config::is_default("contexts/stack-size"))
    simgrid::config::set_value<int>("contexts/stack-size", kStackKiB);
}

constexpr int kBadInput = 2;
constexpr int kDeadlock = 3;

int usage(const char* program)
{
  std::cerr << "usage: " << program << " PLATFORM.xml HOSTFILE TRACE [--cfg=progsim/progress:MECHANISM] "
            << "[--cfg=progsim/out:FILE] [--cfg=progsim/timeline:FILE] [--cfg=...]\n"
            << "  TRACE is an SMPI time-independent trace: a list of per-rank files or one shared file.\n"
            << "  --help lists every progsim/ parameter with its default.\n";
  return kBadInput;
}

/** One line for a bad input: the message, its middle cut when a quoted input line makes it very long. */
void report_error(const std::string& message)
{
  constexpr size_t kLongest = 400;
  std::string text = message.substr(0, message.find('\n'));
  if (text.size() > kLongest)
    text = text.substr(0, kLongest / 2) + " [... " + std::to_string(text.size() - kLongest) + " characters cut ...] " +
           text.substr(text.size() - kLongest / 2);
  std::cerr << "progsim: error: " << text << "\n";
}

void remove_stale(const std::string& path)
{
  if (not path.empty())
    std::filesystem::remove(path);
}

/** Removes what a run that ends early wrote of its timeline (`timeline`: its path, empty for none). */
void remove_partial_timeline(const std::string& timeline)
{
  if (not timeline.empty())
    remove_stale(progsim::output::TimelineWriter::partial_path(timeline));
}

/** Ends the run on bad input, writing nothing (a partial timeline is removed). A bad trace line comes first: the
 * first in file order, as when the whole check came before time 0. */
[[noreturn]] void leave_on_bad_input(progsim::InputCheck& check, const std::string& timeline, const std::string& message)
{
  const std::string& verdict = check.verdict();
  report_error(verdict.empty() ? message : verdict);
  remove_partial_timeline(timeline);
  std::_Exit(kBadInput);
}

/** Every --cfg is NAME:VALUE (SimGrid aborts on one without a value). */
void check_options(int argc, char** argv)
{
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i];
    if (arg.rfind("--cfg=", 0) == 0 && arg.find(':') == std::string::npos)
      throw std::invalid_argument("bad option '" + arg + "': expected --cfg=NAME:VALUE");
  }
}

/** SimGrid 3.32 aborts on a model name it does not know, when the platform loads: check those before. */
void check_model_choice(const std::string& option)
{
  static const std::map<std::string, std::vector<std::string>> models = {
      {"network/model", {"LV08", "Constant", "SMPI", "IB", "CM02", "ns-3"}},
      {"cpu/model", {"Cas01", "ptask_L07"}},
      {"host/model", {"default", "compound", "ptask_L07"}},
  };
  auto colon = option.find(':');
  auto it    = models.find(option.substr(0, colon));
  if (it == models.end())
    return;
  std::string value = option.substr(colon + 1);
  for (auto const& known : it->second)
    if (value == known)
      return;
  std::string list;
  for (auto const& known : it->second)
    list += (list.empty() ? "" : ", ") + known;
  throw std::invalid_argument("unknown model '" + value + "' (expected one of: " + list + ")");
}

/** Output files are checked before anything is written or removed: each one's folder exists, it is not a folder,
 * and it is none of the inputs (nor the other output). */
void check_outputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                   const std::vector<std::pair<std::string, std::string>>& inputs)
{
  namespace fs = std::filesystem;
  auto same = [](const std::string& a, const std::string& b) {
    std::error_code error;
    return fs::weakly_canonical(a, error) == fs::weakly_canonical(b, error);
  };
  for (auto const& [flag, path] : outputs) {
    if (path.empty())
      continue;
    fs::path folder = fs::path(path).parent_path();
    if (not folder.empty() && not fs::is_directory(folder))
      throw progsim::InputError(path + ": the folder of " + flag + " does not exist");
    if (fs::is_directory(path))
      throw progsim::InputError(path + ": " + flag + " names a folder, not a file");
    for (auto const& [role, input] : inputs)
      if (same(path, input))
        throw progsim::InputError(path + ": " + flag + " names the " + role + ", an input of this run");
  }
  if (not outputs[0].second.empty() && same(outputs[0].second, outputs[1].second))
    throw progsim::InputError(outputs[0].second + ": the results and the timeline would be the same file");
}
} // namespace

int main(int argc, char** argv)
{
  if (argc == 2 && std::string(argv[1]) == "--list-contention") { // the memory-bus contention policies built in
    for (const auto* kind : progsim::models::contention::bus_policy_kinds())
      std::cout << kind->name << "\n";
    return 0;
  }
  if (argc == 2 && std::string(argv[1]) == "--list-progress") { // the mechanisms built in: name, agent, summary
    for (const auto* kind : progsim::models::progress::progress_kinds())
      std::cout << kind->name << "\t" << kind->agent << "\t" << kind->summary << "\n";
    return 0;
  }
  progsim::declare_parameters();
  try {
    check_options(argc, argv);
  } catch (const std::exception& error) {
    report_error(error.what());
    return kBadInput;
  }
  if (argc == 3 && std::string(argv[1]) == "--inspect-trace") { // ranks and files, as a run would read them
    try {
      progsim::trace::TraceSource traces(argv[2]);
      std::cout << "ranks " << traces.rank_count() << "\n";
      std::cout << "actions " << traces.check() << "\n";
      for (int rank = 0; rank < traces.rank_count(); rank++)
        std::cout << "file " << traces.file(rank) << "\n";
    } catch (const std::exception& error) {
      report_error(error.what());
      return kBadInput;
    }
    return 0;
  }
  if (argc == 2 && std::string(argv[1]) == "--list-parameters") { // name, default, unit, meaning: tab-separated
    for (auto const& p : progsim::Parameters::describe())
      std::cout << p.name << "\t" << p.value << "\t" << p.unit << "\t" << p.description << "\n";
    return 0;
  }
  // The command line as given, for the results (SimGrid removes the options it reads from argv).
  const int argc_before_engine = argc;
  std::vector<char*> argv_copy(argv, argv + argc);
  // The --cfg options are applied one by one once the engine exists, so that a bad one is named.
  std::vector<std::string> options;
  std::vector<char*> other_args;
  for (int i = 0; i < argc; i++) {
    std::string arg = argv[i];
    if (i > 0 && arg.rfind("--cfg=", 0) == 0)
      options.push_back(arg.substr(6));
    else
      other_args.push_back(argv[i]);
  }
  int engine_argc = static_cast<int>(other_args.size());
  std::unique_ptr<sg4::Engine> engine_owner;
  try {
    engine_owner = std::make_unique<sg4::Engine>(&engine_argc, other_args.data());
    for (auto const& option : options) {
      try { // a bad --cfg (unknown key, value of the wrong kind) is bad input, not a crash
        check_model_choice(option);
        sg4::Engine::set_config(option);
      } catch (const std::exception& error) {
        std::string what = error.what();
        throw std::invalid_argument("bad option --cfg=" + option + ": " + what.substr(0, what.find('\n')) +
                                    " (progsim-engine --help lists every parameter)");
      }
    }
  } catch (const std::exception& error) {
    report_error(error.what());
    return kBadInput;
  }
  argc = engine_argc;
  argv = other_args.data();
  sg4::Engine& engine = *engine_owner;
  // The same network model and precision as smpirun, so that `ideal` reproduces SMPI's times.
  if (simgrid::config::is_default("network/model"))
    simgrid::config::set_value<std::string>("network/model", "SMPI");
  if (simgrid::config::is_default("surf/precision"))
    simgrid::config::set_value<double>("surf/precision", 1e-9);
  // Flows of one route and size class share one max-min variable (scripts/build_simgrid.sh, carry-flows): the
  // same sharing, at the cost of a few variables per route where a burst of messages would put thousands.
  if (simgrid::config::is_default("network/carry-flows"))
    simgrid::config::set_value<bool>("network/carry-flows", true);
  // Routes are computed once per pair of hosts (scripts/build_simgrid.sh, route-cache): the same routes.
  if (simgrid::config::is_default("network/route-cache"))
    simgrid::config::set_value<bool>("network/route-cache", true);
  if (argc != 4)
    return usage(argv[0]);
  const std::string platform = argv[1];
  const std::string hostfile = argv[2];
  const std::string trace    = argv[3];

  progsim::Parameters parameters;
  std::unique_ptr<progsim::models::progress::ProgressModel> progress;
  std::unique_ptr<progsim::models::contention::BusPolicy> bus_policy;
  std::unique_ptr<progsim::mpi::CollectiveAlgorithms> collectives;
  std::optional<progsim::trace::TraceSource> traces;
  progsim::output::Provenance provenance;
  progsim::InputCheck::Inputs inputs;
  try {
    parameters = progsim::Parameters::from_flags();
    progress   = progsim::models::progress::make_progress_model(parameters);
    bus_policy  = progsim::models::contention::make_bus_policy(parameters.memory);
    collectives = progsim::models::collectives::smpi_default::make_collectives(parameters.coll_algorithms,
                                                                              parameters.nbc_algorithms);
    traces.emplace(trace); // its files found: their lines are checked beside the run (InputCheck)
    if (not std::filesystem::is_regular_file(platform))
      throw progsim::InputError(platform + ": no such platform file");
    inputs = {{"platform", platform}, {"hostfile", hostfile}, {"trace", trace}};
    for (int rank = 0; rank < traces->rank_count(); rank++)
      if (traces->file(rank) != trace && (inputs.back().second != traces->file(rank)))
        inputs.emplace_back("rank trace", traces->file(rank));
    check_outputs({{"progsim/out", parameters.out}, {"progsim/timeline", parameters.timeline}}, inputs);
    remove_stale(parameters.out);
    remove_stale(parameters.timeline);
    provenance = progsim::output::make_provenance(argc_before_engine, argv_copy.data());
  } catch (const std::exception& error) {
    report_error(error.what());
    return kBadInput;
  }
  progsim::InputCheck input_check(*traces, std::move(inputs)); // before the platform loads: a small process to fork
  auto stop_on_bad_input = [&input_check, &parameters](const std::string& message) {
    leave_on_bad_input(input_check, parameters.timeline, message);
  };
  sg4::Engine::on_time_advance_cb([&stop_on_bad_input, &input_check](double) { // a bad line found: stop there
    if (input_check.failed())
      stop_on_bad_input("");
  });

  drop_stack_guards_if_too_many(traces->rank_count());
  size_actor_stacks();
  engine.load_platform(platform);
  progsim::mpi::Placement placement;
  try {
    placement = progsim::read_placement(hostfile, traces->rank_count());
  } catch (const std::exception& error) {
    leave_on_bad_input(input_check, parameters.timeline, error.what());
  }

  progsim::mpi::World world(parameters, std::move(*traces), std::move(placement), std::move(progress),
                            progsim::models::protocol::make_protocols(),
                            std::move(collectives), std::move(bus_policy));
  std::unique_ptr<progsim::output::TimelineWriter> timeline;
  if (not parameters.timeline.empty())
    timeline = std::make_unique<progsim::output::TimelineWriter>(parameters.timeline, world);
  auto report_deadlock = [&world, &parameters, &input_check, &stop_on_bad_input]() {
    if (not input_check.verdict().empty())
      stop_on_bad_input("");
    std::cerr << world.deadlock_report() << std::flush;
    remove_partial_timeline(parameters.timeline);
  };
  world.on_bad_input = stop_on_bad_input;
  // Report while every actor is still in place, then leave: SimGrid would kill the actors one by one.
  sg4::Engine::on_deadlock_cb([&report_deadlock]() {
    report_deadlock();
    std::_Exit(kDeadlock);
  });

  try { // a mechanism that cannot be set up on this platform (e.g. every core reserved) is bad input
    world.start();
    XBT_VERB("%d ranks, progress '%s', platform %s", world.size(), std::string(world.progress().name()).c_str(),
             platform.c_str());
  } catch (const std::invalid_argument& error) {
    leave_on_bad_input(input_check, parameters.timeline, error.what());
  }
  engine.run();

  if (not input_check.verdict().empty())
    stop_on_bad_input("");
  if (not world.all_finished()) {
    report_deadlock();
    return kDeadlock;
  }
  // An MPI program receives every message before it finalizes: anything left says the trace is not a whole run.
  if (auto leftovers = world.leftovers_report(); not leftovers.empty())
    std::cerr << "progsim: warning: the run ended with unmatched messages:\n" << leftovers;
  provenance.inputs = input_check.hashed();
  if (timeline)
    timeline->finish();
  if (not parameters.out.empty())
    progsim::output::write_results(parameters.out, world, {platform, hostfile, trace}, provenance);
  std::cout << progsim::output::summary(world);
  return 0;
}
