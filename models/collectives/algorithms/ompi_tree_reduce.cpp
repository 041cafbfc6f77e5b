/* Open MPI 4.1's generic tree reduction (ompi_coll_base_reduce_generic, coll_base_reduce.c) as its tuned
 * component's fixed decision runs it: unsegmented (segment size 0) and without a cap on outstanding sends. A rank
 * receives its children's vectors in order with two receives posted at a time (the next child's is posted before
 * it waits for the one before, whose vector it then reduces), then sends the result to its parent. One entry per tree (OpenMpiTrees.hpp): the chain of one ("chain" with the decision's
 * fan-out 0, and "pipeline"), the binary tree ("binary"), the in-order binomial tree ("binomial") and the in-order
 * binary tree ("in-order_binary", rooted at the last rank, which then hands the result to the root). */
#include "collectives/algorithms/Algorithms.hpp"
#include "collectives/algorithms/OpenMpiTrees.hpp"

namespace progsim::models::collectives::algorithms {

namespace {
void tree_reduce(PointToPoint& p2p, int64_t bytes, int tag, const ompi::TreeNode& node)
{
  mpi::RequestPtr previous;
  for (int child : node.children) {
    mpi::RequestPtr next = p2p.irecv(child, tag, bytes);
    if (previous)
      p2p.wait(previous);
    previous = next;
  }
  if (previous)
    p2p.wait(previous);
  if (node.parent >= 0)
    p2p.send(node.parent, tag, bytes);
}
} // namespace

void tuned_chain_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  tree_reduce(p2p, action.bytes, tag, ompi::chain(p2p.rank(), p2p.size(), action.root));
}

void tuned_binary_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  tree_reduce(p2p, action.bytes, tag, ompi::level_tree(p2p.rank(), p2p.size(), action.root, 2));
}

void tuned_binomial_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  tree_reduce(p2p, action.bytes, tag, ompi::in_order_binomial_tree(p2p.rank(), p2p.size(), action.root));
}

void tuned_in_order_binary_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int last = p2p.size() - 1;
  tree_reduce(p2p, action.bytes, tag, ompi::in_order_binary_tree(p2p.rank(), p2p.size()));
  if (action.root != last && p2p.rank() == last)
    p2p.send(action.root, tag, action.bytes);
  else if (action.root != last && p2p.rank() == action.root)
    p2p.recv(last, tag, action.bytes);
}

} // namespace progsim::models::collectives::algorithms
