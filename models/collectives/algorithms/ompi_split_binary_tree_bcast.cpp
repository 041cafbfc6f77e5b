/* Open MPI 4.1's split binary tree broadcast (ompi_coll_base_bcast_intra_split_bintree, coll_base_bcast.c), as the
 * tuned component's fixed decision runs it (unsegmented). The vector is cut in two halves (the first one takes the
 * odd element); on the binary tree (OpenMpiTrees.hpp, shifted ranks), the left subtree (odd shifted ranks) carries
 * the first half and the right one (even shifted ranks) the second: the root sends its left child the first half,
 * then its right child the second, each send blocking, and every rank forwards its half to its children the same
 * way. Then each rank swaps halves with its twin in the other subtree (shifted rank s + 1 for an odd s, s - 1 for
 * an even one); with an even number of ranks the last one has no twin and gets the second half from the root.
 * Halves of no element fall back to the chain broadcast, as Open MPI's does. */
#include "collectives/algorithms/Algorithms.hpp"
#include "collectives/algorithms/OpenMpiTrees.hpp"

namespace progsim::models::collectives::algorithms {

void tuned_split_binary_tree_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                   int tag)
{
  const int p              = p2p.size();
  const int r              = p2p.rank();
  const int64_t element    = element_size(action);
  const int64_t elements   = action.bytes / element;
  const int64_t half[2]    = {(elements + 1) / 2 * element, elements / 2 * element};
  if (p == 1)
    return;
  if (half[1] == 0) {
    tuned_chain_bcast(p2p, action, counts, tag);
    return;
  }
  const int s    = (r - action.root + p) % p;
  const int side = (s + 1) % 2; // 0: the left subtree (first half); 1: the right one, and the root
  const ompi::TreeNode node = ompi::level_tree(r, p, action.root, 2);
  if (s == 0) {
    for (size_t i = 0; i < node.children.size() && i < 2; i++)
      p2p.send(node.children[i], tag, half[i]);
  } else {
    p2p.recv(node.parent, tag, half[side]);
    for (int child : node.children)
      p2p.send(child, tag, half[side]);
  }
  const int twin = side == 0 ? (r + 1) % p : (r - 1 + p) % p;
  const int last = (action.root + p - 1) % p;
  if (p % 2 == 0 && s == 0)
    p2p.send(last, tag, half[1]);
  else if (p % 2 == 0 && r == last)
    p2p.recv(action.root, tag, half[1]);
  else if (s != 0)
    p2p.sendrecv(twin, half[side], twin, half[1 - side], tag);
}

} // namespace progsim::models::collectives::algorithms
