/* How the flows that cross a NUMA domain's memory bus share it: the interface of a contention policy. The engine
 * owns it; each policy is one file of models/contention, which registers it. */
#pragma once

#include "config/Parameters.hpp"
#include "config/Registry.hpp"

#include <simgrid/s4u/Link.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace progsim::models::contention {

/** Who moves bytes through a memory bus: a core (a computation's stream, a copy) or a NIC (the DMA of a
 * network transfer). */
enum class BusUser : uint8_t { Core, Nic };

/**
 * One contention policy. Every flow on a bus is a SimGrid transfer of its domain to itself, so SimGrid's max-min
 * solver shares the bus between them, at each change of load, equally per transfer (they all cross the same route,
 * hence weigh the same), or BusShares computes that same sharing where only those flows cross the bus. A policy
 * bends that sharing in the two ways SimGrid 3.32 offers without touching its kernel: it carries one user's flow as
 * several equal transfers (a weight), and it may give a bus a capacity that depends on how many flows cross it (a
 * non-linear sharing callback).
 */
class BusPolicy {
public:
  virtual ~BusPolicy() = default;
  virtual std::string_view name() const = 0;
  /** Equal transfers that carry one flow of `user`: its weight against the bus's other flows. */
  virtual int transfers_per_flow(BusUser) const { return 1; }
  /** Called for every memory bus once the platform is loaded. */
  virtual void configure(simgrid::s4u::Link&) const {}
};

/** A policy as the engine knows it, registered by its own file (models/contention/<name>.cpp). */
struct PolicyKind {
  std::string name; // what progsim/contention takes
  int position = 0; // where lists show it, first to last
  std::function<std::unique_ptr<BusPolicy>(const MemorySettings&)> make;
};

/** Makes a policy known: one static object in the policy's file. */
using RegisterPolicy = Registration<PolicyKind>;
/** Every policy this engine was built with, by position (then name). */
inline std::vector<const PolicyKind*> bus_policy_kinds()
{
  return Registry<PolicyKind>::listed();
}
/** Builds the policy that progsim/contention names; throws std::invalid_argument naming the known ones otherwise. */
inline std::unique_ptr<BusPolicy> make_bus_policy(const MemorySettings& settings)
{
  return Registry<PolicyKind>::named(settings.contention, "progsim/contention: unknown policy").make(settings);
}

} // namespace progsim::models::contention
