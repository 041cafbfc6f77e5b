#include "collectives/SmpiDefault.hpp"
#include "collectives/ScheduleRecorder.hpp"
#include "collectives/SmpiNonBlocking.hpp"
#include "collectives/algorithms/Algorithms.hpp"
#include "trace/Action.hpp"

#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

namespace progsim::models::collectives::smpi_default {

namespace {
using trace::ActionType;

// SMPI's internal tags (src/smpi/include/private.hpp), kept for readable timelines.
const int kBarrierTag       = trace::collective_tag(ActionType::Barrier);
const int kAllToAllVTag     = trace::collective_tag(ActionType::AllToAllV);
const int kGatherTag        = trace::collective_tag(ActionType::Gather);
const int kGatherVTag       = trace::collective_tag(ActionType::GatherV);
const int kScatterTag       = trace::collective_tag(ActionType::Scatter);
const int kScatterVTag      = trace::collective_tag(ActionType::ScatterV);
const int kAllGatherTag     = trace::collective_tag(ActionType::AllGather);
const int kAllGatherVTag    = trace::collective_tag(ActionType::AllGatherV);
const int kReduceScatterTag = trace::collective_tag(ActionType::ReduceScatter);
const int kScanTag          = trace::collective_tag(ActionType::Scan);

/** The action of a collective that another one runs inside it (allreduce's bcast, ...). */
trace::Action inner(ActionType type, int64_t bytes, int root = 0)
{
  trace::Action a;
  a.type  = type;
  a.bytes = bytes;
  a.root  = root;
  return a;
}

/** Linear, non-blocking gather of `bytes_from(source)` to root (SMPI's igather/ireduce/igatherv). */
template <typename BytesFrom>
void linear_to_root(PointToPoint& p2p, int64_t send_bytes, BytesFrom bytes_from, int root, int tag)
{
  if (p2p.rank() != root) {
    p2p.wait(p2p.isend(root, tag, send_bytes));
    return;
  }
  std::vector<mpi::RequestPtr> requests;
  for (int source = 0; source < p2p.size(); source++)
    if (source != root)
      requests.push_back(p2p.irecv(source, tag, bytes_from(source)));
  p2p.wait_all(requests);
}

/** Linear, non-blocking scatter from root (SMPI's iscatter/iscatterv). */
template <typename BytesTo>
void linear_from_root(PointToPoint& p2p, BytesTo bytes_to, int64_t recv_bytes, int root, int tag)
{
  if (p2p.rank() != root) {
    p2p.wait(p2p.irecv(root, tag, recv_bytes));
    return;
  }
  std::vector<mpi::RequestPtr> requests;
  for (int destination = 0; destination < p2p.size(); destination++)
    if (destination != root)
      requests.push_back(p2p.isend(destination, tag, bytes_to(destination)));
  p2p.wait_all(requests);
}

/** Everyone sends to and receives from everyone, interleaved (SMPI's iallgather/iallgatherv). */
template <typename BytesFrom>
void all_to_all_interleaved(PointToPoint& p2p, int64_t send_bytes, BytesFrom bytes_from, int tag)
{
  std::vector<mpi::RequestPtr> requests;
  for (int other = 0; other < p2p.size(); other++) {
    if (other == p2p.rank())
      continue;
    requests.push_back(p2p.isend(other, tag, send_bytes));
    requests.push_back(p2p.irecv(other, tag, bytes_from(other)));
  }
  p2p.wait_all(requests);
}

} // namespace

void barrier(PointToPoint& p2p)
{
  if (p2p.rank() > 0) {
    p2p.send(0, kBarrierTag, 0);
    p2p.recv(0, kBarrierTag, 0);
    return;
  }
  std::vector<mpi::RequestPtr> requests;
  for (int i = 1; i < p2p.size(); i++)
    requests.push_back(p2p.irecv(i, kBarrierTag, 0));
  p2p.wait_all(requests);
  requests.clear();
  for (int i = 1; i < p2p.size(); i++)
    requests.push_back(p2p.isend(i, kBarrierTag, 0));
  p2p.wait_all(requests);
}

void bcast(PointToPoint& p2p, int64_t bytes, int root)
{
  algorithms::binomial_tree_bcast(p2p, inner(ActionType::Bcast, bytes, root), {}, trace::collective_tag(ActionType::Bcast));
}

void reduce(PointToPoint& p2p, int64_t bytes, int root)
{
  algorithms::linear_reduce(p2p, inner(ActionType::Reduce, bytes, root), {}, trace::collective_tag(ActionType::Reduce));
}

void allreduce(PointToPoint& p2p, int64_t bytes)
{
  algorithms::redbcast_allreduce(p2p, inner(ActionType::AllReduce, bytes), {},
                                 trace::collective_tag(ActionType::AllReduce));
}

AllToAllAlgorithm alltoall_algorithm(int p, int64_t b)
{
  using A = AllToAllAlgorithm;
  if (p == 2) {
    if (b < 2 || (b >= 4 && b < 16) || (b >= 64 && b < 256) || (b >= 4096 && b < 32768) || b >= 1048576)
      return A::Pair;
    return A::Linear;
  }
  if (p < 8)
    return (b >= 524288 && b < 1048576) ? A::Pair : A::Linear;
  if (p < 16)
    return A::Linear;
  if (p < 32)
    return (b >= 4 && b < 512) ? A::Bruck : A::Linear;
  if (p < 64)
    return b < 512 ? A::Bruck : A::Linear;
  if (p < 512) {
    int64_t linear_up_to = p < 256 ? 262144 : 32768;
    if (b < 1024)
      return A::Bruck;
    return b < linear_up_to ? A::Linear : A::Pair;
  }
  if (p < 1024)
    return b < 512 ? A::Bruck : (b < 262144 ? A::Linear : A::Pair);
  if (p < 2048)
    return b < 512 ? A::Bruck : A::Linear;
  if (p < 4096)
    return b < 1024 ? A::Bruck : A::Linear;
  return b < 2048 ? A::Bruck : A::Linear;
}

void alltoall(PointToPoint& p2p, int64_t send_bytes, int64_t recv_bytes)
{
  trace::Action a = inner(ActionType::AllToAll, send_bytes);
  a.bytes2        = recv_bytes;
  const int tag   = trace::collective_tag(ActionType::AllToAll);
  switch (alltoall_algorithm(p2p.size(), send_bytes)) {
    case AllToAllAlgorithm::Bruck:
      algorithms::bruck_alltoall(p2p, a, {}, tag);
      break;
    case AllToAllAlgorithm::Pair:
      // SMPI's pairwise exchange only exists for a power-of-two number of ranks (it aborts otherwise).
      if (algorithms::is_power_of_two(p2p.size())) {
        algorithms::xor_pair_alltoall(p2p, a, {}, tag);
        break;
      }
      [[fallthrough]];
    case AllToAllAlgorithm::Linear:
      algorithms::linear_alltoall(p2p, a, {}, tag);
      break;
  }
}

void alltoallv(PointToPoint& p2p, const int64_t* send_counts, const int64_t* recv_counts)
{
  std::vector<mpi::RequestPtr> requests;
  for (int i = 0; i < p2p.size(); i++)
    if (i != p2p.rank())
      requests.push_back(p2p.irecv(i, kAllToAllVTag, recv_counts[i]));
  for (int i = 0; i < p2p.size(); i++)
    if (i != p2p.rank())
      requests.push_back(p2p.isend(i, kAllToAllVTag, send_counts[i]));
  p2p.wait_all(requests);
}

void gather(PointToPoint& p2p, int64_t send_bytes, int64_t recv_bytes, int root)
{
  linear_to_root(p2p, send_bytes, [recv_bytes](int) { return recv_bytes; }, root, kGatherTag);
}

void gatherv(PointToPoint& p2p, int64_t send_bytes, const int64_t* recv_counts, int root)
{
  linear_to_root(p2p, send_bytes, [recv_counts](int source) { return recv_counts[source]; }, root, kGatherVTag);
}

void scatter(PointToPoint& p2p, int64_t send_bytes, int64_t recv_bytes, int root)
{
  // SMPI's scatter is Open MPI's non-blocking linear one: every send posted at once.
  trace::Action a = inner(ActionType::Scatter, send_bytes, root);
  a.bytes2        = recv_bytes;
  algorithms::tuned_linear_nb_scatter(p2p, a, {}, kScatterTag);
}

void scatterv(PointToPoint& p2p, const int64_t* send_counts, int64_t recv_bytes, int root)
{
  linear_from_root(p2p, [send_counts](int destination) { return send_counts[destination]; }, recv_bytes, root,
                   kScatterVTag);
}

void allgather(PointToPoint& p2p, int64_t send_bytes, int64_t recv_bytes)
{
  all_to_all_interleaved(p2p, send_bytes, [recv_bytes](int) { return recv_bytes; }, kAllGatherTag);
}

void allgatherv(PointToPoint& p2p, int64_t send_bytes, const int64_t* recv_counts)
{
  all_to_all_interleaved(p2p, send_bytes, [recv_counts](int other) { return recv_counts[other]; }, kAllGatherVTag);
}

void reduce_scatter(PointToPoint& p2p, const int64_t* counts, int64_t element_bytes)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  bool regular = true;
  for (int i = 1; i < p; i++)
    regular = regular && counts[i] == counts[0];
  int64_t total = std::accumulate(counts, counts + p, int64_t{0});
  if (regular) { // a reduce to rank 0 of everything, then a scatterv of each rank's share
    reduce(p2p, total, 0);
    scatterv(p2p, counts, counts[r], 0);
    return;
  }
  int64_t elements = element_bytes > 0 ? total / element_bytes : total;
  if (elements > 524288) // SMPI's MPICH selection: pairwise exchange for long vectors, recursive doubling otherwise
    algorithms::mpich_pairwise_reduce_scatter(p2p, counts, kReduceScatterTag);
  else
    algorithms::mpich_rdb_reduce_scatter(p2p, counts, kReduceScatterTag);
}

void scan(PointToPoint& p2p, int64_t bytes)
{
  std::vector<mpi::RequestPtr> requests;
  for (int other = 0; other < p2p.rank(); other++)
    requests.push_back(p2p.irecv(other, kScanTag, bytes));
  for (int other = p2p.rank() + 1; other < p2p.size(); other++)
    requests.push_back(p2p.isend(other, kScanTag, bytes));
  p2p.wait_all(requests);
}

namespace {

class SmpiDefaultCollectives : public mpi::CollectiveAlgorithms {
public:
  SmpiDefaultCollectives(std::map<ActionType, algorithms::Algorithm> blocking,
                         std::map<ActionType, algorithms::Algorithm> nonblocking)
      : blocking_(std::move(blocking)), nonblocking_(std::move(nonblocking))
  {
  }

  mpi::Schedule schedule(const trace::Action& a, int rank, int size, const trace::CountPool& counts) const override
  {
    if (a.nonblocking) {
      auto chosen = nonblocking_.find(a.type);
      if (chosen == nonblocking_.end())
        return smpi_nonblocking::schedule(a, rank, size, counts);
      ScheduleRecorder recorder(rank, size);
      chosen->second(recorder, a, counts, trace::nonblocking_request_tag(a.type));
      return recorder.take();
    }
    ScheduleRecorder recorder(rank, size);
    if (auto chosen = blocking_.find(a.type); chosen != blocking_.end()) {
      chosen->second(recorder, a, counts, trace::collective_tag(a.type));
      return recorder.take();
    }
    switch (a.type) {
      case ActionType::Barrier:
        barrier(recorder);
        break;
      case ActionType::Bcast:
        bcast(recorder, a.bytes, a.root);
        break;
      case ActionType::Reduce:
        reduce(recorder, a.bytes, a.root);
        break;
      case ActionType::AllReduce:
        allreduce(recorder, a.bytes);
        break;
      case ActionType::AllToAll:
        alltoall(recorder, a.bytes, a.bytes2);
        break;
      case ActionType::AllToAllV:
        alltoallv(recorder, counts.data() + a.vector, counts.data() + a.vector2);
        break;
      case ActionType::Gather:
        gather(recorder, a.bytes, a.bytes2, a.root);
        break;
      case ActionType::GatherV:
        gatherv(recorder, a.bytes, counts.data() + a.vector, a.root);
        break;
      case ActionType::Scatter:
        scatter(recorder, a.bytes, a.bytes2, a.root);
        break;
      case ActionType::ScatterV:
        scatterv(recorder, counts.data() + a.vector, a.bytes2, a.root);
        break;
      case ActionType::AllGather:
        allgather(recorder, a.bytes, a.bytes2);
        break;
      case ActionType::AllGatherV:
        allgatherv(recorder, a.bytes, counts.data() + a.vector);
        break;
      case ActionType::ReduceScatter:
        reduce_scatter(recorder, counts.data() + a.vector, a.bytes2);
        break;
      case ActionType::Scan:
      case ActionType::ExScan:
        scan(recorder, a.bytes);
        break;
      default:
        throw std::logic_error("action " + std::string(trace::action_name(a.type)) + " is not a collective");
    }
    return recorder.take();
  }

private:
  std::map<ActionType, algorithms::Algorithm> blocking_;    // chosen by progsim/coll-algorithms
  std::map<ActionType, algorithms::Algorithm> nonblocking_; // chosen by progsim/nbc-algorithms
};
} // namespace

std::unique_ptr<mpi::CollectiveAlgorithms> make_collectives(const std::string& coll_algorithms,
                                                            const std::string& nbc_algorithms)
{
  using algorithms::Form;
  return std::make_unique<SmpiDefaultCollectives>(
      algorithms::parse_choices(coll_algorithms, "progsim/coll-algorithms", Form::Blocking),
      algorithms::parse_choices(nbc_algorithms, "progsim/nbc-algorithms", Form::NonBlocking));
}

} // namespace progsim::models::collectives::smpi_default
