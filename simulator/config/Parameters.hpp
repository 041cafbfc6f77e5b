/* Every model parameter of a run: a SimGrid configuration flag with a name, a unit, a default and a meaning. */
#pragma once

#include "config/Transport.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace progsim {

/** One parameter as reported in the results' metadata. */
struct ParameterInfo {
  enum class Kind : uint8_t { Number, Switch, Word };
  std::string name;
  std::string value;
  std::string unit;
  std::string description;
  Kind kind = Kind::Word;
};

/** How memory buses carry the bytes that cores and NICs move (resources/MemorySystem, the contention
 * policies). */
struct MemorySettings {
  double compute_intensity{};      // flop/B of computations whose trace gives no bytes (0: no traffic)
  bool copy_loads_bus{};           // a copy's bytes also cross its NUMA domain's memory bus
  bool dma_loads_bus{};            // NIC transfers load the buses of their data's domains (DMA)
  bool loaded_latency{};           // streams that ask more than a bus delivers lengthen its latency
  int64_t cached_message_bytes{};  // messages up to this size do not wait for their copies and DMA
  std::string contention{};        // fair | weighted | calibrated: how flows share a memory bus
  double nic_bus_weight{};         // core streams a NIC's DMA flow weighs on the bus
  std::string bus_curve{};         // calibrated: "flows:B/s;..." the bus's capacity with n flows
  std::string data_numa{};         // local | nic | a domain number: where each rank's data lives
  std::string bus_sharing{};       // memory buses' flows: SimGrid transfers, or closed-form (BusShares)
};

/** The progress threads of `thread`. */
struct ThreadSettings {
  double poll_interval{};  // s between two polls of a progress thread
  double poll_cost{};      // CPU s of one poll
  double sched_quantum{};  // s: a thread woken on a busy core waits for the next time slice
  bool spare_core{};       // progress threads are pinned to cores the ranks do not use
  bool busy{};             // each thread spins on its rank's core (time slices in turn)
};

/** The reserved cores of `dedicated-core`. */
struct DedicatedSettings {
  std::string per{};   // node | numa
  int cores{};         // cores reserved per node or per domain
  double step_cost{};  // s of one step on a dedicated core
};

/** The NIC of `offload`. */
struct OffloadSettings {
  double step_latency{};          // s of one step executed by the NIC
  double collective_latency{};    // s of a collective run by the network in hardware
  double collective_bandwidth{};  // B/s at which it streams its bytes
  bool intra_node{};              // messages inside a node go through the NIC (not shared memory)
};

/** The run's parameters: a snapshot of the flags, read once the command line is parsed. Each is defined once, with
 * its default, unit and meaning, in Parameters.cpp; the fields here start at zero, not at a default of their own. */
struct Parameters {
  std::string progress{};                 // none | thread | dedicated-core | offload | ideal
  TransportProtocol network{};
  TransportProtocol shared_memory{};
  double send_overhead{};                 // CPU s spent by the sender when it posts a message
  double recv_overhead{};                 // CPU s spent by the receiver when it posts a receive
  double step_overhead{};                 // CPU s of each protocol step (match, RTS, CTS, FIN, fragment)
  double call_overhead{};                 // CPU s of a wait or test call, even with nothing to do
  double copy_bandwidth{};                // B/s one core copies (eager buffers, shared-memory single copies)
  std::string nbc_algorithms{};           // "ibcast:binomial;...": non-blocking collectives run round by round
  std::string coll_algorithms{};          // "bcast:binomial_tree;...": blocking collectives' algorithms
  int64_t buffered_send_threshold{};      // blocking sends below this complete once copied (0: strict MPI)
  bool rank_progress_every_call{};        // the rank runs its own steps in every MPI call, not only wait/test
  bool poll_in_wait{};                    // a rank waiting in MPI polls (keeps its core busy)
  int pipeline_depth{};                   // fragments of a pipelined rendezvous in flight at once
  int64_t control_bytes{};                // size of a control message (RTS, CTS, FIN)
  bool control_transfers{};               // control messages are transfers (else an idle route's time)
  bool loopback_transfers{};              // messages over loopback links are transfers (else their route's time)
  bool run_ahead{};                       // a rank's CPU work on a core of its own runs ahead of SimGrid's clock
  bool steps_in_kernel{};                 // a rank's steps in its waits on shared cores are run by the kernel
  int64_t small_flow_bytes{};             // a message's flows up to this size take their idle route's time
  int64_t envelope_bytes{};               // header added to every message, as SMPI does
  int64_t detached_threshold{};           // direct protocol: sends below this complete at once
  double smpi_test_sleep{};               // direct protocol: SMPI's injected cost of MPI_Test
  MemorySettings memory{};
  ThreadSettings thread{};
  DedicatedSettings dedicated{};
  OffloadSettings offload{};
  std::string out{};                      // results file
  std::string timeline{};                 // event timeline file (JSON lines)
  std::string platform_source{};          // what the platform XML was compiled from

  static Parameters from_flags();
  /** Every parameter at its default (what from_flags gives when no flag is set). */
  static Parameters defaults();
  /** Every flag with its value, unit and description, in a fixed order. */
  static std::vector<ParameterInfo> describe();
};

/** Declares the flags; must run before SimGrid parses the command line. */
void declare_parameters();

} // namespace progsim
