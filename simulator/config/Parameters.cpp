#include "config/Parameters.hpp"

#include <xbt/config.hpp>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <initializer_list>
#include <stdexcept>
#include <memory>
#include <sstream>

namespace progsim {

namespace {

using simgrid::config::Flag;

/** A flag's name, unit and meaning, kept in one place for --help and for the results' metadata. */
struct Spec {
  const char* key;
  const char* unit;
  const char* description;
};

constexpr Spec k_progress{"progsim/progress", "", "Progress mechanism: none, thread, dedicated-core, offload or ideal"};
constexpr Spec k_eager_threshold{"progsim/eager-threshold", "B", "Bytes: messages between nodes smaller than this use the eager protocol"};
constexpr Spec k_rendezvous{"progsim/rendezvous", "", "Rendezvous between nodes: get, put or pipelined"};
constexpr Spec k_fragment{"progsim/fragment-size", "B", "Bytes per fragment of the pipelined rendezvous"};
constexpr Spec k_shm_eager{"progsim/shm-eager-threshold", "B", "Bytes: messages inside a node smaller than this use the eager protocol"};
constexpr Spec k_shm_rendezvous{"progsim/shm-rendezvous", "", "Rendezvous inside a node: get, put or pipelined"};
constexpr Spec k_shm_fragment{"progsim/shm-fragment-size", "B", "Bytes per fragment of the pipelined rendezvous in a node"};
constexpr Spec k_send_overhead{"progsim/overhead-send", "s", "CPU seconds a sender spends posting a message"};
constexpr Spec k_recv_overhead{"progsim/overhead-recv", "s", "CPU seconds a receiver spends posting a receive"};
constexpr Spec k_step_overhead{"progsim/overhead-step", "s", "CPU seconds of one protocol step (match, request/clear-to-send, finish, fragment)"};
constexpr Spec k_call_overhead{"progsim/overhead-call", "s", "CPU seconds of one wait or test call, even when nothing is pending"};
constexpr Spec k_intensity{"progsim/compute-intensity", "flop/B", "Arithmetic intensity of computations whose trace line gives no byte count: they move flops / intensity bytes through their NUMA domain's memory bus (0: none, cache-resident)"};
constexpr Spec k_copy_bandwidth{"progsim/copy-bandwidth", "B/s", "Bytes per second one core copies (eager buffers at both ends, shared-memory single copies)"};
constexpr Spec k_copy_bus{"progsim/copy-loads-bus", "", "A copy's bytes also cross its NUMA domain's memory bus, twice (yes or no; no spares SimGrid two transfers per eager message)"};
constexpr Spec k_dma_bus{"progsim/dma-loads-bus", "", "A NIC's transfer also crosses the memory bus of the NUMA domain that holds its data, at each end, as a DMA flow that shares the bus with the cores (auto: yes under every mechanism but ideal, whose SMPI model has no DMA; yes; no)"};
constexpr Spec k_loaded_latency{"progsim/loaded-latency", "", "Computations that ask a memory for more than its bus delivers lengthen its latency for every access, messages included: idle latency x demand / bandwidth (Little's law; yes or no)"};
constexpr Spec k_cached{"progsim/cached-message-bytes", "B", "Messages up to this size live in the caches (the MPI library's reused buffers; the NIC reaches the last-level cache, Intel DDIO): their copies and DMA still load the memory bus, as write-backs, but the message does not wait for them (0: every message waits for its memory traffic)"};
constexpr Spec k_contention{"progsim/contention", "", "How the flows on a memory bus share it: fair (an equal share per flow), weighted (a NIC's DMA weighs nic-bus-weight core streams) or calibrated (the bus's capacity follows bus-curve as flows are added)"};
constexpr Spec k_nic_weight{"progsim/nic-bus-weight", "", "weighted, calibrated: how many core streams a NIC's DMA flow weighs on the bus, from 1/4 to 64 (as a ratio p/q with q <= 4)"};
constexpr Spec k_bus_curve{"progsim/bus-curve", "", "calibrated: the bus's total bandwidth with n flows, as 'n:B/s;n:B/s' (a STREAM scaling curve), interpolated"};
constexpr Spec k_data_numa{"progsim/data-numa", "", "Where each rank's data lives (its computations' streams, its copies, the NIC's DMA of its messages): local (its own NUMA domain), nic (the domain of its node's NIC) or a domain number of its node"};
constexpr Spec k_nbc{"progsim/nbc-algorithms", "", "Non-blocking collectives that run a round-by-round algorithm instead of SMPI's own (all messages at once), as 'collective:algorithm;...': ibarrier:dissemination, ibcast:binomial, iallreduce:recursive-doubling, ialltoall:pairwise, ... or the selector libnbc (empty: SMPI's for all)"};
constexpr Spec k_coll{"progsim/coll-algorithms", "", "Blocking collectives that run another algorithm than SMPI's default selection, as 'collective:algorithm;...' with SMPI's names where it has them (bcast:binomial_tree, bcast:scatter_LR_allgather, allreduce:rdb, allreduce:rab_rdb, alltoall:pair, allgather:ring, barrier:ompi_bruck, ...), or the selector mpich (empty: SMPI's default for all)"};
constexpr Spec k_buffered{"progsim/buffered-send-threshold", "B", "Blocking sends below this complete once copied, as in the MPI that captured the trace (SMPI: 65536); 0 for strict MPI semantics"};
constexpr Spec k_progress_calls{"progsim/rank-progress", "", "Where a rank runs its own protocol steps: wait (wait and test calls only) or every-call"};
constexpr Spec k_poll_in_wait{"progsim/poll-in-wait", "", "A rank waiting in MPI polls and keeps using its core, as Open MPI and MPICH do by default (yes or no): on a host with more ranks and threads than cores it takes CPU from the others"};
constexpr Spec k_pipeline_depth{"progsim/pipeline-depth", "fragments", "Fragments of a pipelined rendezvous in flight at once"};
constexpr Spec k_control_bytes{"progsim/control-bytes", "B", "Bytes of a control message (RTS, CTS, FIN)"};
constexpr Spec k_steps_in_kernel{"progsim/steps-in-kernel", "", "A rank blocked in a wait on a host whose cores are shared has the protocol steps it runs meanwhile run by SimGrid's kernel, each step's CPU work an execution whose end has the step take effect, and the rank's actor parks once for the wait (yes: fewer actor switches, a faster replay; same-date events may run in another order), or runs each step itself, parking for each (no)"};
constexpr Spec k_bus_sharing{"progsim/bus-sharing", "", "How the flows on a memory bus share it: as SimGrid transfers that its max-min solver shares (simgrid), or in closed form where only flows to that memory cross the bus (closed-form: the same ends within 1 ns, no transfer, a faster replay)"};
constexpr Spec k_run_ahead{"progsim/run-ahead", "", "A rank whose core nobody else uses and whose steps nobody else runs (none, offload without offloads) lets its CPU work run ahead of SimGrid's clock until it next looks at arrivals, with one pause for all of it (yes: exact, fewer actor switches, a faster replay), or pauses for each overhead and computation (no)"};
constexpr Spec k_loopback_transfers{"progsim/loopback-transfers", "", "Messages between two ranks of a host, over links that the platform marks as its loopback, are SimGrid transfers (yes), or arrive after the time their route takes them, computed from SimGrid's network model (no: exact, since nothing else crosses those links; fewer transfers, a faster replay; transfers anyway under network models other than SMPI, CM02 and LV08)"};
constexpr Spec k_control_transfers{"progsim/control-transfers", "", "Control messages are SimGrid transfers that share the links' bandwidth with the data (yes), or arrive after the time their route takes them when idle, computed from SimGrid's network model (no: fewer transfers, a faster replay; transfers anyway under network models other than SMPI, CM02 and LV08)"};
constexpr Spec k_small_flows{"progsim/small-flow-bytes", "B", "A message's flows of at most this many bytes (its transfer, its DMA, its copies' bus traffic) take the time their route takes them when idle, computed from SimGrid's network model, and load no link, as control messages do (auto: twice control-bytes, so that a message no larger than a control message has every flow dated, its copies' read and write traffic included, under every mechanism but ideal, whose transfers are SMPI's; 0: every flow is shared; flows anyway under network models other than SMPI, CM02 and LV08)"};
constexpr Spec k_envelope_bytes{"progsim/envelope-bytes", "B", "Bytes of header added to every message (SMPI adds 16)"};
constexpr Spec k_detached{"progsim/detached-threshold", "B", "ideal: sends smaller than this complete at once (SMPI's smpi/send-is-detached-thresh)"};
constexpr Spec k_smpi_test{"progsim/smpi-test-sleep", "s", "ideal: seconds injected per MPI_Test, growing while tests fail (SMPI's smpi/test)"};
constexpr Spec k_poll_interval{"progsim/thread-poll-interval", "s", "thread: seconds between two polls of the progress thread"};
constexpr Spec k_poll_cost{"progsim/thread-poll-cost", "s", "thread: CPU seconds of one poll"};
constexpr Spec k_quantum{"progsim/sched-quantum", "s", "thread: a progress thread woken on a busy core waits for the next time slice of this length"};
constexpr Spec k_spare_core{"progsim/thread-spare-core", "", "thread: progress threads are pinned to cores the ranks do not use (yes or no)"};
constexpr Spec k_busy{"progsim/thread-busy", "", "thread: each thread spins on its rank's core, as MPICH's asynchronous progress thread does (yes or no): while the rank computes, the OS gives them sched-quantum time slices in turn"};
constexpr Spec k_dedicated_per{"progsim/dedicated-per", "", "dedicated-core: one progress core per node or per numa domain"};
constexpr Spec k_dedicated_cores{"progsim/dedicated-cores", "cores", "dedicated-core: cores reserved per node or numa domain"};
constexpr Spec k_dedicated_step{"progsim/dedicated-step-cost", "s", "dedicated-core: seconds of one step on the progress core"};
constexpr Spec k_offload_latency{"progsim/offload-step-latency", "s", "offload: seconds of one protocol step run by the NIC"};
constexpr Spec k_offload_coll_latency{"progsim/offload-collective-latency", "s", "offload: a NIC that offloads collectives runs barrier, bcast, reduce and allreduce in the network, in this time plus the bytes over offload-collective-bandwidth, from the last rank's arrival on, for any rank count"};
constexpr Spec k_offload_coll_bandwidth{"progsim/offload-collective-bandwidth", "B/s", "offload: the bandwidth at which a collective run in the network streams its bytes"};
constexpr Spec k_offload_intra{"progsim/offload-intra-node", "", "offload: messages inside a node go through the NIC instead of shared memory (yes or no)"};
constexpr Spec k_out{"progsim/out", "", "Results file (JSON)"};
constexpr Spec k_timeline{"progsim/timeline", "", "Event timeline file (JSON lines), empty for none"};
constexpr Spec k_platform_source{"progsim/platform-source", "", "What the platform was compiled from (recorded in the results)"};

struct Flags {
  Flag<std::string> progress{k_progress.key, k_progress.description, "none"};
  Flag<double> eager_threshold{k_eager_threshold.key, k_eager_threshold.description, 65536.0};
  Flag<std::string> rendezvous{k_rendezvous.key, k_rendezvous.description, "get"};
  Flag<double> fragment{k_fragment.key, k_fragment.description, 131072.0};
  Flag<double> shm_eager{k_shm_eager.key, k_shm_eager.description, 4096.0};
  Flag<std::string> shm_rendezvous{k_shm_rendezvous.key, k_shm_rendezvous.description, "get"};
  Flag<double> shm_fragment{k_shm_fragment.key, k_shm_fragment.description, 131072.0};
  Flag<double> send_overhead{k_send_overhead.key, k_send_overhead.description, 5e-7};
  Flag<double> recv_overhead{k_recv_overhead.key, k_recv_overhead.description, 5e-7};
  Flag<double> step_overhead{k_step_overhead.key, k_step_overhead.description, 2e-7};
  Flag<double> call_overhead{k_call_overhead.key, k_call_overhead.description, 1e-7};
  Flag<double> copy_bandwidth{k_copy_bandwidth.key, k_copy_bandwidth.description, 1e10};
  Flag<double> intensity{k_intensity.key, k_intensity.description, 0.0};
  Flag<bool> copy_bus{k_copy_bus.key, k_copy_bus.description, true};
  Flag<std::string> dma_bus{k_dma_bus.key, k_dma_bus.description, "auto"};
  Flag<bool> loaded_latency{k_loaded_latency.key, k_loaded_latency.description, true};
  Flag<double> cached{k_cached.key, k_cached.description, 0.0};
  Flag<std::string> contention{k_contention.key, k_contention.description, "fair"};
  Flag<double> nic_weight{k_nic_weight.key, k_nic_weight.description, 1.0};
  Flag<std::string> bus_curve{k_bus_curve.key, k_bus_curve.description, ""};
  Flag<std::string> data_numa{k_data_numa.key, k_data_numa.description, "local"};
  Flag<std::string> nbc{k_nbc.key, k_nbc.description, ""};
  Flag<std::string> coll{k_coll.key, k_coll.description, ""};
  Flag<double> buffered{k_buffered.key, k_buffered.description, 65536.0};
  Flag<std::string> progress_calls{k_progress_calls.key, k_progress_calls.description, "wait"};
  Flag<bool> poll_in_wait{k_poll_in_wait.key, k_poll_in_wait.description, true};
  Flag<int> pipeline_depth{k_pipeline_depth.key, k_pipeline_depth.description, 3};
  Flag<double> control_bytes{k_control_bytes.key, k_control_bytes.description, 64.0};
  Flag<bool> control_transfers{k_control_transfers.key, k_control_transfers.description, false};
  Flag<bool> loopback_transfers{k_loopback_transfers.key, k_loopback_transfers.description, false};
  Flag<bool> run_ahead{k_run_ahead.key, k_run_ahead.description, true};
  Flag<bool> steps_in_kernel{k_steps_in_kernel.key, k_steps_in_kernel.description, true};
  Flag<std::string> bus_sharing{k_bus_sharing.key, k_bus_sharing.description, "closed-form"};
  Flag<std::string> small_flows{k_small_flows.key, k_small_flows.description, "auto"};
  Flag<double> envelope_bytes{k_envelope_bytes.key, k_envelope_bytes.description, 16.0};
  Flag<double> detached{k_detached.key, k_detached.description, 65536.0};
  Flag<double> smpi_test{k_smpi_test.key, k_smpi_test.description, 1e-4};
  Flag<double> poll_interval{k_poll_interval.key, k_poll_interval.description, 1e-6};
  Flag<double> poll_cost{k_poll_cost.key, k_poll_cost.description, 1e-7};
  Flag<double> quantum{k_quantum.key, k_quantum.description, 3e-3};
  Flag<bool> spare_core{k_spare_core.key, k_spare_core.description, false};
  Flag<bool> busy{k_busy.key, k_busy.description, false};
  Flag<std::string> dedicated_per{k_dedicated_per.key, k_dedicated_per.description, "node"};
  Flag<int> dedicated_cores{k_dedicated_cores.key, k_dedicated_cores.description, 1};
  Flag<double> dedicated_step{k_dedicated_step.key, k_dedicated_step.description, 2e-7};
  Flag<double> offload_latency{k_offload_latency.key, k_offload_latency.description, 5e-7};
  Flag<bool> offload_intra{k_offload_intra.key, k_offload_intra.description, false};
  Flag<double> offload_coll_latency{k_offload_coll_latency.key, k_offload_coll_latency.description, 5e-6};
  Flag<double> offload_coll_bandwidth{k_offload_coll_bandwidth.key, k_offload_coll_bandwidth.description, 1e10};
  Flag<std::string> out{k_out.key, k_out.description, ""};
  Flag<std::string> timeline{k_timeline.key, k_timeline.description, ""};
  Flag<std::string> platform_source{k_platform_source.key, k_platform_source.description, ""};
};

std::unique_ptr<Flags> flags;

std::string number(double value)
{
  std::ostringstream text;
  text << std::setprecision(12) << value;
  return text.str();
}

} // namespace

void declare_parameters()
{
  if (not flags)
    flags = std::make_unique<Flags>();
}

namespace {
/** A duration, rate or count from a flag: a finite number, not negative (positive if `positive`). */
double checked(const Spec& spec, double value, bool positive = false)
{
  if (not std::isfinite(value) || value < 0 || (positive && value == 0))
    throw std::invalid_argument(std::string(spec.key) + ": expected a finite " +
                                (positive ? "positive" : "non-negative") + " number, got " + number(value));
  return value;
}

/** A byte count from a flag: a whole number of bytes that fits the engine's 64-bit sizes. */
int64_t bytes(const Spec& spec, double value, bool positive = false)
{
  checked(spec, value, positive);
  if (value > 1e18 || value != std::floor(value))
    throw std::invalid_argument(std::string(spec.key) + ": expected a whole number of bytes up to 1e18, got " +
                                number(value));
  return static_cast<int64_t>(value);
}

/** progsim/small-flow-bytes: a byte count, or auto (twice control-bytes: a message of a control message's size has
 * its copies' 2 x bytes of bus traffic dated too; none under ideal, whose transfers are SMPI's). */
int64_t parse_small_flow_bytes(const std::string& value, const Parameters& p)
{
  if (value == "auto")
    return p.progress == "ideal" ? 0 : 2 * p.control_bytes;
  char* end   = nullptr;
  double size = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size())
    throw std::invalid_argument(std::string(k_small_flows.key) + ": expected auto or a number of bytes, got '" +
                                value + "'");
  return bytes(k_small_flows, size);
}

std::string choice(const Spec& spec, const std::string& value, std::initializer_list<const char*> allowed)
{
  std::string known;
  for (const char* name : allowed) {
    if (value == name)
      return value;
    known += (known.empty() ? "" : ", ") + std::string(name);
  }
  throw std::invalid_argument(std::string(spec.key) + ": expected one of " + known + ", got '" + value + "'");
}
} // namespace

Parameters Parameters::from_flags()
{
  auto const& f = *flags;
  Parameters p;
  p.progress                      = f.progress.get();
  p.network.eager_threshold       = bytes(k_eager_threshold, f.eager_threshold.get());
  p.network.rendezvous            = parse_rendezvous(choice(k_rendezvous, f.rendezvous.get(), {"get", "put", "pipelined"}));
  p.network.fragment_size         = bytes(k_fragment, f.fragment.get(), true);
  p.shared_memory.eager_threshold = bytes(k_shm_eager, f.shm_eager.get());
  p.shared_memory.rendezvous      = parse_rendezvous(choice(k_shm_rendezvous, f.shm_rendezvous.get(), {"get", "put", "pipelined"}));
  p.shared_memory.fragment_size   = bytes(k_shm_fragment, f.shm_fragment.get(), true);
  p.send_overhead                 = checked(k_send_overhead, f.send_overhead.get());
  p.recv_overhead                 = checked(k_recv_overhead, f.recv_overhead.get());
  p.step_overhead                 = checked(k_step_overhead, f.step_overhead.get());
  p.call_overhead                 = checked(k_call_overhead, f.call_overhead.get());
  p.copy_bandwidth                = checked(k_copy_bandwidth, f.copy_bandwidth.get(), true);
  p.compute_intensity             = checked(k_intensity, f.intensity.get());
  p.copy_loads_bus                = f.copy_bus.get();
  std::string dma_bus             = choice(k_dma_bus, f.dma_bus.get(), {"auto", "yes", "no"});
  p.dma_loads_bus                 = dma_bus == "yes" || (dma_bus == "auto" && p.progress != "ideal");
  p.loaded_latency                = f.loaded_latency.get();
  p.cached_message_bytes          = bytes(k_cached, f.cached.get());
  p.contention                    = f.contention.get();
  p.nic_bus_weight                = checked(k_nic_weight, f.nic_weight.get(), true);
  p.bus_curve                     = f.bus_curve.get();
  p.data_numa                     = f.data_numa.get();
  if (p.data_numa != "local" && p.data_numa != "nic" &&
      (p.data_numa.empty() || p.data_numa.size() > 4 ||
       p.data_numa.find_first_not_of("0123456789") != std::string::npos))
    throw std::invalid_argument(std::string(k_data_numa.key) + ": expected local, nic or a NUMA domain number, got '" +
                                p.data_numa + "'");
  p.nbc_algorithms                = f.nbc.get();
  p.coll_algorithms               = f.coll.get();
  p.buffered_send_threshold       = bytes(k_buffered, f.buffered.get());
  p.rank_progress_every_call = choice(k_progress_calls, f.progress_calls.get(), {"wait", "every-call"}) == "every-call";
  p.poll_in_wait                  = f.poll_in_wait.get();
  p.control_transfers             = f.control_transfers.get();
  p.loopback_transfers            = f.loopback_transfers.get();
  p.run_ahead                     = f.run_ahead.get();
  p.steps_in_kernel               = f.steps_in_kernel.get();
  p.bus_sharing                   = choice(k_bus_sharing, f.bus_sharing.get(), {"simgrid", "closed-form"});
  p.pipeline_depth                = f.pipeline_depth.get();
  p.control_bytes                 = bytes(k_control_bytes, f.control_bytes.get());
  p.envelope_bytes                = bytes(k_envelope_bytes, f.envelope_bytes.get());
  p.small_flow_bytes              = parse_small_flow_bytes(f.small_flows.get(), p);
  p.detached_threshold            = bytes(k_detached, f.detached.get());
  p.smpi_test_sleep               = checked(k_smpi_test, f.smpi_test.get());
  p.thread_poll_interval          = checked(k_poll_interval, f.poll_interval.get());
  p.thread_poll_cost              = checked(k_poll_cost, f.poll_cost.get());
  p.sched_quantum                 = checked(k_quantum, f.quantum.get());
  p.thread_spare_core             = f.spare_core.get();
  p.thread_busy                   = f.busy.get();
  if (p.thread_busy && p.thread_spare_core)
    throw std::invalid_argument(std::string(k_busy.key) + ": a thread that spins on its rank's core cannot also have a "
                                "spare core of its own (" + k_spare_core.key + "); choose one");
  if (p.thread_busy && p.sched_quantum <= 0)
    throw std::invalid_argument(std::string(k_quantum.key) + ": a spinning thread (" + k_busy.key +
                                ") needs a positive time slice, got 0");
  p.dedicated_per                 = choice(k_dedicated_per, f.dedicated_per.get(), {"node", "numa"});
  p.dedicated_cores               = f.dedicated_cores.get();
  p.dedicated_step_cost           = checked(k_dedicated_step, f.dedicated_step.get());
  p.offload_step_latency          = checked(k_offload_latency, f.offload_latency.get());
  p.offload_collective_latency    = checked(k_offload_coll_latency, f.offload_coll_latency.get());
  p.offload_collective_bandwidth  = checked(k_offload_coll_bandwidth, f.offload_coll_bandwidth.get(), true);
  p.offload_intra_node            = f.offload_intra.get();
  p.out                           = f.out.get();
  p.timeline                      = f.timeline.get();
  p.platform_source               = f.platform_source.get();
  if (p.dedicated_cores < 1)
    throw std::invalid_argument(std::string(k_dedicated_cores.key) + ": expected at least 1 core");
  if (p.pipeline_depth < 1)
    throw std::invalid_argument(std::string(k_pipeline_depth.key) + ": expected at least 1 fragment");
  return p;
}

std::vector<ParameterInfo> Parameters::describe()
{
  auto const& f = *flags;
  auto info = [](const Spec& spec, std::string value) {
    std::string name = spec.key;
    // The kind follows from the value: a number, a yes/no switch, or a word.
    char* end         = nullptr;
    bool whole_number = not value.empty() && (std::strtod(value.c_str(), &end), *end == '\0');
    auto kind         = value == "yes" || value == "no" ? ParameterInfo::Kind::Switch
                        : whole_number                  ? ParameterInfo::Kind::Number
                                                        : ParameterInfo::Kind::Word;
    return ParameterInfo{name.substr(name.find('/') + 1), std::move(value), spec.unit, spec.description, kind};
  };
  return {
      info(k_progress, f.progress.get()),
      info(k_eager_threshold, number(f.eager_threshold.get())),
      info(k_rendezvous, f.rendezvous.get()),
      info(k_fragment, number(f.fragment.get())),
      info(k_shm_eager, number(f.shm_eager.get())),
      info(k_shm_rendezvous, f.shm_rendezvous.get()),
      info(k_shm_fragment, number(f.shm_fragment.get())),
      info(k_send_overhead, number(f.send_overhead.get())),
      info(k_recv_overhead, number(f.recv_overhead.get())),
      info(k_step_overhead, number(f.step_overhead.get())),
      info(k_call_overhead, number(f.call_overhead.get())),
      info(k_copy_bandwidth, number(f.copy_bandwidth.get())),
      info(k_intensity, number(f.intensity.get())),
      info(k_copy_bus, f.copy_bus.get() ? "yes" : "no"),
      info(k_dma_bus, f.dma_bus.get()),
      info(k_loaded_latency, f.loaded_latency.get() ? "yes" : "no"),
      info(k_cached, number(f.cached.get())),
      info(k_contention, f.contention.get()),
      info(k_nic_weight, number(f.nic_weight.get())),
      info(k_bus_curve, f.bus_curve.get()),
      info(k_data_numa, f.data_numa.get()),
      info(k_nbc, f.nbc.get()),
      info(k_coll, f.coll.get()),
      info(k_buffered, number(f.buffered.get())),
      info(k_progress_calls, f.progress_calls.get()),
      info(k_poll_in_wait, f.poll_in_wait.get() ? "yes" : "no"),
      info(k_pipeline_depth, std::to_string(f.pipeline_depth.get())),
      info(k_control_bytes, number(f.control_bytes.get())),
      info(k_control_transfers, f.control_transfers.get() ? "yes" : "no"),
      info(k_loopback_transfers, f.loopback_transfers.get() ? "yes" : "no"),
      info(k_run_ahead, f.run_ahead.get() ? "yes" : "no"),
      info(k_steps_in_kernel, f.steps_in_kernel.get() ? "yes" : "no"),
      info(k_bus_sharing, f.bus_sharing.get()),
      info(k_small_flows, f.small_flows.get()),
      info(k_envelope_bytes, number(f.envelope_bytes.get())),
      info(k_detached, number(f.detached.get())),
      info(k_smpi_test, number(f.smpi_test.get())),
      info(k_poll_interval, number(f.poll_interval.get())),
      info(k_poll_cost, number(f.poll_cost.get())),
      info(k_quantum, number(f.quantum.get())),
      info(k_spare_core, f.spare_core.get() ? "yes" : "no"),
      info(k_busy, f.busy.get() ? "yes" : "no"),
      info(k_dedicated_per, f.dedicated_per.get()),
      info(k_dedicated_cores, std::to_string(f.dedicated_cores.get())),
      info(k_dedicated_step, number(f.dedicated_step.get())),
      info(k_offload_latency, number(f.offload_latency.get())),
      info(k_offload_intra, f.offload_intra.get() ? "yes" : "no"),
      info(k_offload_coll_latency, number(f.offload_coll_latency.get())),
      info(k_offload_coll_bandwidth, number(f.offload_coll_bandwidth.get())),
  };
}

} // namespace progsim
