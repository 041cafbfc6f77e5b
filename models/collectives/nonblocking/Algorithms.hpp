/*
 * Round-by-round algorithms for the non-blocking collectives, one file each in this folder, written with the
 * point-to-point calls of PointToPoint and recorded as rounds (a round's messages are posted together; the next
 * round starts when they all completed). progsim/nbc-algorithms chooses one per collective; the others run SMPI's
 * own non-blocking algorithms (../SmpiNonBlocking.cpp, one round each).
 */
#pragma once

#include "collectives/PointToPoint.hpp"
#include "trace/Action.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace progsim::models::collectives::nonblocking {

/** One algorithm: `action`'s collective for `p2p`'s rank, its messages under `tag`. */
using Algorithm = void (*)(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);

struct NamedAlgorithm {
  trace::ActionType collective;
  std::string_view name;
  Algorithm run;
};

/** Every algorithm of this folder. */
const std::vector<NamedAlgorithm>& algorithms();

/** Parses "ibcast:binomial;iallreduce:recursive-doubling" (empty: none); a name alone ("libnbc") chooses that
 * algorithm for every collective that has one. Throws std::invalid_argument naming the known ones. */
std::map<trace::ActionType, Algorithm> parse_choices(const std::string& text);

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
void pairwise_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag);

} // namespace progsim::models::collectives::nonblocking
