/* Open MPI 4.1's generic tree broadcast (ompi_coll_base_bcast_intra_generic, coll_base_bcast.c) as its tuned
 * component's fixed decision runs it: with a segment size of 0, so unsegmented. A rank receives the whole vector
 * from its parent, then posts a send to every child at once and waits for them all. One entry per tree
 * (OpenMpiTrees.hpp): the binary tree ("binary_tree"), the binomial tree ("binomial"), the 4-nomial tree
 * ("knomial", coll_tuned_bcast_knomial_radix's default) and the chain of one that "pipeline" builds, and "chain"
 * too (the decision passes a fan-out of 0, which build_chain turns into 1). */
#include "collectives/algorithms/Algorithms.hpp"
#include "collectives/algorithms/OpenMpiTrees.hpp"

namespace progsim::models::collectives::algorithms {

namespace {
void tree_bcast(PointToPoint& p2p, int64_t bytes, int tag, const ompi::TreeNode& node)
{
  if (node.parent >= 0)
    p2p.recv(node.parent, tag, bytes);
  std::vector<mpi::RequestPtr> sends;
  for (int child : node.children)
    sends.push_back(p2p.isend(child, tag, bytes));
  p2p.wait_all(sends);
}
} // namespace

void tuned_binary_tree_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  tree_bcast(p2p, action.bytes, tag, ompi::level_tree(p2p.rank(), p2p.size(), action.root, 2));
}

void tuned_binomial_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  tree_bcast(p2p, action.bytes, tag, ompi::binomial_tree(p2p.rank(), p2p.size(), action.root));
}

void tuned_knomial_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  tree_bcast(p2p, action.bytes, tag, ompi::knomial_tree(p2p.rank(), p2p.size(), action.root, 4));
}

void tuned_chain_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  tree_bcast(p2p, action.bytes, tag, ompi::chain(p2p.rank(), p2p.size(), action.root));
}

} // namespace progsim::models::collectives::algorithms
