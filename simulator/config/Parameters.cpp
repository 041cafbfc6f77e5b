#include "config/Parameters.hpp"

#include <xbt/config.hpp>

#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <initializer_list>
#include <sstream>
#include <stdexcept>

namespace progsim {

namespace {

std::string number(double value)
{
  std::ostringstream text;
  text << std::setprecision(12) << value;
  return text.str();
}

/** A flag's text, read as what its parameter holds; a text that does not fit throws std::invalid_argument saying
 * what was expected (the caller names the flag). */
class Value {
public:
  explicit Value(const std::string& text) : text_(text) {}
  const std::string& text() const { return text_; }
  bool is(const char* word) const { return text_ == word; }
  /** A finite number, not negative. */
  double number() const { return checked(parse(), false); }
  /** A finite number above zero. */
  double positive() const { return checked(parse(), true); }
  /** A whole number of bytes that fits the engine's 64-bit sizes. */
  int64_t bytes() const { return whole_bytes(false); }
  int64_t positive_bytes() const { return whole_bytes(true); }
  /** An integer of at least `least`. */
  int whole(int least) const
  {
    double value = parse();
    if (value != std::floor(value) || value < least || value > 1e9)
      expected("a whole number of at least " + std::to_string(least));
    return static_cast<int>(value);
  }
  /** yes or no, as SimGrid reads its own switches (also on/off, true/false, 1/0). */
  bool yes_no() const
  {
    for (const char* word : {"yes", "on", "true", "1"})
      if (text_ == word)
        return true;
    for (const char* word : {"no", "off", "false", "0"})
      if (text_ == word)
        return false;
    expected("yes or no");
  }
  const std::string& choice(std::initializer_list<const char*> allowed) const
  {
    std::string known;
    for (const char* name : allowed) {
      if (text_ == name)
        return text_;
      known += (known.empty() ? "" : ", ") + std::string(name);
    }
    expected("one of " + known);
  }
  [[noreturn]] void expected(const std::string& what) const
  {
    throw std::invalid_argument("expected " + what + ", got '" + text_ + "'");
  }

private:
  double parse() const
  {
    char* end    = nullptr;
    double value = std::strtod(text_.c_str(), &end);
    if (text_.empty() || end != text_.c_str() + text_.size())
      expected("a number");
    return value;
  }
  double checked(double value, bool positive) const
  {
    if (not std::isfinite(value) || value < 0 || (positive && value == 0))
      expected(std::string("a finite ") + (positive ? "positive" : "non-negative") + " number");
    return value;
  }
  int64_t whole_bytes(bool positive) const
  {
    double value = checked(parse(), positive);
    if (value > 1e18 || value != std::floor(value))
      expected("a whole number of bytes up to 1e18");
    return static_cast<int64_t>(value);
  }
  const std::string& text_;
};

/** progsim/data-numa: local, nic, or a domain number (its node's domains are checked once the platform is known). */
std::string data_domain(const Value& v)
{
  const std::string& text = v.text();
  if (text != "local" && text != "nic" &&
      (text.empty() || text.size() > 4 || text.find_first_not_of("0123456789") != std::string::npos))
    v.expected("local, nic or a NUMA domain number");
  return text;
}

/** How a parameter's value is shown: a number, a yes/no switch, or a word as given. */
enum class Shape : uint8_t { Number, Switch, Word };
/** Whether a flag is a model parameter, listed by --list-parameters and in the results (not an output's path). */
enum class Listed : uint8_t { Yes, No };

/** One parameter, defined once: its flag, unit, default (as --cfg takes it), meaning, and where its value goes. */
struct Definition {
  const char* key;
  const char* unit;
  const char* fallback;
  Shape shape;
  Listed listed;
  const char* description;
  void (*read)(Parameters&, const Value&); // checks the text and stores its value
};

// Read in this order (a value may depend on those above it: dma-loads-bus and small-flow-bytes on progress and
// control-bytes), and listed in it.
const Definition kDefinitions[] = {
    {"progsim/progress", "", "none", Shape::Word, Listed::Yes,
     "Progress mechanism: none, thread, dedicated-core, offload or ideal",
     [](Parameters& p, const Value& v) { p.progress = v.text(); }},
    {"progsim/eager-threshold", "B", "65536", Shape::Number, Listed::Yes,
     "Bytes: messages between nodes smaller than this use the eager protocol",
     [](Parameters& p, const Value& v) { p.network.eager_threshold = v.bytes(); }},
    {"progsim/rendezvous", "", "get", Shape::Word, Listed::Yes,
     "Rendezvous between nodes: get, put or pipelined",
     [](Parameters& p, const Value& v) {
       p.network.rendezvous = parse_rendezvous(v.choice({"get", "put", "pipelined"}));
     }},
    {"progsim/fragment-size", "B", "131072", Shape::Number, Listed::Yes,
     "Bytes per fragment of the pipelined rendezvous",
     [](Parameters& p, const Value& v) { p.network.fragment_size = v.positive_bytes(); }},
    {"progsim/shm-eager-threshold", "B", "4096", Shape::Number, Listed::Yes,
     "Bytes: messages inside a node smaller than this use the eager protocol",
     [](Parameters& p, const Value& v) { p.shared_memory.eager_threshold = v.bytes(); }},
    {"progsim/shm-rendezvous", "", "get", Shape::Word, Listed::Yes,
     "Rendezvous inside a node: get, put or pipelined",
     [](Parameters& p, const Value& v) {
       p.shared_memory.rendezvous = parse_rendezvous(v.choice({"get", "put", "pipelined"}));
     }},
    {"progsim/shm-fragment-size", "B", "131072", Shape::Number, Listed::Yes,
     "Bytes per fragment of the pipelined rendezvous in a node",
     [](Parameters& p, const Value& v) { p.shared_memory.fragment_size = v.positive_bytes(); }},
    {"progsim/overhead-send", "s", "5e-7", Shape::Number, Listed::Yes,
     "CPU seconds a sender spends posting a message",
     [](Parameters& p, const Value& v) { p.send_overhead = v.number(); }},
    {"progsim/overhead-recv", "s", "5e-7", Shape::Number, Listed::Yes,
     "CPU seconds a receiver spends posting a receive",
     [](Parameters& p, const Value& v) { p.recv_overhead = v.number(); }},
    {"progsim/overhead-step", "s", "2e-7", Shape::Number, Listed::Yes,
     "CPU seconds of one protocol step (match, request/clear-to-send, finish, fragment)",
     [](Parameters& p, const Value& v) { p.step_overhead = v.number(); }},
    {"progsim/overhead-call", "s", "1e-7", Shape::Number, Listed::Yes,
     "CPU seconds of one wait or test call, even when nothing is pending",
     [](Parameters& p, const Value& v) { p.call_overhead = v.number(); }},
    {"progsim/copy-bandwidth", "B/s", "1e10", Shape::Number, Listed::Yes,
     "Bytes per second one core copies (eager buffers at both ends, shared-memory single copies)",
     [](Parameters& p, const Value& v) { p.copy_bandwidth = v.positive(); }},
    {"progsim/compute-intensity", "flop/B", "0", Shape::Number, Listed::Yes,
     "Arithmetic intensity of computations whose trace line gives no byte count: they move flops / intensity bytes through their NUMA domain's memory bus (0: none, cache-resident)",
     [](Parameters& p, const Value& v) { p.memory.compute_intensity = v.number(); }},
    {"progsim/copy-loads-bus", "", "yes", Shape::Switch, Listed::Yes,
     "A copy's bytes also cross its NUMA domain's memory bus, twice (yes or no; no spares SimGrid two transfers per eager message)",
     [](Parameters& p, const Value& v) { p.memory.copy_loads_bus = v.yes_no(); }},
    {"progsim/dma-loads-bus", "", "auto", Shape::Word, Listed::Yes,
     "A NIC's transfer also crosses the memory bus of the NUMA domain that holds its data, at each end, as a DMA flow that shares the bus with the cores (auto: yes under every mechanism but ideal, whose SMPI model has no DMA; yes; no)",
     [](Parameters& p, const Value& v) {
       const std::string& choice = v.choice({"auto", "yes", "no"});
       p.memory.dma_loads_bus           = choice == "yes" || (choice == "auto" && p.progress != "ideal");
     }},
    {"progsim/loaded-latency", "", "yes", Shape::Switch, Listed::Yes,
     "Computations that ask a memory for more than its bus delivers lengthen its latency for every access, messages included: idle latency x demand / bandwidth (Little's law; yes or no)",
     [](Parameters& p, const Value& v) { p.memory.loaded_latency = v.yes_no(); }},
    {"progsim/cached-message-bytes", "B", "0", Shape::Number, Listed::Yes,
     "Messages up to this size live in the caches (the MPI library's reused buffers; the NIC reaches the last-level cache, Intel DDIO): their copies and DMA still load the memory bus, as write-backs, but the message does not wait for them (0: every message waits for its memory traffic)",
     [](Parameters& p, const Value& v) { p.memory.cached_message_bytes = v.bytes(); }},
    {"progsim/contention", "", "fair", Shape::Word, Listed::Yes,
     "How the flows on a memory bus share it: fair (an equal share per flow), weighted (a NIC's DMA weighs nic-bus-weight core streams) or calibrated (the bus's capacity follows bus-curve as flows are added)",
     [](Parameters& p, const Value& v) { p.memory.contention = v.text(); }},
    {"progsim/nic-bus-weight", "", "1", Shape::Number, Listed::Yes,
     "weighted, calibrated: how many core streams a NIC's DMA flow weighs on the bus, from 1/4 to 64 (as a ratio p/q with q <= 4)",
     [](Parameters& p, const Value& v) { p.memory.nic_bus_weight = v.positive(); }},
    {"progsim/bus-curve", "", "", Shape::Word, Listed::Yes,
     "calibrated: the bus's total bandwidth with n flows, as 'n:B/s;n:B/s' (a STREAM scaling curve), interpolated",
     [](Parameters& p, const Value& v) { p.memory.bus_curve = v.text(); }},
    {"progsim/data-numa", "", "local", Shape::Word, Listed::Yes,
     "Where each rank's data lives (its computations' streams, its copies, the NIC's DMA of its messages): local (its own NUMA domain), nic (the domain of its node's NIC) or a domain number of its node",
     [](Parameters& p, const Value& v) { p.memory.data_numa = data_domain(v); }},
    {"progsim/nbc-algorithms", "", "", Shape::Word, Listed::Yes,
     "Non-blocking collectives that run a round-by-round algorithm instead of SMPI's own (all messages at once), as 'collective:algorithm;...': ibarrier:dissemination, ibcast:binomial, iallreduce:recursive-doubling, ialltoall:pairwise, ... or the selector libnbc (empty: SMPI's for all)",
     [](Parameters& p, const Value& v) { p.nbc_algorithms = v.text(); }},
    {"progsim/coll-algorithms", "", "", Shape::Word, Listed::Yes,
     "Blocking collectives that run another algorithm than SMPI's default selection, as 'collective:algorithm;...' with SMPI's names where it has them (bcast:binomial_tree, bcast:scatter_LR_allgather, allreduce:rdb, allreduce:rab_rdb, alltoall:pair, allgather:ring, barrier:ompi_bruck, ...), or the selector mpich (empty: SMPI's default for all)",
     [](Parameters& p, const Value& v) { p.coll_algorithms = v.text(); }},
    {"progsim/buffered-send-threshold", "B", "65536", Shape::Number, Listed::Yes,
     "Blocking sends below this complete once copied, as in the MPI that captured the trace (SMPI: 65536); 0 for strict MPI semantics",
     [](Parameters& p, const Value& v) { p.buffered_send_threshold = v.bytes(); }},
    {"progsim/rank-progress", "", "wait", Shape::Word, Listed::Yes,
     "Where a rank runs its own protocol steps: wait (wait and test calls only) or every-call",
     [](Parameters& p, const Value& v) {
       p.rank_progress_every_call = v.choice({"wait", "every-call"}) == "every-call";
     }},
    {"progsim/poll-in-wait", "", "yes", Shape::Switch, Listed::Yes,
     "A rank waiting in MPI polls and keeps using its core, as Open MPI and MPICH do by default (yes or no): on a host with more ranks and threads than cores it takes CPU from the others",
     [](Parameters& p, const Value& v) { p.poll_in_wait = v.yes_no(); }},
    {"progsim/pipeline-depth", "fragments", "3", Shape::Number, Listed::Yes,
     "Fragments of a pipelined rendezvous in flight at once",
     [](Parameters& p, const Value& v) { p.pipeline_depth = v.whole(1); }},
    {"progsim/control-bytes", "B", "64", Shape::Number, Listed::Yes,
     "Bytes of a control message (RTS, CTS, FIN)",
     [](Parameters& p, const Value& v) { p.control_bytes = v.bytes(); }},
    {"progsim/control-transfers", "", "no", Shape::Switch, Listed::Yes,
     "Control messages are SimGrid transfers that share the links' bandwidth with the data (yes), or arrive after the time their route takes them when idle, computed from SimGrid's network model (no: fewer transfers, a faster replay; transfers anyway under network models other than SMPI, CM02 and LV08)",
     [](Parameters& p, const Value& v) { p.control_transfers = v.yes_no(); }},
    {"progsim/loopback-transfers", "", "no", Shape::Switch, Listed::Yes,
     "Messages between two ranks of a host, over links that the platform marks as its loopback, are SimGrid transfers (yes), or arrive after the time their route takes them, computed from SimGrid's network model (no: exact, since nothing else crosses those links; fewer transfers, a faster replay; transfers anyway under network models other than SMPI, CM02 and LV08)",
     [](Parameters& p, const Value& v) { p.loopback_transfers = v.yes_no(); }},
    {"progsim/run-ahead", "", "yes", Shape::Switch, Listed::Yes,
     "A rank whose core nobody else uses and whose steps nobody else runs (none, offload without offloads) lets its CPU work run ahead of SimGrid's clock until it next looks at arrivals, with one pause for all of it (yes: exact, fewer actor switches, a faster replay), or pauses for each overhead and computation (no)",
     [](Parameters& p, const Value& v) { p.run_ahead = v.yes_no(); }},
    {"progsim/steps-in-kernel", "", "yes", Shape::Switch, Listed::Yes,
     "A rank blocked in a wait on a host whose cores are shared has the protocol steps it runs meanwhile run by SimGrid's kernel, each step's CPU work an execution whose end has the step take effect, and the rank's actor parks once for the wait (yes: fewer actor switches, a faster replay; same-date events may run in another order), or runs each step itself, parking for each (no)",
     [](Parameters& p, const Value& v) { p.steps_in_kernel = v.yes_no(); }},
    {"progsim/bus-sharing", "", "closed-form", Shape::Word, Listed::Yes,
     "How the flows on a memory bus share it: as SimGrid transfers that its max-min solver shares (simgrid), or in closed form where only flows to that memory cross the bus (closed-form: the same ends within 1 ns, no transfer, a faster replay)",
     [](Parameters& p, const Value& v) { p.memory.bus_sharing = v.choice({"simgrid", "closed-form"}); }},
    {"progsim/small-flow-bytes", "B", "auto", Shape::Word, Listed::Yes,
     "A message's flows of at most this many bytes (its transfer, its DMA, its copies' bus traffic) take the time their route takes them when idle, computed from SimGrid's network model, and load no link, as control messages do (auto: twice control-bytes, so that a message no larger than a control message has every flow dated, its copies' read and write traffic included, under every mechanism but ideal, whose transfers are SMPI's; 0: every flow is shared; flows anyway under network models other than SMPI, CM02 and LV08)",
     [](Parameters& p, const Value& v) { // auto: a control message's copies, 2 x its bytes of bus traffic, dated
       p.small_flow_bytes = v.is("auto") ? (p.progress == "ideal" ? 0 : 2 * p.control_bytes) : v.bytes();
     }},
    {"progsim/envelope-bytes", "B", "16", Shape::Number, Listed::Yes,
     "Bytes of header added to every message (SMPI adds 16)",
     [](Parameters& p, const Value& v) { p.envelope_bytes = v.bytes(); }},
    {"progsim/detached-threshold", "B", "65536", Shape::Number, Listed::Yes,
     "ideal: sends smaller than this complete at once (SMPI's smpi/send-is-detached-thresh)",
     [](Parameters& p, const Value& v) { p.detached_threshold = v.bytes(); }},
    {"progsim/smpi-test-sleep", "s", "1e-4", Shape::Number, Listed::Yes,
     "ideal: seconds injected per MPI_Test, growing while tests fail (SMPI's smpi/test)",
     [](Parameters& p, const Value& v) { p.smpi_test_sleep = v.number(); }},
    {"progsim/thread-poll-interval", "s", "1e-6", Shape::Number, Listed::Yes,
     "thread: seconds between two polls of the progress thread",
     [](Parameters& p, const Value& v) { p.thread.poll_interval = v.number(); }},
    {"progsim/thread-poll-cost", "s", "1e-7", Shape::Number, Listed::Yes,
     "thread: CPU seconds of one poll",
     [](Parameters& p, const Value& v) { p.thread.poll_cost = v.number(); }},
    {"progsim/sched-quantum", "s", "3e-3", Shape::Number, Listed::Yes,
     "thread: a progress thread woken on a busy core waits for the next time slice of this length",
     [](Parameters& p, const Value& v) { p.thread.sched_quantum = v.number(); }},
    {"progsim/thread-spare-core", "", "no", Shape::Switch, Listed::Yes,
     "thread: progress threads are pinned to cores the ranks do not use (yes or no)",
     [](Parameters& p, const Value& v) { p.thread.spare_core = v.yes_no(); }},
    {"progsim/thread-busy", "", "no", Shape::Switch, Listed::Yes,
     "thread: each thread spins on its rank's core, as MPICH's asynchronous progress thread does (yes or no): while the rank computes, the OS gives them sched-quantum time slices in turn",
     [](Parameters& p, const Value& v) { p.thread.busy = v.yes_no(); }},
    {"progsim/dedicated-per", "", "node", Shape::Word, Listed::Yes,
     "dedicated-core: one progress core per node or per numa domain",
     [](Parameters& p, const Value& v) { p.dedicated.per = v.choice({"node", "numa"}); }},
    {"progsim/dedicated-cores", "cores", "1", Shape::Number, Listed::Yes,
     "dedicated-core: cores reserved per node or numa domain",
     [](Parameters& p, const Value& v) { p.dedicated.cores = v.whole(1); }},
    {"progsim/dedicated-step-cost", "s", "2e-7", Shape::Number, Listed::Yes,
     "dedicated-core: seconds of one step on the progress core",
     [](Parameters& p, const Value& v) { p.dedicated.step_cost = v.number(); }},
    {"progsim/offload-step-latency", "s", "5e-7", Shape::Number, Listed::Yes,
     "offload: seconds of one protocol step run by the NIC",
     [](Parameters& p, const Value& v) { p.offload.step_latency = v.number(); }},
    {"progsim/offload-intra-node", "", "no", Shape::Switch, Listed::Yes,
     "offload: messages inside a node go through the NIC instead of shared memory (yes or no)",
     [](Parameters& p, const Value& v) { p.offload.intra_node = v.yes_no(); }},
    {"progsim/offload-collective-latency", "s", "5e-6", Shape::Number, Listed::Yes,
     "offload: a NIC that offloads collectives runs barrier, bcast, reduce and allreduce in the network, in this time plus the bytes over offload-collective-bandwidth, from the last rank's arrival on, for any rank count",
     [](Parameters& p, const Value& v) { p.offload.collective_latency = v.number(); }},
    {"progsim/offload-collective-bandwidth", "B/s", "1e10", Shape::Number, Listed::Yes,
     "offload: the bandwidth at which a collective run in the network streams its bytes",
     [](Parameters& p, const Value& v) { p.offload.collective_bandwidth = v.positive(); }},
    {"progsim/out", "", "", Shape::Word, Listed::No,
     "Results file (JSON)",
     [](Parameters& p, const Value& v) { p.out = v.text(); }},
    {"progsim/timeline", "", "", Shape::Word, Listed::No,
     "Event timeline file (JSON lines), empty for none",
     [](Parameters& p, const Value& v) { p.timeline = v.text(); }},
    {"progsim/platform-source", "", "", Shape::Word, Listed::No,
     "What the platform was compiled from (recorded in the results)",
     [](Parameters& p, const Value& v) { p.platform_source = v.text(); }},
};

/** Reads every parameter into `p`, each from the text `text_of` gives for its definition. */
template <class TextOf> void read_all(Parameters& p, TextOf text_of)
{
  for (auto const& definition : kDefinitions) {
    const std::string text = text_of(definition);
    try {
      definition.read(p, Value(text));
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument(std::string(definition.key) + ": " + error.what());
    }
  }
}

/** The checks between parameters, once all are read. */
void check_together(const Parameters& p)
{
  if (p.thread.busy && p.thread.spare_core)
    throw std::invalid_argument("progsim/thread-busy: a thread that spins on its rank's core cannot also have a "
                                "spare core of its own (progsim/thread-spare-core); choose one");
  if (p.thread.busy && p.thread.sched_quantum <= 0)
    throw std::invalid_argument("progsim/sched-quantum: a spinning thread (progsim/thread-busy) needs a positive "
                                "time slice, got 0");
}

std::string current(const Definition& definition)
{
  return simgrid::config::get_value<std::string>(definition.key);
}
} // namespace

void declare_parameters()
{
  static bool declared = false;
  if (declared)
    return;
  declared = true;
  for (auto const& definition : kDefinitions) // a bad --cfg value is refused as it is set, naming the option
    simgrid::config::declare_flag<std::string>(definition.key, definition.description, definition.fallback,
                                               [&definition](const std::string& text) {
                                                 Parameters scratch{};
                                                 definition.read(scratch, Value(text));
                                               });
}

Parameters Parameters::from_flags()
{
  Parameters p{};
  read_all(p, current);
  check_together(p);
  return p;
}

Parameters Parameters::defaults()
{
  Parameters p{};
  read_all(p, [](const Definition& definition) { return std::string(definition.fallback); });
  return p;
}

std::vector<ParameterInfo> Parameters::describe()
{
  std::vector<ParameterInfo> all;
  for (auto const& definition : kDefinitions) {
    if (definition.listed == Listed::No)
      continue;
    std::string value = current(definition);
    if (definition.shape == Shape::Number)
      value = number(std::strtod(value.c_str(), nullptr));
    else if (definition.shape == Shape::Switch)
      value = Value(value).yes_no() ? "yes" : "no";
    // The kind follows from the value: a number, a yes/no switch, or a word.
    char* end         = nullptr;
    bool whole_number = not value.empty() && (std::strtod(value.c_str(), &end), *end == '\0');
    auto kind         = value == "yes" || value == "no" ? ParameterInfo::Kind::Switch
                        : whole_number                  ? ParameterInfo::Kind::Number
                                                        : ParameterInfo::Kind::Word;
    std::string key = definition.key;
    all.push_back({key.substr(key.find('/') + 1), std::move(value), definition.unit, definition.description, kind});
  }
  return all;
}

} // namespace progsim
