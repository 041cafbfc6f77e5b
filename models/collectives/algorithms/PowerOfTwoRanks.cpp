#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

PowerOfTwoRanks::PowerOfTwoRanks(PointToPoint& p2p, int64_t bytes, int tag)
    : p2p_(p2p), rank_(p2p.rank()), bytes_(bytes), tag_(tag)
{
  size_  = power_of_two_at_most(p2p.size());
  extra_ = p2p.size() - size_;
  if (rank_ < 2 * extra_) {
    if (rank_ % 2 == 0) { // hands its vector to rank + 1 and waits for the result
      p2p_.send(rank_ + 1, tag_, bytes_);
      p2p_.recv(rank_ + 1, tag_, bytes_);
      return;
    }
    p2p_.recv(rank_ - 1, tag_, bytes_);
    virtual_rank_ = rank_ / 2;
  } else {
    virtual_rank_ = rank_ - extra_;
  }
}

void PowerOfTwoRanks::finish()
{
  if (takes_part() && rank_ < 2 * extra_)
    p2p_.send(rank_ - 1, tag_, bytes_);
}

} // namespace progsim::models::collectives::algorithms
