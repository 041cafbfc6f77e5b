/* The first half of Open MPI 4.1's Rabenseifner allreduce and reduce (coll_base_allreduce.c's redscat_allgather,
 * coll_base_reduce.c's redscat_gather, libnbc's): with p' the largest power of two at most p and r = p - p',
 *  1. the first 2r ranks pair up: both swap halves (the even rank sends its second half, the odd one its first),
 *     then the odd rank sends its reduced second half to the even one and sits out;
 *  2. the p' remaining ranks reduce-scatter by recursive halving with distance doubling: at distance 1, 2, 4, ...
 *     the lower rank of a pair keeps the lower half of its window (floor(w / 2) elements), the other the upper. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

OpenMpiHalving::OpenMpiHalving(PointToPoint& p2p, int64_t elements, int64_t element, int tag)
    : element_(element), group_(power_of_two_at_most(p2p.size())), extra_(p2p.size() - group_)
{
  const int r = p2p.rank();
  const int64_t lower = elements / 2, upper = elements - elements / 2;
  virtual_rank_       = r - extra_;
  if (r < 2 * extra_) {
    if (r % 2 == 1) {
      p2p.sendrecv(r - 1, lower * element, r - 1, upper * element, tag);
      p2p.send(r - 1, tag, upper * element);
      virtual_rank_ = -1;
      return;
    }
    p2p.sendrecv(r + 1, upper * element, r + 1, lower * element, tag);
    p2p.recv(r + 1, tag, upper * element);
    virtual_rank_ = r / 2;
  }
  int64_t window = elements;
  for (int distance = 1; distance < group_; distance <<= 1) {
    const int peer     = real(virtual_rank_ ^ distance);
    const int64_t keep = r < peer ? window / 2 : window - window / 2;
    p2p.sendrecv(peer, (window - keep) * element, peer, keep * element, tag);
    sent_.push_back(window - keep);
    kept_.push_back(keep);
    window = keep;
  }
}

} // namespace progsim::models::collectives::algorithms
