#include "resources/BusPolicy.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace progsim::models::contention {

namespace {
std::vector<PolicyKind>& registered() // filled before main(), by the policies' files, in no particular order
{
  static std::vector<PolicyKind> kinds;
  return kinds;
}
} // namespace

RegisterPolicy::RegisterPolicy(PolicyKind kind)
{
  registered().push_back(std::move(kind));
}

std::vector<const PolicyKind*> bus_policy_kinds()
{
  std::vector<const PolicyKind*> kinds;
  for (auto const& kind : registered())
    kinds.push_back(&kind);
  std::sort(kinds.begin(), kinds.end(), [](const PolicyKind* a, const PolicyKind* b) {
    return std::tie(a->position, a->name) < std::tie(b->position, b->name);
  });
  return kinds;
}

std::unique_ptr<BusPolicy> make_bus_policy(const MemorySettings& settings)
{
  std::string known;
  for (const PolicyKind* kind : bus_policy_kinds()) {
    if (kind->name == settings.contention)
      return kind->make(settings);
    known += (known.empty() ? "" : ", ") + kind->name;
  }
  throw std::invalid_argument("progsim/contention: unknown policy '" + settings.contention + "' (expected one of: " +
                              known + ")");
}

} // namespace progsim::models::contention
