/* Open MPI 4.1's scatters (coll_base_scatter.c), as its tuned component runs them. A block is what one rank gets:
 * the send size per rank at the root, the receive size elsewhere.
 *  - basic_linear: the root sends each rank its block in turn, from rank 0 up, each send blocking.
 *  - binomial: on the in-order binomial tree, a rank receives its subtree's blocks from its parent, then sends each
 *    child the blocks of the child's subtree, largest subtree first, each send blocking.
 *  - linear_nb: the root posts every send at once and waits for them all (scatter_algorithm_max_requests, 0 by
 *    default, would make every n-th one blocking). */
#include "collectives/algorithms/Algorithms.hpp"
#include "collectives/algorithms/OpenMpiTrees.hpp"

#include <algorithm>

namespace progsim::models::collectives::algorithms {

void tuned_linear_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  if (p2p.rank() != action.root) {
    p2p.recv(action.root, tag, action.bytes2);
    return;
  }
  for (int destination = 0; destination < p2p.size(); destination++)
    if (destination != action.root)
      p2p.send(destination, tag, action.bytes);
}

void tuned_binomial_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p               = p2p.size();
  const int v               = (p2p.rank() - action.root + p) % p;
  const ompi::TreeNode node = ompi::in_order_binomial_tree(p2p.rank(), p, action.root);
  const int64_t one         = p2p.rank() == action.root ? action.bytes : action.bytes2;
  auto subtree              = [&](int child) {
    const int w = (child - action.root + p) % p;
    return std::min(w - v, p - w);
  };
  if (node.parent >= 0) {
    int blocks = 1;
    for (int child : node.children)
      blocks += subtree(child);
    p2p.recv(node.parent, tag, blocks * one);
  }
  for (auto child = node.children.rbegin(); child != node.children.rend(); ++child)
    p2p.send(*child, tag, subtree(*child) * one);
}

void tuned_linear_nb_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  if (p2p.rank() != action.root) {
    p2p.recv(action.root, tag, action.bytes2);
    return;
  }
  std::vector<mpi::RequestPtr> sends;
  for (int destination = 0; destination < p2p.size(); destination++)
    if (destination != action.root)
      sends.push_back(p2p.isend(destination, tag, action.bytes));
  p2p.wait_all(sends);
}

} // namespace progsim::models::collectives::algorithms
