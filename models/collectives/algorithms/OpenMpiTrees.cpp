#include "collectives/algorithms/OpenMpiTrees.hpp"

namespace progsim::models::collectives::algorithms::ompi {

namespace {
int shifted(int rank, int size, int root) { return (rank - root + size) % size; }
int unshifted(int s, int size, int root) { return (s + root) % size; }
} // namespace

TreeNode level_tree(int rank, int size, int root, int fanout)
{
  TreeNode node;
  const int s = shifted(rank, size, root);
  int level_start = 0; // first shifted rank of s's level
  int level_width = 1; // fanout^level
  while (s >= level_start + level_width) {
    level_start += level_width;
    level_width *= fanout;
  }
  for (int i = 1; i <= fanout && s + i * level_width < size; i++)
    node.children.push_back(unshifted(s + i * level_width, size, root));
  if (s > 0) { // step back by the previous level's width until out of this level
    int parent = s;
    while (parent >= level_start)
      parent -= level_width / fanout;
    node.parent = unshifted(parent, size, root);
  }
  return node;
}

TreeNode binomial_tree(int rank, int size, int root)
{
  TreeNode node;
  const int s = shifted(rank, size, root);
  int mask    = 1;
  while (mask <= s)
    mask <<= 1;
  if (s > 0)
    node.parent = unshifted(s ^ (mask >> 1), size, root);
  for (; mask < size && (s ^ mask) < size; mask <<= 1)
    node.children.push_back(unshifted(s ^ mask, size, root));
  return node;
}

TreeNode in_order_binomial_tree(int rank, int size, int root)
{
  TreeNode node;
  const int s = shifted(rank, size, root);
  for (int mask = 1; mask < size; mask <<= 1) {
    const int other = s ^ mask;
    if (other < s) {
      node.parent = unshifted(other, size, root);
      break;
    }
    if (other < size)
      node.children.push_back(unshifted(other, size, root));
  }
  return node;
}

TreeNode knomial_tree(int rank, int size, int root, int radix)
{
  TreeNode node;
  const int s = shifted(rank, size, root);
  int mask    = 1;
  while (mask < size) {
    if (s % (radix * mask)) {
      node.parent = unshifted(s / (radix * mask) * (radix * mask), size, root);
      break;
    }
    mask *= radix;
  }
  for (mask /= radix; mask > 0; mask /= radix)
    for (int j = 1; j < radix; j++)
      if (s + j * mask < size)
        node.children.push_back(unshifted(s + j * mask, size, root));
  return node;
}

TreeNode chain(int rank, int size, int root)
{
  TreeNode node;
  const int s = shifted(rank, size, root);
  if (s > 0)
    node.parent = unshifted(s - 1, size, root);
  if (s + 1 < size)
    node.children.push_back(unshifted(s + 1, size, root));
  return node;
}

TreeNode in_order_binary_tree(int rank, int size)
{
  TreeNode node;
  int offset = 0; // the current range: offset .. offset + n - 1, its parent at the top
  int n      = size;
  while (true) {
    const int local       = rank - offset;
    const int parent      = n - 1;
    const int right_count = n / 2;
    const int left_child  = n > 1 ? parent - 1 : -1;
    const int right_child = n > 2 ? right_count - 1 : -1;
    if (local == parent) {
      if (left_child >= 0)
        node.children.push_back(offset + left_child);
      if (right_child >= 0)
        node.children.push_back(offset + right_child);
      return node;
    }
    if (local > right_child) { // the left subtree: the ranks above the right one, below the parent
      if (local == left_child)
        node.parent = offset + parent;
      offset += right_count;
      n -= right_count + 1;
    } else { // the right subtree: the first n / 2 ranks
      if (local == right_child)
        node.parent = offset + parent;
      n = right_count;
    }
  }
}

} // namespace progsim::models::collectives::algorithms::ompi
