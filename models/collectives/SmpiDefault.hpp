/*
 * The collective algorithms that SimGrid 3.32's SMPI runs with its default selector (smpi/coll-selector:default),
 * written as point-to-point schedules. Sizes are in bytes; `counts` vectors have one entry per rank.
 * The tags are SMPI's, so that a timeline reads the same as SMPI's.
 */
#pragma once

#include "collectives/PointToPoint.hpp"
#include "mpi/Schedule.hpp"

#include <memory>
#include <string>

namespace progsim::models::collectives::smpi_default {

void barrier(PointToPoint& p2p);
void bcast(PointToPoint& p2p, int64_t bytes, int root);
void reduce(PointToPoint& p2p, int64_t bytes, int root);
void allreduce(PointToPoint& p2p, int64_t bytes);
void alltoall(PointToPoint& p2p, int64_t send_bytes, int64_t recv_bytes);
void alltoallv(PointToPoint& p2p, const int64_t* send_counts, const int64_t* recv_counts);
void gather(PointToPoint& p2p, int64_t send_bytes, int64_t recv_bytes, int root);
void gatherv(PointToPoint& p2p, int64_t send_bytes, const int64_t* recv_counts, int root);
void scatter(PointToPoint& p2p, int64_t send_bytes, int64_t recv_bytes, int root);
void scatterv(PointToPoint& p2p, const int64_t* send_counts, int64_t recv_bytes, int root);
void allgather(PointToPoint& p2p, int64_t send_bytes, int64_t recv_bytes);
void allgatherv(PointToPoint& p2p, int64_t send_bytes, const int64_t* recv_counts);
/** `counts` are bytes; `element_bytes` converts them to the element counts SMPI's algorithm choice looks at. */
void reduce_scatter(PointToPoint& p2p, const int64_t* counts, int64_t element_bytes);
void scan(PointToPoint& p2p, int64_t bytes);

/** The default selector's algorithms, as schedules of rounds for the engine; the blocking collectives that
 * `coll_algorithms` names ("bcast:binomial_tree;...", progsim/coll-algorithms) and the non-blocking ones that
 * `nbc_algorithms` names ("ibcast:binomial;...", progsim/nbc-algorithms) run that algorithm of algorithms/ instead
 * of SMPI's. Throws std::invalid_argument for an unknown one. */
std::unique_ptr<mpi::CollectiveAlgorithms> make_collectives(const std::string& coll_algorithms = "",
                                                            const std::string& nbc_algorithms  = "");

/** Which alltoall algorithm SMPI's default (Open MPI's decision table) picks for p ranks and b bytes per peer. */
enum class AllToAllAlgorithm { Linear, Pair, Bruck };
AllToAllAlgorithm alltoall_algorithm(int ranks, int64_t bytes_per_peer);

} // namespace progsim::models::collectives::smpi_default
