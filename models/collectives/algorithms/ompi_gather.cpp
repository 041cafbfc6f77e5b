/* Open MPI 4.1's gathers (coll_base_gather.c), as its tuned component runs them (segment size 0). A block is what
 * one rank contributes: its send size, the receive size per rank at the root.
 *  - basic_linear: the root receives the blocks one at a time, from rank 0 up; the others send theirs.
 *  - binomial: on the in-order binomial tree, a rank receives each child's subtree of blocks in turn (smallest
 *    subtree first, each receive blocking), then sends its own block and theirs to its parent.
 *  - linear_sync: the root, for each rank in turn, posts the receive of its block, sends it an empty go-ahead,
 *    posts the receive of the rest (with the decision's first segment of 0, the whole block came first: an empty
 *    rest) and waits for the block; a rank waits for the go-ahead before it sends. */
#include "collectives/algorithms/Algorithms.hpp"
#include "collectives/algorithms/OpenMpiTrees.hpp"

#include <algorithm>

namespace progsim::models::collectives::algorithms {

namespace {
int64_t block(PointToPoint& p2p, const trace::Action& action)
{
  return p2p.rank() == action.root ? action.bytes2 : action.bytes;
}
} // namespace

void tuned_linear_gather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  if (p2p.rank() != action.root) {
    p2p.send(action.root, tag, action.bytes);
    return;
  }
  for (int source = 0; source < p2p.size(); source++)
    if (source != action.root)
      p2p.recv(source, tag, action.bytes2);
}

void tuned_binomial_gather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p                = p2p.size();
  const int v                = (p2p.rank() - action.root + p) % p;
  const ompi::TreeNode node  = ompi::in_order_binomial_tree(p2p.rank(), p, action.root);
  const int64_t one          = block(p2p, action);
  int64_t held               = one;
  for (int child : node.children) {
    const int w          = (child - action.root + p) % p;
    const int64_t blocks = std::min(w - v, p - w);
    p2p.recv(child, tag, blocks * one);
    held += blocks * one;
  }
  if (node.parent >= 0)
    p2p.send(node.parent, tag, held);
}

void tuned_linear_sync_gather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  if (p2p.rank() != action.root) {
    p2p.recv(action.root, tag, 0);
    p2p.send(action.root, tag, action.bytes);
    p2p.send(action.root, tag, 0);
    return;
  }
  std::vector<mpi::RequestPtr> rests;
  for (int source = 0; source < p2p.size(); source++) {
    if (source == action.root)
      continue;
    mpi::RequestPtr first = p2p.irecv(source, tag, action.bytes2);
    p2p.send(source, tag, 0);
    rests.push_back(p2p.irecv(source, tag, 0));
    p2p.wait(first);
  }
  p2p.wait_all(rests);
}

} // namespace progsim::models::collectives::algorithms
