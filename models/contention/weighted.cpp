/* weighted: the NIC's DMA weighs `nic-bus-weight` core streams on the bus (more than one when the memory
 * controller favours the I/O agent, less when it starves it). SimGrid shares a bus equally per transfer, so a weight
 * w = p/q carries a DMA flow as p equal transfers and each core's stream as q: the closest ratio with q <= 4
 * (1.5 = 3/2, 0.3 ~ 1/3), the smaller q on a tie. */
#include "resources/BusPolicy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace progsim::models::contention {

namespace {
class Weighted : public BusPolicy {
public:
  explicit Weighted(double weight)
  {
    double best = std::numeric_limits<double>::infinity();
    for (int core = 1; core <= 4; core++) {
      int nic      = std::max(1, static_cast<int>(std::lround(weight * core)));
      double error = std::fabs(static_cast<double>(nic) / core - weight);
      if (error < best - 1e-12) {
        best  = error;
        nic_  = nic;
        core_ = core;
      }
    }
  }
  std::string_view name() const override { return "weighted"; }
  int transfers_per_flow(BusUser user) const override { return user == BusUser::Nic ? nic_ : core_; }

private:
  int nic_  = 1;
  int core_ = 1;
};
} // namespace

std::unique_ptr<BusPolicy> make_weighted(const MemorySettings& settings)
{
  double weight = settings.nic_bus_weight;
  if (not(weight > 0) || not std::isfinite(weight) || weight > 64 || weight < 0.25)
    throw std::invalid_argument("progsim/nic-bus-weight: expected a weight between 1/4 and 64, got " +
                                std::to_string(weight));
  return std::make_unique<Weighted>(weight);
}

namespace {
const RegisterPolicy registration{{"weighted", 2, make_weighted}};
} // namespace

} // namespace progsim::models::contention
