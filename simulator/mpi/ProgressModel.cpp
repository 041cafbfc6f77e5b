#include "mpi/ProgressModel.hpp"
#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace progsim::models::progress {

void ProgressModel::compute(mpi::Endpoint& endpoint, double flops, const resources::BusTraffic& stream)
{
  if (stream.empty() && endpoint.runs_ahead()) // CPU work alone, on a core of its own: the rank's clock runs ahead
    endpoint.spend(flops / endpoint.host()->get_speed());
  else
    endpoint.world().compute(endpoint.host(), flops, stream);
}

namespace {
std::vector<ProgressKind>& registered() // filled before main(), by the mechanisms' files, in no particular order
{
  static std::vector<ProgressKind> kinds;
  return kinds;
}
} // namespace

RegisterProgress::RegisterProgress(ProgressKind kind)
{
  registered().push_back(std::move(kind));
}

std::vector<const ProgressKind*> progress_kinds()
{
  std::vector<const ProgressKind*> kinds;
  for (auto const& kind : registered())
    kinds.push_back(&kind);
  std::sort(kinds.begin(), kinds.end(), [](const ProgressKind* a, const ProgressKind* b) {
    return std::tie(a->position, a->name) < std::tie(b->position, b->name);
  });
  return kinds;
}

std::unique_ptr<ProgressModel> make_progress_model(const Parameters& parameters)
{
  std::string known;
  for (const ProgressKind* kind : progress_kinds()) {
    if (kind->name == parameters.progress)
      return kind->make(parameters);
    known += (known.empty() ? "" : ", ") + kind->name;
  }
  throw std::invalid_argument("unknown progress mechanism '" + parameters.progress + "' (expected one of: " + known +
                              ")");
}

} // namespace progsim::models::progress
