/* Reduce-scatter by recursive halving, as Open MPI 4.1 (ompi_coll_base_reduce_scatter_intra_basic_recursivehalving,
 * coll_base_reduce_scatter.c; its tuned "recursive_halving") and MPICH 4.0 (MPIR_Reduce_scatter_intra_recursive_halving,
 * reduce_scatter_intra_recursive_halving.c) both run it for commutative operations. With p' the largest power of two
 * at most p and r = p - p':
 *  1. the first 2r ranks pair up: each even one sends its whole vector to the odd one after it and sits out;
 *  2. the p' ranks left, renumbered 0 .. p' - 1, own a group of shares each (an odd rank of the pairs its own and
 *     its partner's); at distance p'/2, p'/4, ... 1 the lower rank of a pair keeps the lower half of the groups of
 *     its window and sends the upper half, the other the reverse; a side with nothing to send or receive is left
 *     out;
 *  3. each odd rank of the pairs sends its partner's share back to it (unless empty).
 * A vector that is empty on every rank moves nothing. SMPI's ompi_basic_recursivehalving differs when some shares
 * are empty: it leaves out a step's exchange in both directions as soon as one of them is empty. */
#include "collectives/algorithms/Algorithms.hpp"

#include <numeric>
#include <vector>

namespace progsim::models::collectives::algorithms {

void recursive_halving_reduce_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                      int tag)
{
  const int p          = p2p.size();
  const int r          = p2p.rank();
  const int64_t* share = counts.data() + action.vector;
  const int64_t total  = std::accumulate(share, share + p, int64_t{0});
  if (total == 0)
    return;
  const int group = power_of_two_at_most(p);
  const int extra = p - group;
  int virtual_rank = r - extra;
  if (r < 2 * extra) {
    if (r % 2 == 0) {
      p2p.send(r + 1, tag, total);
      virtual_rank = -1;
    } else {
      p2p.recv(r - 1, tag, total);
      virtual_rank = r / 2;
    }
  }
  if (virtual_rank >= 0) {
    std::vector<int64_t> held(group); // what each virtual rank ends up with
    for (int v = 0; v < group; v++)
      held[v] = v < extra ? share[2 * v] + share[2 * v + 1] : share[v + extra];
    auto sum = [&](int from, int to) { return std::accumulate(held.begin() + from, held.begin() + to, int64_t{0}); };
    int window = 0; // the first group of the window, 2 * distance groups long
    for (int distance = group / 2; distance > 0; distance /= 2) {
      const int peer_virtual = virtual_rank ^ distance;
      const int peer         = peer_virtual < extra ? 2 * peer_virtual + 1 : peer_virtual + extra;
      const bool lower       = virtual_rank < peer_virtual;
      const int kept         = lower ? window : window + distance;
      const int given        = lower ? window + distance : window;
      const int64_t receive  = sum(kept, kept + distance);
      const int64_t send     = sum(given, given + distance);
      std::vector<mpi::RequestPtr> requests;
      if (receive > 0)
        requests.push_back(p2p.irecv(peer, tag, receive));
      if (send > 0)
        requests.push_back(p2p.isend(peer, tag, send));
      p2p.wait_all(requests);
      window = kept;
    }
  }
  if (r < 2 * extra) {
    if (r % 2 == 1 && share[r - 1] > 0)
      p2p.send(r - 1, tag, share[r - 1]);
    else if (r % 2 == 0 && share[r] > 0)
      p2p.recv(r + 1, tag, share[r]);
  }
}

} // namespace progsim::models::collectives::algorithms
