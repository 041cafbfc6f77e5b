/*
 * Collective algorithms, one file each in this folder, written with the point-to-point calls of PointToPoint and
 * recorded as rounds (a round's messages are posted together; the next round starts when they all completed).
 * Any of them runs a blocking collective (progsim/coll-algorithms, "bcast:binomial_tree") or a non-blocking one
 * (progsim/nbc-algorithms, "ibcast:binomial"); the collectives not chosen run SMPI's default selection
 * (../SmpiDefault.cpp) or SMPI's own non-blocking algorithms (../SmpiNonBlocking.cpp, one round each).
 */
#pragma once

#include "collectives/PointToPoint.hpp"
#include "trace/Action.hpp"

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace progsim::models::collectives::algorithms {

/** One algorithm: `action`'s collective for `p2p`'s rank, its messages under `tag`. */
using Algorithm = void (*)(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);

struct NamedAlgorithm {
  trace::ActionType collective;
  std::string_view name;
  Algorithm run;
};

/** Every algorithm of this folder, by collective and name (SMPI's names where SMPI has the algorithm). */
const std::vector<NamedAlgorithm>& algorithms();

/** Which form of the collectives a setting chooses for: blocking ("bcast:...") or non-blocking ("ibcast:..."). */
enum class Form { Blocking, NonBlocking };

/** Parses `parameter`'s value, "bcast:binomial_tree;allreduce:rdb" for blocking collectives or
 * "ibcast:binomial;iallreduce:recursive-doubling" for non-blocking ones (empty: none). A name alone ("libnbc")
 * chooses that algorithm for every collective that has one; "<collective>:smpi" or "smpi" alone go back to SMPI's.
 * Throws std::invalid_argument naming `parameter` and the known algorithms. */
std::map<trace::ActionType, Algorithm> parse_choices(const std::string& text, const std::string& parameter, Form form);

/** The element size of a bcast, reduce or allreduce vector (its trace's datatype; bytes when unknown). */
inline int64_t element_size(const trace::Action& action) { return action.bytes2 > 0 ? action.bytes2 : 1; }

/** Whether `n` ranks are a power of two, and the largest power of two at most `n` (n >= 1). */
inline bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }
inline int power_of_two_at_most(int n)
{
  int power = 1;
  while (power * 2 <= n)
    power *= 2;
  return power;
}

/**
 * Recursive exchanges need a power of two of ranks: with p' the largest at most p, the first 2 (p - p') ranks pair
 * up, each even one handing its vector to the odd one after it and getting the result back at the end (as MPICH,
 * Open MPI and SMPI do).
 * The constructor does the first hand-over; finish() the last.
 */
class PowerOfTwoRanks {
public:
  PowerOfTwoRanks(PointToPoint& p2p, int64_t bytes, int tag);
  /** False for a rank that handed its vector over (it already has the result). */
  bool takes_part() const { return virtual_rank_ >= 0; }
  int size() const { return size_; }
  int virtual_rank() const { return virtual_rank_; }
  /** The rank that plays virtual rank `v`. */
  int real(int v) const { return v < extra_ ? 2 * v + 1 : v + extra_; }
  void finish();

private:
  PointToPoint& p2p_;
  int rank_;
  int64_t bytes_;
  int tag_;
  int size_         = 1;
  int extra_        = 0;
  int virtual_rank_ = -1;
};

/** Open MPI's pairing and reduce-scatter by recursive halving (OpenMpiHalving.cpp), done by the constructor; the
 * elements each step sent and kept, for the allgather or gather that follows. */
class OpenMpiHalving {
public:
  OpenMpiHalving(PointToPoint& p2p, int64_t elements, int64_t element, int tag);
  bool takes_part() const { return virtual_rank_ >= 0; }
  int virtual_rank() const { return virtual_rank_; }
  int size() const { return group_; }
  int extra() const { return extra_; }
  int real(int v) const { return v < extra_ ? 2 * v : v + extra_; }
  int64_t element() const { return element_; }
  const std::vector<int64_t>& sent() const { return sent_; }
  const std::vector<int64_t>& kept() const { return kept_; }

private:
  int64_t element_;
  int group_;
  int extra_;
  int virtual_rank_ = -1;
  std::vector<int64_t> sent_, kept_;
};

/** The binomial-tree scatter of p pieces of ceil(bytes / p) (or of `piece` bytes) that MPICH's and Open MPI's long
 * broadcasts start with, and the bytes that ranks first .. first + count - 1 (relative to the root) hold once it is
 * done. */
void binomial_scatter(PointToPoint& p2p, int64_t bytes, int root, int tag, int64_t piece = 0);
int64_t scatter_piece(int64_t bytes, int ranks);
int64_t scattered_bytes(int64_t bytes, int ranks, int first, int count);
/** Posts `throttle` exchanges at a time (MPICH's scattered alltoall). */
void scattered_alltoall(PointToPoint& p2p, const trace::Action& action, int tag, int throttle);

void scatter_ring_allgather_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                  int tag);
void scatter_rdb_allgather_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                 int tag);
void mvapich2_scatter_dest_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                    int tag);
void mpich_scattered_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void mpich_binomial_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void mpich_reduce_scatter_gather_reduce(PointToPoint& p2p, const trace::Action& action,
                                        const trace::CountPool& counts, int tag);
void mpich_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void mpich_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void mpich_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void mpich_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void binomial_tree_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void linear_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void redbcast_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void lr_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void linear_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void xor_pair_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void bruck_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void shift_exchange(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
/** The bytes of the blocks of ranks first .. first + length - 1 (those that exist). */
using GroupBytes = std::function<int64_t(int first, int length)>;
/** The recursive-doubling exchanges of an allgather(v), MPICH's fix-up for missing partners included. */
void recursive_doubling_exchanges(PointToPoint& p2p, int tag, const GroupBytes& sent, const GroupBytes& received);
void recursive_doubling_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                  int tag);
void recursive_doubling_barrier(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                int tag);
void linear_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void binomial_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
/** A chain of 32 KiB fragments; the other form takes the fragment size. */
void chain_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void chain_bcast(PointToPoint& p2p, const trace::Action& action, int tag, int64_t fragment);
void libnbc_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void binomial_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ring_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void rabenseifner_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void libnbc_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void recursive_doubling_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                  int tag);
void dissemination_barrier(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_linear_gatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_linear_scatterv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void mpich_linear_gatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void mpich_linear_scatterv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void chain_scan(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void recursive_doubling_scan(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void libnbc_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void libnbc_reduce_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void libnbc_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);

// Open MPI 4.1's coll/base algorithms as its tuned component runs them by default (unsegmented), and its selection.
void tuned_binary_tree_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void tuned_binomial_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void tuned_knomial_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void tuned_chain_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void tuned_split_binary_tree_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                   int tag);
void tuned_scatter_allgather_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                   int tag);
void tuned_linear_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void tuned_chain_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void tuned_binary_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void tuned_binomial_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void tuned_in_order_binary_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                  int tag);
void tuned_ring_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void tuned_rabenseifner_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                               int tag);
void tuned_rabenseifner_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                  int tag);
void tuned_linear_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void tuned_nonoverlapping_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                    int tag);
void tuned_linear_gather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void tuned_binomial_gather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void tuned_linear_sync_gather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                              int tag);
void tuned_linear_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void tuned_binomial_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void tuned_linear_nb_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_gather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void tuned_linear_alltoallv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void tuned_pairwise_alltoallv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void mpich_scattered_alltoallv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                               int tag);
void ompi_barrier(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void mpich_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_alltoallv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);

// Open MPI 4.1's barrier, alltoall and allgather (coll/base). The others it has are, for barrier, bruck:
// dissemination_barrier and recursive doubling: recursive_doubling_barrier; for alltoall, basic_linear:
// linear_alltoall, pairwise: shift_exchange and modified_bruck: bruck_alltoall.
void ompi_linear_barrier(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_double_ring_barrier(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_tree_barrier(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_two_procs_barrier(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
/** With coll/tuned's default max_requests (0: no limit); the other form takes it (at most that many receives and as
 * many sends per round). */
void ompi_linear_sync_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                               int tag);
void ompi_linear_sync_alltoall(PointToPoint& p2p, const trace::Action& action, int tag, int max_requests);
void ompi_two_procs_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
/** A linear gather then SMPI's binomial-tree broadcast; the other form takes the broadcast. */
void ompi_linear_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_linear_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                           Algorithm bcast);
void ompi_bruck_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_recursive_doubling_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                       int tag);
void ompi_ring_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_neighbor_exchange_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                      int tag);
void ompi_two_procs_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);

// reduce_scatter: Open MPI 4.1's coll/base algorithms (its tuned numbers 1 to 4) and MPICH 4.0's commutative ones,
// the two selections; the element size is the action's bytes2, the shares (bytes) counts.data() + action.vector.
void ompi_nonoverlapping_reduce_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                        int tag);
/** Open MPI's basic_recursivehalving and MPICH's recursive halving, the same schedule. */
void recursive_halving_reduce_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                      int tag);
void ompi_ring_reduce_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_butterfly_reduce_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                   int tag);
/** The other forms take the p shares in bytes (SMPI's default runs both). */
void mpich_pairwise_reduce_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                   int tag);
void mpich_pairwise_reduce_scatter(PointToPoint& p2p, const int64_t* shares, int tag);
void mpich_rdb_reduce_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void mpich_rdb_reduce_scatter(PointToPoint& p2p, const int64_t* shares, int tag);
void ompi_reduce_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void mpich_reduce_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
// allgatherv: Open MPI 4.1's coll/base algorithms (default, bruck, ring, neighbor exchange, two_proc), MPICH 4.0's
// (recursive doubling, Bruck, ring), SMPI's variants of them where they differ, and the two selections.
/** A gatherv to rank 0 then a broadcast of every block from rank 0 (Open MPI's "default"), with the given two. */
void gather_bcast_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                             Algorithm gatherv, Algorithm bcast);
void ompi_default_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void gb_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_bruck_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void mpich_bruck_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_ring_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void ompi_neighbor_exchange_allgatherv(PointToPoint& p2p, const trace::Action& action,
                                       const trace::CountPool& counts, int tag);
void ompi_two_procs_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                               int tag);
void recursive_doubling_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                   int tag);
void mpich_ring_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void smpi_mpich_ring_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                int tag);
void ompi_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);
void mpich_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);

} // namespace progsim::models::collectives::algorithms
