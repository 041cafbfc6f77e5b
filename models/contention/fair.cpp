/* fair: SimGrid's max-min sharing as it is. Every flow on a bus, a core's stream or a NIC's DMA, gets an equal
 * share, up to its own limit (a core's memory bandwidth, the NIC's). Denis et al. (ICPP 2021, Sec. 4.1) describe
 * the situation it models: "data moving from memory to the CPU and data moving from memory to the NIC are actually
 * using the same memory bus". */
#include "resources/BusPolicy.hpp"

namespace progsim::models::contention {

namespace {
class Fair : public BusPolicy {
public:
  std::string_view name() const override { return "fair"; }
};

const RegisterPolicy registration{{"fair", 1, [](const MemorySettings&) { return std::make_unique<Fair>(); }}};
} // namespace

} // namespace progsim::models::contention
