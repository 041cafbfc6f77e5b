/* The platform's hosts, found by name. */
#pragma once

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <string>
#include <unordered_map>

namespace progsim::resources {

/**
 * Every host of the platform, by name, read in one pass over it. SimGrid 3.32's Engine::host_by_name_or_null
 * searches the platform's zones one after the other, and a compiled platform has a zone per NUMA domain: looking up
 * each rank's host (the hostfile) and each domain's memory that way was quadratic in the number of nodes (4 096
 * ranks on 256 nodes: 17 152 look-ups, 0.34 G instructions; 256 times as many at 65 536 ranks).
 */
class HostsByName {
public:
  HostsByName()
  {
    for (simgrid::s4u::Host* host : simgrid::s4u::Engine::get_instance()->get_all_hosts())
      hosts_.emplace(host->get_name(), host);
  }

  /** The host of that name, or null. */
  simgrid::s4u::Host* find(const std::string& name) const
  {
    auto it = hosts_.find(name);
    return it == hosts_.end() ? nullptr : it->second;
  }
  /** The same for a host property's value: null too when the property is missing. */
  simgrid::s4u::Host* find(const char* name) const { return name == nullptr ? nullptr : find(std::string(name)); }

private:
  std::unordered_map<std::string, simgrid::s4u::Host*> hosts_;
};

} // namespace progsim::resources
