/* weighted: the NIC's DMA weighs `nic-bus-weight` core streams on the bus (more than one when the memory
 * controller favours the I/O agent, less when it starves it). SimGrid shares a bus equally per transfer, so a weight
 * w >= 1 carries a DMA flow as round(w) equal transfers, and w < 1 carries each core's stream as round(1/w)
 * transfers instead: only whole ratios, which the policy's name in the results' metadata records as given. */
#include "mpi/BusPolicy.hpp"

#include <cmath>
#include <stdexcept>

namespace progsim::models::contention {

namespace {
class Weighted : public BusPolicy {
public:
  explicit Weighted(double weight)
      : nic_(weight >= 1 ? static_cast<int>(std::lround(weight)) : 1)
      , core_(weight < 1 ? static_cast<int>(std::lround(1 / weight)) : 1)
  {
  }
  std::string_view name() const override { return "weighted"; }
  int transfers_per_flow(BusUser user) const override { return user == BusUser::Nic ? nic_ : core_; }

private:
  int nic_;
  int core_;
};
} // namespace

std::unique_ptr<BusPolicy> make_weighted(const Parameters& parameters)
{
  double weight = parameters.nic_bus_weight;
  if (not(weight > 0) || not std::isfinite(weight) || weight > 64 || 1 / weight > 64)
    throw std::invalid_argument("progsim/nic-bus-weight: expected a weight between 1/64 and 64, got " +
                                std::to_string(weight));
  return std::make_unique<Weighted>(weight);
}

} // namespace progsim::models::contention
