#include "Placement.hpp"
#include "resources/HostsByName.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <charconv>
#include <fstream>
#include <map>

namespace sg4 = simgrid::s4u;

namespace progsim {

mpi::Placement read_placement(const std::string& hostfile, int ranks)
{
  std::ifstream in(hostfile);
  if (not in)
    throw InputError(hostfile + ": cannot open the hostfile");
  const resources::HostsByName hosts;
  std::vector<sg4::Host*> listed;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    number++;
    auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#')
      continue;
    auto last       = line.find_last_not_of(" \t\r");
    std::string entry = line.substr(first, last - first + 1);
    int count         = 1;
    if (auto colon = entry.rfind(':'); colon != std::string::npos) {
      auto text        = entry.substr(colon + 1);
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
      if (error != std::errc() || end != text.data() + text.size() || count < 1)
        throw InputError(hostfile + ":" + std::to_string(number) + ": expected 'host' or 'host:count', got '" +
                         entry + "'");
      entry = entry.substr(0, colon);
    }
    sg4::Host* host = hosts.find(entry);
    if (host == nullptr)
      throw InputError(hostfile + ":" + std::to_string(number) + ": host '" + entry + "' is not in the platform");
    for (int i = 0; i < count; i++)
      listed.push_back(host);
  }
  if (static_cast<int>(listed.size()) < ranks)
    throw InputError(hostfile + ": places " + std::to_string(listed.size()) + " ranks but the trace has " +
                     std::to_string(ranks) + " (one hostfile entry per rank is needed)");
  listed.resize(ranks); // as smpirun: the first entries, when the hostfile has more

  mpi::Placement placement;
  placement.hosts = listed;
  std::map<std::string, int> node_index;
  for (auto* host : listed) {
    const char* node = host->get_property("progsim:node");
    std::string name = node ? node : host->get_name();
    auto [it, _]     = node_index.emplace(name, static_cast<int>(node_index.size()));
    placement.node.push_back(it->second);
  }
  return placement;
}

} // namespace progsim
