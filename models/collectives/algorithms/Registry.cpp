/* The algorithms of this folder, by collective and name: adding one is a file and a line here. Where SMPI 3.32 has
 * the algorithm, it goes by SMPI's name (smpi/<collective>:<name>), so that a cross-check selects the same one in
 * both simulators. */
#include "collectives/algorithms/Algorithms.hpp"

#include <stdexcept>

namespace progsim::models::collectives::algorithms {

using trace::ActionType;

const std::vector<NamedAlgorithm>& algorithms()
{
  static const std::vector<NamedAlgorithm> all = {
      {ActionType::Barrier, "dissemination", dissemination_barrier},
      {ActionType::Barrier, "ompi_bruck", dissemination_barrier}, // SMPI's name for it, Open MPI's bruck barrier
      {ActionType::Barrier, "ompi_recursivedoubling", recursive_doubling_barrier}, // Open MPI's recursive doubling
      {ActionType::Barrier, "libnbc", dissemination_barrier}, // Open MPI libnbc's (nbc_ibarrier.c)
      {ActionType::Barrier, "mpich", dissemination_barrier},  // MPICH's (mpich_selection.cpp)
      {ActionType::Bcast, "linear", linear_bcast},
      {ActionType::Bcast, "flattree", linear_bcast}, // SMPI's name for it
      {ActionType::Bcast, "binomial", binomial_bcast},
      {ActionType::Bcast, "binomial_tree", binomial_tree_bcast},
      {ActionType::Bcast, "chain", chain_bcast},
      {ActionType::Bcast, "libnbc", libnbc_bcast}, // Open MPI's selection
      {ActionType::Bcast, "scatter_LR_allgather", scatter_ring_allgather_bcast},
      {ActionType::Bcast, "scatter_rdb_allgather", scatter_rdb_allgather_bcast},
      {ActionType::Bcast, "mpich", mpich_bcast}, // MPICH's selection
      {ActionType::Bcast, "tuned_chain", tuned_chain_bcast}, // Open MPI tuned's "chain" and "pipeline"
      {ActionType::Bcast, "tuned_binary_tree", tuned_binary_tree_bcast},
      {ActionType::Bcast, "tuned_split_binary_tree", tuned_split_binary_tree_bcast},
      {ActionType::Bcast, "tuned_binomial", tuned_binomial_bcast},
      {ActionType::Bcast, "tuned_knomial", tuned_knomial_bcast},
      {ActionType::Bcast, "tuned_scatter_allgather", tuned_scatter_allgather_bcast},
      {ActionType::Bcast, "ompi", ompi_bcast}, // Open MPI's selection
      {ActionType::Reduce, "linear", linear_reduce},
      {ActionType::Reduce, "ompi_basic_linear", tuned_linear_reduce}, // SMPI's name for it
      {ActionType::Reduce, "tuned_chain", tuned_chain_reduce}, // Open MPI tuned's "chain" and "pipeline"
      {ActionType::Reduce, "tuned_binary", tuned_binary_reduce},
      {ActionType::Reduce, "tuned_binomial", tuned_binomial_reduce},
      {ActionType::Reduce, "tuned_in_order_binary", tuned_in_order_binary_reduce},
      {ActionType::Reduce, "tuned_rabenseifner", tuned_rabenseifner_reduce}, // and libnbc's redscat_gather
      {ActionType::Reduce, "ompi", ompi_reduce}, // Open MPI's selection
      {ActionType::Reduce, "libnbc", libnbc_reduce}, // Open MPI libnbc's selection (ireduce)
      {ActionType::Reduce, "binomial", mpich_binomial_reduce}, // MPICH's, SMPI's names
      {ActionType::Reduce, "scatter_gather", mpich_reduce_scatter_gather_reduce},
      {ActionType::Reduce, "mpich", mpich_reduce}, // MPICH's selection
      {ActionType::AllReduce, "binomial", binomial_allreduce},
      {ActionType::AllReduce, "recursive-doubling", recursive_doubling_allreduce},
      {ActionType::AllReduce, "rdb", recursive_doubling_allreduce}, // SMPI's name for it
      {ActionType::AllReduce, "ring", ring_allreduce},
      {ActionType::AllReduce, "lr", lr_allreduce},
      {ActionType::AllReduce, "redbcast", redbcast_allreduce},
      {ActionType::AllReduce, "rabenseifner", rabenseifner_allreduce},
      {ActionType::AllReduce, "libnbc", libnbc_allreduce}, // Open MPI's selection
      {ActionType::AllReduce, "rab_rdb", rabenseifner_allreduce}, // SMPI's name for it
      {ActionType::AllReduce, "mpich", mpich_allreduce}, // MPICH's selection
      {ActionType::AllReduce, "tuned_basic_linear", tuned_linear_allreduce},
      {ActionType::AllReduce, "tuned_nonoverlapping", tuned_nonoverlapping_allreduce},
      {ActionType::AllReduce, "tuned_ring", tuned_ring_allreduce}, // and "segmented_ring", unsegmented
      {ActionType::AllReduce, "tuned_rabenseifner", tuned_rabenseifner_allreduce},
      {ActionType::AllReduce, "ompi", ompi_allreduce}, // Open MPI's selection
      {ActionType::Gather, "ompi_basic_linear", tuned_linear_gather}, // SMPI's names for Open MPI's
      {ActionType::Gather, "ompi_binomial", tuned_binomial_gather},
      {ActionType::Gather, "tuned_linear_sync", tuned_linear_sync_gather}, // without SMPI's first segment
      {ActionType::Gather, "ompi", ompi_gather}, // Open MPI's selection
      {ActionType::Gather, "mpich", tuned_binomial_gather}, // MPICH's selection: always its binomial gather
      {ActionType::Scatter, "ompi_basic_linear", tuned_linear_scatter},
      {ActionType::Scatter, "tuned_binomial", tuned_binomial_scatter}, // largest subtree first, unlike SMPI's
      {ActionType::Scatter, "ompi_linear_nb", tuned_linear_nb_scatter},
      {ActionType::Scatter, "ompi", ompi_scatter}, // Open MPI's selection
      {ActionType::Scatter, "mpich", tuned_binomial_scatter}, // MPICH's selection: always its binomial scatter
      {ActionType::AllToAllV, "ompi_basic_linear", tuned_linear_alltoallv}, // SMPI's names for Open MPI's
      {ActionType::AllToAllV, "tuned_pairwise", tuned_pairwise_alltoallv},
      {ActionType::AllToAllV, "ompi", ompi_alltoallv}, // Open MPI's selection
      {ActionType::AllToAllV, "scattered", mpich_scattered_alltoallv},
      {ActionType::AllToAllV, "mpich", mpich_scattered_alltoallv}, // MPICH's selection: always scattered
      {ActionType::ReduceScatter, "libnbc", libnbc_reduce_scatter}, // Open MPI libnbc's (ireduce_scatter)
      {ActionType::GatherV, "ompi", ompi_linear_gatherv}, // Open MPI's coll/basic: one rank at a time
      {ActionType::GatherV, "mpich", mpich_linear_gatherv}, // MPICH's: all at once
      {ActionType::ScatterV, "ompi", ompi_linear_scatterv},
      {ActionType::ScatterV, "mpich", mpich_linear_scatterv},
      {ActionType::Scan, "chain", chain_scan},
      {ActionType::Scan, "libnbc", chain_scan}, // Open MPI libnbc's (iscan) and coll/basic's
      {ActionType::Scan, "ompi", chain_scan},
      {ActionType::Scan, "recursive_doubling", recursive_doubling_scan},
      {ActionType::Scan, "mpich", recursive_doubling_scan}, // MPICH's selection
      {ActionType::ExScan, "chain", chain_scan},
      {ActionType::ExScan, "libnbc", chain_scan},
      {ActionType::ExScan, "ompi", chain_scan},
      {ActionType::ExScan, "recursive_doubling", recursive_doubling_scan},
      {ActionType::ExScan, "mpich", recursive_doubling_scan},
      {ActionType::AllToAll, "pairwise", shift_exchange},
      {ActionType::AllToAll, "ring", shift_exchange}, // SMPI's name for it
      {ActionType::AllToAll, "pair", xor_pair_alltoall},
      {ActionType::AllToAll, "basic_linear", linear_alltoall},
      {ActionType::AllToAll, "bruck", bruck_alltoall},
      {ActionType::AllToAll, "libnbc", libnbc_alltoall}, // Open MPI's selection
      {ActionType::AllToAll, "mvapich2_scatter_dest", mvapich2_scatter_dest_alltoall},
      {ActionType::AllToAll, "scattered", mpich_scattered_alltoall},
      {ActionType::AllToAll, "mpich", mpich_alltoall}, // MPICH's selection
      {ActionType::AllGather, "ring", shift_exchange},
      {ActionType::AllGather, "rdb", recursive_doubling_allgather},
      // Open MPI 4.1's barrier, alltoall and allgather (coll/base) not listed above. Already above: barrier bruck
      // (ompi_bruck) and recursive doubling (ompi_recursivedoubling); alltoall basic_linear (linear_alltoall: the
      // same posts in the same order), pairwise (shift_exchange, "pairwise"/"ring": Open MPI's sendrecv to rank + k
      // from rank - k, k = 1 .. p - 1) and modified_bruck (bruck_alltoall, "bruck": the same blocks to the same
      // peers, packed the same).
      {ActionType::Barrier, "ompi_basic_linear", ompi_linear_barrier},
      {ActionType::Barrier, "ompi_doublering", ompi_double_ring_barrier},
      {ActionType::Barrier, "ompi_tree", ompi_tree_barrier},
      {ActionType::Barrier, "ompi_two_procs", ompi_two_procs_barrier},
      {ActionType::AllToAll, "ompi_pairwise", shift_exchange}, // as "pairwise" and SMPI's "ring"
      {ActionType::AllToAll, "ompi_linear_sync", ompi_linear_sync_alltoall},
      {ActionType::AllToAll, "ompi_two_proc", ompi_two_procs_alltoall},
      {ActionType::AllGather, "ompi_linear", ompi_linear_allgather},
      {ActionType::AllGather, "bruck", ompi_bruck_allgather}, // SMPI's Bruck allgather: the same exchanges
      {ActionType::AllGather, "ompi_recursive_doubling", ompi_recursive_doubling_allgather},
      {ActionType::AllGather, "NTSLR", ompi_ring_allgather}, // SMPI's name for Open MPI's ring
      {ActionType::AllGather, "ompi_ring", ompi_ring_allgather}, // the same (SMPI's "ring" is shift_exchange)
      {ActionType::AllGather, "ompi_neighborexchange", ompi_neighbor_exchange_allgather},
      {ActionType::AllGather, "ompi_two_proc", ompi_two_procs_allgather},
      {ActionType::Barrier, "ompi", ompi_barrier}, // Open MPI's selections
      {ActionType::AllToAll, "ompi", ompi_alltoall},
      {ActionType::AllGather, "ompi", ompi_allgather},
      {ActionType::AllGather, "mpich", mpich_allgather}, // MPICH's selection
      // reduce_scatter: Open MPI 4.1's (coll/base) and MPICH 4.0's. Recursive halving is not SMPI's
      // ompi_basic_recursivehalving, which skips an exchange when either side of it is empty.
      {ActionType::ReduceScatter, "ompi_nonoverlapping", ompi_nonoverlapping_reduce_scatter},
      {ActionType::ReduceScatter, "ompi_recursive_halving", recursive_halving_reduce_scatter},
      {ActionType::ReduceScatter, "ompi_ring", ompi_ring_reduce_scatter},
      {ActionType::ReduceScatter, "ompi_butterfly", ompi_butterfly_reduce_scatter},
      {ActionType::ReduceScatter, "mpich_recursive_halving", recursive_halving_reduce_scatter}, // the same as Open MPI's
      {ActionType::ReduceScatter, "mpich_pair", mpich_pairwise_reduce_scatter},
      {ActionType::ReduceScatter, "mpich_rdb", mpich_rdb_reduce_scatter}, // SMPI's (MPICH's for non-commutative ops)
      {ActionType::ReduceScatter, "ompi", ompi_reduce_scatter}, // Open MPI's selection
      {ActionType::ReduceScatter, "mpich", mpich_reduce_scatter}, // MPICH's selection
      // allgatherv: Open MPI 4.1's coll/base and MPICH 4.0's algorithms, by SMPI's names where SMPI's is the same.
      {ActionType::AllGatherV, "ompi_default", ompi_default_allgatherv}, // gatherv, then tuned's bcast
      {ActionType::AllGatherV, "GB", gb_allgatherv}, // SMPI's: all receives at once, then a binomial tree
      {ActionType::AllGatherV, "ompi_bruck", ompi_bruck_allgatherv},
      {ActionType::AllGatherV, "mpich_bruck", mpich_bruck_allgatherv}, // the same, nothing when all are empty
      {ActionType::AllGatherV, "ompi_ring", ompi_ring_allgatherv}, // SMPI's "ring" is another algorithm
      {ActionType::AllGatherV, "ompi_neighborexchange", ompi_neighbor_exchange_allgatherv}, // SMPI's on even counts
      {ActionType::AllGatherV, "ompi_two_proc", ompi_two_procs_allgatherv},
      {ActionType::AllGatherV, "mpich_rdb", recursive_doubling_allgatherv},
      {ActionType::AllGatherV, "mpich_ring", smpi_mpich_ring_allgatherv}, // SMPI's: pieces of 256 KiB or more
      {ActionType::AllGatherV, "mpich4_ring", mpich_ring_allgatherv},     // MPICH 4.0's: pieces of 32 KiB
      {ActionType::AllGatherV, "ompi", ompi_allgatherv},   // Open MPI's selection
      {ActionType::AllGatherV, "mpich", mpich_allgatherv}, // MPICH's selection
  };
  return all;
}

namespace {

std::string collective_name(ActionType type, Form form)
{
  return (form == Form::NonBlocking ? "i" : "") + std::string(trace::action_name(type));
}

bool collective_from_name(const std::string& name, Form form, ActionType& type)
{
  if (form == Form::NonBlocking)
    return trace::nonblocking_collective_from_name(name, type);
  return trace::action_from_name(name, type) && trace::is_collective(type);
}

std::string known(Form form)
{
  std::string text;
  for (auto const& a : algorithms())
    text += (text.empty() ? "" : ", ") + collective_name(a.collective, form) + ":" + std::string(a.name);
  return text + " (or smpi: SMPI's own)";
}

} // namespace

std::map<ActionType, Algorithm> parse_choices(const std::string& text, const std::string& parameter, Form form)
{
  std::map<ActionType, Algorithm> chosen;
  size_t start = 0;
  while (start < text.size()) {
    size_t end         = text.find(';', start);
    std::string choice = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start              = end == std::string::npos ? text.size() : end + 1;
    if (choice.empty())
      continue;
    const std::string where = parameter + ": '" + choice + "': ";
    size_t colon            = choice.find(':');
    if (colon == std::string::npos) { // a selector: its algorithm for every collective that has one
      if (choice == "smpi") {
        chosen.clear();
        continue;
      }
      bool found = false;
      for (auto const& a : algorithms())
        if (a.name == choice) {
          chosen[a.collective] = a.run;
          found                = true;
        }
      if (not found)
        throw std::invalid_argument(where + "expected <collective>:<algorithm> or a selector (libnbc, smpi), one of " +
                                    known(form));
      continue;
    }
    ActionType type;
    if (not collective_from_name(choice.substr(0, colon), form, type))
      throw std::invalid_argument(where + "expected <collective>:<algorithm>, one of " + known(form));
    std::string name = choice.substr(colon + 1);
    if (name == "smpi") {
      chosen.erase(type);
      continue;
    }
    bool found = false;
    for (auto const& a : algorithms())
      if (a.collective == type && a.name == name) {
        chosen[type] = a.run;
        found        = true;
      }
    if (not found)
      throw std::invalid_argument(where + "no such algorithm; known: " + known(form));
  }
  return chosen;
}

} // namespace progsim::models::collectives::algorithms
