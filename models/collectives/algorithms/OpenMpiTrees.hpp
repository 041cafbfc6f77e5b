/* The trees Open MPI 4.1's coll/base broadcasts and reductions run on (coll_base_topo.c), as one rank sees them:
 * its parent and its children in the order it serves them. Ranks are real ranks; the trees are built on ranks
 * shifted so that the root is 0. */
#pragma once

#include <vector>

namespace progsim::models::collectives::algorithms::ompi {

struct TreeNode {
  int parent = -1; // -1 at the root
  std::vector<int> children;
};

/** The level-by-level tree of `fanout` (build_tree): level l holds fanout^l ranks; a rank s of level l has the
 * children s + fanout^l, s + 2 fanout^l, ... (the binary tree with fanout 2). */
TreeNode level_tree(int rank, int size, int root, int fanout);
/** The binomial tree (build_bmtree): the parent of s clears its highest bit; its children are s + 2^k above it,
 * smallest k first. */
TreeNode binomial_tree(int rank, int size, int root);
/** The in-order binomial tree (build_in_order_bmtree): the parent of s clears its lowest bit; its children are
 * s + 2^k below that bit, smallest k first (the tree of MPICH's binomial). */
TreeNode in_order_binomial_tree(int rank, int size, int root);
/** The k-nomial tree (build_kmtree): the parent of s rounds it down to the largest power of the radix that does
 * not divide it; the children are s + j radix^i, largest i first, j = 1 .. radix - 1. */
TreeNode knomial_tree(int rank, int size, int root, int radix);
/** The chain of one (build_chain with fanout 1, "pipeline"): s receives from s - 1 and sends to s + 1. */
TreeNode chain(int rank, int size, int root);
/** The in-order binary tree (build_in_order_bintree), rooted at size - 1 whatever the root: a parent n - 1 of a
 * range of n ranks has the right subtree on the first n / 2 ranks (its child: rank n / 2 - 1) and the left one on
 * the rest (its child: n - 2), each built the same way. */
TreeNode in_order_binary_tree(int rank, int size);

} // namespace progsim::models::collectives::algorithms::ompi
