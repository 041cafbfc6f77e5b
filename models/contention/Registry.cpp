/* The table of contention policies: adding one means adding its file and one line here. */
#include "resources/BusPolicy.hpp"

#include <stdexcept>
#include <utility>

namespace progsim::models::contention {

std::unique_ptr<BusPolicy> make_fair(const MemorySettings&);
std::unique_ptr<BusPolicy> make_weighted(const MemorySettings&);
std::unique_ptr<BusPolicy> make_calibrated(const MemorySettings&);

namespace {
using Factory = std::unique_ptr<BusPolicy> (*)(const MemorySettings&);
const std::vector<std::pair<std::string, Factory>>& factories()
{
  static const std::vector<std::pair<std::string, Factory>> table = {
      {"fair", make_fair}, {"weighted", make_weighted}, {"calibrated", make_calibrated}};
  return table;
}
} // namespace

std::unique_ptr<BusPolicy> make_bus_policy(const MemorySettings& settings)
{
  for (auto const& [name, factory] : factories())
    if (name == settings.contention)
      return factory(settings);
  std::string known;
  for (auto const& name : bus_policy_names())
    known += (known.empty() ? "" : ", ") + name;
  throw std::invalid_argument("progsim/contention: unknown policy '" + settings.contention + "' (expected one of: " +
                              known + ")");
}

std::vector<std::string> bus_policy_names()
{
  std::vector<std::string> names;
  for (auto const& entry : factories())
    names.push_back(entry.first);
  return names;
}

} // namespace progsim::models::contention
