/*
 * Unit tests of the SMPI 3.32 default-selector collective schedules (models/collectives/SmpiDefault). A recording
 * fake of PointToPoint plays one rank of a world of p ranks; the recorded posts (and waits) are compared with the
 * algorithm definitions in SimGrid 3.32 (src/smpi/colls/..., summarised in
 * /work/notes/smpi-collectives-and-network.md section 2), worked out by hand below.
 */
#include "collectives/PointToPoint.hpp"
#include "collectives/SmpiDefault.hpp"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <ostream>
#include <utility>
#include <vector>

namespace coll = progsim::models::collectives::smpi_default;
using coll::AllToAllAlgorithm;
using progsim::models::collectives::PointToPoint;
using progsim::mpi::Request;
using progsim::mpi::RequestPtr;

namespace {

enum class Kind { Send, Recv, Wait };

struct Op {
  Kind kind;
  int peer;      // destination or source (-1 for a wait)
  int tag;
  int64_t bytes;
  uint64_t id;   // request id (posts) or the id waited for
};

struct Post {
  Kind kind;
  int peer;
  int64_t bytes;
  bool operator==(const Post& o) const { return kind == o.kind && peer == o.peer && bytes == o.bytes; }
};

std::ostream& operator<<(std::ostream& out, const Post& p)
{
  return out << (p.kind == Kind::Send ? "send(" : "recv(") << p.peer << ", " << p.bytes << ")";
}

Post S(int peer, int64_t bytes) { return {Kind::Send, peer, bytes}; }
Post R(int peer, int64_t bytes) { return {Kind::Recv, peer, bytes}; }

/** One rank of a world of `size`: records every isend, irecv and wait; requests never complete. */
class Recorder : public PointToPoint {
public:
  Recorder(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  RequestPtr isend(int destination, int tag, int64_t bytes) override { return post(true, destination, tag, bytes); }
  RequestPtr irecv(int source, int tag, int64_t bytes) override { return post(false, source, tag, bytes); }
  void wait(const RequestPtr& request) override { ops.push_back({Kind::Wait, -1, 0, 0, request->id}); }

  std::vector<Op> ops;

  /** The posts only, in order. */
  std::vector<Post> posts() const
  {
    std::vector<Post> out;
    for (auto const& op : ops)
      if (op.kind != Kind::Wait)
        out.push_back({op.kind, op.peer, op.bytes});
    return out;
  }
  std::vector<Post> posts(Kind kind) const
  {
    std::vector<Post> out;
    for (auto const& p : posts())
      if (p.kind == kind)
        out.push_back(p);
    return out;
  }
  std::vector<int> tags() const
  {
    std::vector<int> out;
    for (auto const& op : ops)
      if (op.kind != Kind::Wait)
        out.push_back(op.tag);
    return out;
  }
  /** Compact form of the event sequence: 'S', 'R' or 'W' per event. */
  std::string pattern() const
  {
    std::string out;
    for (auto const& op : ops)
      out += op.kind == Kind::Send ? 'S' : op.kind == Kind::Recv ? 'R' : 'W';
    return out;
  }
  /** Every posted request is waited exactly once. */
  bool all_waited_once() const
  {
    std::map<uint64_t, int> waits;
    std::vector<uint64_t> posted;
    for (auto const& op : ops)
      if (op.kind == Kind::Wait)
        waits[op.id]++;
      else
        posted.push_back(op.id);
    if (waits.size() != posted.size())
      return false;
    for (auto id : posted)
      if (waits[id] != 1)
        return false;
    return true;
  }

private:
  RequestPtr post(bool is_send, int peer, int tag, int64_t bytes)
  {
    auto r     = std::make_shared<Request>();
    r->id      = next_id_++;
    r->is_send = is_send;
    r->owner   = rank_;
    r->peer    = peer;
    r->tag     = tag;
    r->bytes   = bytes;
    r->context = progsim::mpi::Context::Collective;
    ops.push_back({is_send ? Kind::Send : Kind::Recv, peer, tag, bytes, r->id});
    return r;
  }

  int rank_;
  int size_;
  uint64_t next_id_ = 1;
};

/** Runs `body` for every rank of a world of p and returns the recorders. */
template <typename Body>
std::vector<Recorder> run_all(int p, Body body)
{
  std::vector<Recorder> ranks;
  for (int r = 0; r < p; r++) {
    ranks.emplace_back(r, p);
    body(ranks.back());
  }
  return ranks;
}

/** Across all ranks, every send (src -> dst, bytes) has exactly one receive (dst <- src) of the same size. */
void expect_sends_match_receives(const std::vector<Recorder>& ranks)
{
  std::map<std::pair<int, int>, std::vector<int64_t>> sent, received;
  for (int r = 0; r < static_cast<int>(ranks.size()); r++)
    for (auto const& p : ranks[r].posts()) {
      if (p.kind == Kind::Send)
        sent[{r, p.peer}].push_back(p.bytes);
      else
        received[{p.peer, r}].push_back(p.bytes);
    }
  EXPECT_EQ(sent, received);
}

size_t total(const std::vector<Recorder>& ranks, Kind kind)
{
  size_t n = 0;
  for (auto const& r : ranks)
    n += r.posts(kind).size();
  return n;
}

} // namespace

// ---------------------------------------------------------------- barrier (ompi_basic_linear)

TEST(Barrier, NonRootSendsThenReceivesFromZero)
{
  Recorder r(2, 4);
  coll::barrier(r);
  EXPECT_EQ(r.posts(), (std::vector<Post>{S(0, 0), R(0, 0)}));
  EXPECT_EQ(r.pattern(), "SWRW"); // blocking send, then blocking receive
  EXPECT_EQ(r.tags(), (std::vector<int>{-778, -778}));
}

TEST(Barrier, RootReceivesFromAllThenSendsToAll)
{
  Recorder r(0, 4);
  coll::barrier(r);
  EXPECT_EQ(r.posts(), (std::vector<Post>{R(1, 0), R(2, 0), R(3, 0), S(1, 0), S(2, 0), S(3, 0)}));
  EXPECT_EQ(r.pattern(), "RRRWWWSSSWWW"); // all receives complete before any release is sent
  EXPECT_TRUE(r.all_waited_once());
}

TEST(Barrier, SingleRankDoesNothing)
{
  Recorder r(0, 1);
  coll::barrier(r);
  EXPECT_TRUE(r.ops.empty());
}

// ---------------------------------------------------------------- bcast (binomial tree)

TEST(Bcast, BinomialTreeOfEightFromRootZero)
{
  // rel = r; receive from r - lowest set bit; then send to r + mask for the masks below that bit, largest first.
  const std::vector<std::vector<Post>> expected = {
      {S(4, 100), S(2, 100), S(1, 100)}, // 0
      {R(0, 100)},                       // 1
      {R(0, 100), S(3, 100)},            // 2
      {R(2, 100)},                       // 3
      {R(0, 100), S(6, 100), S(5, 100)}, // 4
      {R(4, 100)},                       // 5: a leaf
      {R(4, 100), S(7, 100)},            // 6
      {R(6, 100)},                       // 7
  };
  auto ranks = run_all(8, [](Recorder& r) { coll::bcast(r, 100, 0); });
  for (int r = 0; r < 8; r++) {
    EXPECT_EQ(ranks[r].posts(), expected[r]) << "rank " << r;
    for (int tag : ranks[r].tags())
      EXPECT_EQ(tag, -3334);
    EXPECT_TRUE(ranks[r].all_waited_once()) << r; // blocking recv and sends
  }
  EXPECT_EQ(ranks[4].pattern(), "RWSWSW");
}

TEST(Bcast, NonPowerOfTwoWithNonZeroRoot)
{
  const int p = 6, root = 2;
  auto ranks  = run_all(p, [](Recorder& r) { coll::bcast(r, 7, root); });
  for (int r = 0; r < p; r++) {
    auto recvs = ranks[r].posts(Kind::Recv);
    EXPECT_EQ(recvs.size(), r == root ? 0u : 1u) << "rank " << r;
    if (not recvs.empty()) {
      EXPECT_EQ(ranks[r].posts().front().kind, Kind::Recv) << "rank " << r << " sends before receiving";
    }
  }
  EXPECT_EQ(total(ranks, Kind::Send), static_cast<size_t>(p - 1));
  expect_sends_match_receives(ranks);
  // By hand: rel = (r - 2 + 6) % 6. Root: sends to rel 4, 2, 1 = ranks 0, 4, 3. Rank 0 (rel 4) forwards to rel 5
  // = rank 1; rank 4 (rel 2) forwards to rel 3 = rank 5.
  EXPECT_EQ(ranks[2].posts(), (std::vector<Post>{S(0, 7), S(4, 7), S(3, 7)}));
  EXPECT_EQ(ranks[0].posts(), (std::vector<Post>{R(2, 7), S(1, 7)}));
  EXPECT_EQ(ranks[4].posts(), (std::vector<Post>{R(2, 7), S(5, 7)}));
  EXPECT_EQ(ranks[1].posts(), (std::vector<Post>{R(0, 7)}));
  EXPECT_EQ(ranks[5].posts(), (std::vector<Post>{R(4, 7)}));
}

TEST(Bcast, EveryWorldSizeAndRootIsATree)
{
  for (int p = 1; p <= 13; p++)
    for (int root = 0; root < p; root++) {
      auto ranks = run_all(p, [root](Recorder& r) { coll::bcast(r, 1, root); });
      EXPECT_EQ(total(ranks, Kind::Send), static_cast<size_t>(p - 1)) << p << " " << root;
      for (int r = 0; r < p; r++)
        EXPECT_EQ(ranks[r].posts(Kind::Recv).size(), r == root ? 0u : 1u) << p << " " << root << " " << r;
      expect_sends_match_receives(ranks);
    }
}

// ---------------------------------------------------------------- reduce, allreduce, scan

TEST(Reduce, LinearToRoot)
{
  auto ranks = run_all(5, [](Recorder& r) { coll::reduce(r, 40, 3); });
  EXPECT_EQ(ranks[3].posts(), (std::vector<Post>{R(0, 40), R(1, 40), R(2, 40), R(4, 40)}));
  EXPECT_EQ(ranks[3].pattern(), "RRRRWWWW"); // all posted, then waited
  for (int r : {0, 1, 2, 4}) {
    EXPECT_EQ(ranks[r].posts(), (std::vector<Post>{S(3, 40)})) << r;
    EXPECT_EQ(ranks[r].pattern(), "SW");
  }
  for (auto const& r : ranks)
    for (int tag : r.tags())
      EXPECT_EQ(tag, -112);
}

TEST(Allreduce, ReduceToZeroThenBcastFromZero)
{
  auto ranks = run_all(4, [](Recorder& r) { coll::allreduce(r, 8); });
  EXPECT_EQ(ranks[0].posts(), (std::vector<Post>{R(1, 8), R(2, 8), R(3, 8), S(2, 8), S(1, 8)}));
  EXPECT_EQ(ranks[0].tags(), (std::vector<int>{-112, -112, -112, -3334, -3334}));
  EXPECT_EQ(ranks[1].posts(), (std::vector<Post>{S(0, 8), R(0, 8)}));
  EXPECT_EQ(ranks[2].posts(), (std::vector<Post>{S(0, 8), R(0, 8), S(3, 8)}));
  EXPECT_EQ(ranks[3].posts(), (std::vector<Post>{S(0, 8), R(2, 8)}));
  EXPECT_EQ(ranks[3].tags(), (std::vector<int>{-112, -3334}));
  expect_sends_match_receives(ranks);
}

TEST(Scan, ReceiveFromLowerSendToHigher)
{
  auto ranks = run_all(4, [](Recorder& r) { coll::scan(r, 16); });
  EXPECT_EQ(ranks[0].posts(), (std::vector<Post>{S(1, 16), S(2, 16), S(3, 16)}));
  EXPECT_EQ(ranks[2].posts(), (std::vector<Post>{R(0, 16), R(1, 16), S(3, 16)}));
  EXPECT_EQ(ranks[3].posts(), (std::vector<Post>{R(0, 16), R(1, 16), R(2, 16)}));
  EXPECT_EQ(ranks[2].pattern(), "RRSWWW");
  EXPECT_EQ(total(ranks, Kind::Send), 6u); // p(p-1)/2
  for (auto const& r : ranks)
    for (int tag : r.tags())
      EXPECT_EQ(tag, -888);
  expect_sends_match_receives(ranks);
}

// ---------------------------------------------------------------- gather/scatter families

TEST(GatherScatter, GatherAndScatterAreLinear)
{
  Recorder root(1, 4);
  coll::gather(root, 10, 20, 1);
  EXPECT_EQ(root.posts(), (std::vector<Post>{R(0, 20), R(2, 20), R(3, 20)}));
  EXPECT_EQ(root.tags().front(), -445);
  Recorder leaf(3, 4);
  coll::gather(leaf, 10, 20, 1);
  EXPECT_EQ(leaf.posts(), (std::vector<Post>{S(1, 10)}));

  Recorder sroot(0, 3);
  coll::scatter(sroot, 5, 6, 0);
  EXPECT_EQ(sroot.posts(), (std::vector<Post>{S(1, 5), S(2, 5)}));
  EXPECT_EQ(sroot.tags().front(), -223);
  Recorder sleaf(2, 3);
  coll::scatter(sleaf, 5, 6, 0);
  EXPECT_EQ(sleaf.posts(), (std::vector<Post>{R(0, 6)}));
}

TEST(GatherScatter, ScattervSizesPerDestination)
{
  const int64_t counts[4] = {11, 22, 33, 44};
  Recorder root(1, 4);
  coll::scatterv(root, counts, 22, 1);
  EXPECT_EQ(root.posts(), (std::vector<Post>{S(0, 11), S(2, 33), S(3, 44)})); // none to itself
  EXPECT_EQ(root.pattern(), "SSSWWW");
  for (int tag : root.tags())
    EXPECT_EQ(tag, -334);
  Recorder leaf(3, 4);
  coll::scatterv(leaf, counts, 44, 1);
  EXPECT_EQ(leaf.posts(), (std::vector<Post>{R(1, 44)}));
}

TEST(GatherScatter, GathervSizesPerSource)
{
  const int64_t counts[3] = {0, 5, 9};
  Recorder root(0, 3);
  coll::gatherv(root, 0, counts, 0);
  EXPECT_EQ(root.posts(), (std::vector<Post>{R(1, 5), R(2, 9)}));
  EXPECT_EQ(root.tags().front(), -2223);
  Recorder leaf(2, 3);
  coll::gatherv(leaf, 9, counts, 0);
  EXPECT_EQ(leaf.posts(), (std::vector<Post>{S(0, 9)}));
}

TEST(Allgather, InterleavedSendAndReceiveWithEveryOther)
{
  Recorder r(2, 4);
  coll::allgather(r, 10, 12);
  EXPECT_EQ(r.posts(), (std::vector<Post>{S(0, 10), R(0, 12), S(1, 10), R(1, 12), S(3, 10), R(3, 12)}));
  EXPECT_EQ(r.pattern(), "SRSRSRWWWWWW");
  for (int tag : r.tags())
    EXPECT_EQ(tag, -556);
  auto ranks = run_all(5, [](Recorder& x) { coll::allgather(x, 3, 3); });
  EXPECT_EQ(total(ranks, Kind::Send), 20u); // p(p-1)
  expect_sends_match_receives(ranks);
}

TEST(Allgather, AllgathervReceivesEachRanksCount)
{
  const int64_t counts[3] = {4, 8, 16};
  auto ranks = run_all(3, [&counts](Recorder& x) { coll::allgatherv(x, counts[x.rank()], counts); });
  EXPECT_EQ(ranks[1].posts(), (std::vector<Post>{S(0, 8), R(0, 4), S(2, 8), R(2, 16)}));
  EXPECT_EQ(ranks[1].tags().front(), -667);
  expect_sends_match_receives(ranks);
}

TEST(Alltoallv, ReceivesThenSendsSkippingSelf)
{
  const int64_t send[4] = {1, 2, 0, 4};
  const int64_t recv[4] = {5, 6, 7, 0};
  Recorder r(1, 4);
  coll::alltoallv(r, send, recv);
  // A zero count still makes a message; the block for oneself is a local copy.
  EXPECT_EQ(r.posts(), (std::vector<Post>{R(0, 5), R(2, 7), R(3, 0), S(0, 1), S(2, 0), S(3, 4)}));
  EXPECT_EQ(r.pattern(), "RRRSSSWWWWWW");
  for (int tag : r.tags())
    EXPECT_EQ(tag, -1000);
}

TEST(Alltoallv, MessageCountsAcrossTheWorld)
{
  // counts[i][j] = bytes from i to j.
  const int p = 5;
  std::vector<std::vector<int64_t>> c(p, std::vector<int64_t>(p));
  for (int i = 0; i < p; i++)
    for (int j = 0; j < p; j++)
      c[i][j] = 10 * i + j;
  auto ranks = run_all(p, [&](Recorder& x) {
    std::vector<int64_t> recv(p);
    for (int i = 0; i < p; i++)
      recv[i] = c[i][x.rank()];
    coll::alltoallv(x, c[x.rank()].data(), recv.data());
  });
  EXPECT_EQ(total(ranks, Kind::Send), static_cast<size_t>(p * (p - 1)));
  EXPECT_EQ(total(ranks, Kind::Recv), static_cast<size_t>(p * (p - 1)));
  expect_sends_match_receives(ranks);
}

// ---------------------------------------------------------------- alltoall

TEST(AlltoallDecision, OpenMpiTable)
{
  using A = AllToAllAlgorithm;
  // "Any size -> linear" holds for 8 <= p < 16 (Open MPI: `communicator_size < 16` -> alg 4 or 1). p = 16 itself is
  // in the next band (`< 32`: b < 4 -> linear_sync, b < 512 -> modified_bruck, else linear), checked against
  // src/smpi/colls/smpi_openmpi_selector.cpp at SimGrid v3.32.
  EXPECT_EQ(coll::alltoall_algorithm(15, 1), A::Linear);
  EXPECT_EQ(coll::alltoall_algorithm(15, 100), A::Linear);
  EXPECT_EQ(coll::alltoall_algorithm(15, 1 << 30), A::Linear);
  EXPECT_EQ(coll::alltoall_algorithm(16, 1), A::Linear);
  EXPECT_EQ(coll::alltoall_algorithm(16, 100), A::Bruck);
  EXPECT_EQ(coll::alltoall_algorithm(16, 1 << 30), A::Linear);
  // Examples from the brief.
  EXPECT_EQ(coll::alltoall_algorithm(32, 100), A::Bruck);
  EXPECT_EQ(coll::alltoall_algorithm(128, 2048), A::Linear);
  EXPECT_EQ(coll::alltoall_algorithm(128, 300000), A::Pair);
  EXPECT_EQ(coll::alltoall_algorithm(2, 1), A::Pair);
}

TEST(AlltoallDecision, TwoRanksAlternate)
{
  using A = AllToAllAlgorithm;
  // p == 2: <2 pair | <4 lin | <16 pair | <64 lin | <256 pair | <4096 lin | <32768 pair | <1048576 lin | else pair
  const std::vector<std::pair<int64_t, A>> cases = {
      {0, A::Pair},        {1, A::Pair},          {2, A::Linear},        {3, A::Linear},      {4, A::Pair},
      {15, A::Pair},       {16, A::Linear},       {63, A::Linear},       {64, A::Pair},       {255, A::Pair},
      {256, A::Linear},    {4095, A::Linear},     {4096, A::Pair},       {32767, A::Pair},    {32768, A::Linear},
      {262143, A::Linear}, {262144, A::Linear},   {1048575, A::Linear},  {1048576, A::Pair},  {1 << 30, A::Pair}};
  for (auto const& [b, alg] : cases)
    EXPECT_EQ(coll::alltoall_algorithm(2, b), alg) << "b=" << b;
}

TEST(AlltoallDecision, BoundariesOfEveryBand)
{
  using A = AllToAllAlgorithm;
  struct Case {
    int p;
    int64_t b;
    A alg;
  };
  const std::vector<Case> cases = {
      // p < 8: linear except 524288 <= b < 1048576 (pair)
      {3, 0, A::Linear}, {7, 524287, A::Linear}, {4, 524288, A::Pair}, {7, 1048575, A::Pair}, {4, 1048576, A::Linear},
      // 8 <= p < 16: linear
      {8, 0, A::Linear}, {8, 100, A::Linear}, {15, 600000, A::Linear},
      // 16 <= p < 32: <4 lin | <512 bruck | else lin
      {16, 3, A::Linear}, {16, 4, A::Bruck}, {31, 511, A::Bruck}, {31, 512, A::Linear}, {20, 1 << 20, A::Linear},
      // 32 <= p < 64: <512 bruck | else lin
      {32, 0, A::Bruck}, {63, 511, A::Bruck}, {63, 512, A::Linear}, {40, 1 << 22, A::Linear},
      // 64 <= p < 256: <1024 bruck | <262144 lin | else pair
      {64, 1023, A::Bruck}, {64, 1024, A::Linear}, {127, 262143, A::Linear}, {127, 262144, A::Pair},
      {255, 1023, A::Bruck}, {255, 262143, A::Linear}, {255, 262144, A::Pair},
      // 256 <= p < 512: <1024 bruck | <32768 lin | else pair
      {256, 1023, A::Bruck}, {256, 1024, A::Linear}, {511, 32767, A::Linear}, {511, 32768, A::Pair},
      // 512 <= p < 1024: <512 bruck | <262144 lin | else pair
      {512, 511, A::Bruck}, {512, 512, A::Linear}, {1023, 262143, A::Linear}, {1023, 262144, A::Pair},
      // 1024 <= p < 2048: <512 bruck | else lin
      {1024, 511, A::Bruck}, {2047, 512, A::Linear}, {1024, 1 << 30, A::Linear},
      // 2048 <= p < 4096: <1024 bruck | else lin
      {2048, 1023, A::Bruck}, {4095, 1024, A::Linear},
      // p >= 4096: <2048 bruck | else lin
      {4096, 2047, A::Bruck}, {100000, 2048, A::Linear},
  };
  for (auto const& c : cases)
    EXPECT_EQ(coll::alltoall_algorithm(c.p, c.b), c.alg) << "p=" << c.p << " b=" << c.b;
}

TEST(Alltoall, LinearScheduleReceivesForwardSendsBackward)
{
  // p = 4 (< 8), 100 bytes: basic_linear. Rank 1 receives from 2, 3, 0 and sends to 0, 3, 2.
  Recorder r(1, 4);
  coll::alltoall(r, 100, 100);
  EXPECT_EQ(r.posts(), (std::vector<Post>{R(2, 100), R(3, 100), R(0, 100), S(0, 100), S(3, 100), S(2, 100)}));
  EXPECT_EQ(r.pattern(), "RRRSSSWWWWWW");
  for (int tag : r.tags())
    EXPECT_EQ(tag, -1112);
}

TEST(Alltoall, PairScheduleExchangesWithRankXorStep)
{
  // p = 4, b = 600000: 524288 <= b < 1048576 -> pairwise. Rank 1 exchanges with 1^1=0, 1^2=3, 1^3=2.
  Recorder r(1, 4);
  coll::alltoall(r, 600000, 600000);
  EXPECT_EQ(r.posts(), (std::vector<Post>{S(0, 600000), R(0, 600000), S(3, 600000), R(3, 600000), S(2, 600000),
                                          R(2, 600000)}));
  EXPECT_EQ(r.pattern(), "SRWWSRWWSRWW"); // each step completes before the next (sendrecv)

  Recorder two(0, 2); // p = 2, 1 byte: pairwise, one exchange with rank 1
  coll::alltoall(two, 1, 1);
  EXPECT_EQ(two.posts(), (std::vector<Post>{S(1, 1), R(1, 1)}));
}

TEST(Alltoall, PairOnNonPowerOfTwoFallsBackToLinear)
{
  // SMPI's alltoall__pair aborts for p not a power of two; the engine documents a fall-back to basic_linear.
  ASSERT_EQ(coll::alltoall_algorithm(6, 600000), AllToAllAlgorithm::Pair);
  Recorder r(0, 6);
  coll::alltoall(r, 600000, 600000);
  EXPECT_EQ(r.posts().size(), 10u);
  EXPECT_EQ(r.pattern(), "RRRRRSSSSSWWWWWWWWWW");
}

TEST(Alltoall, BruckBlockCountsPerStep)
{
  // p = 20, 100 bytes per peer: Bruck. At step pof2, nblk = #{block in 1..19 : block & pof2}:
  // pof2=1: 10, 2: 10, 4: 8 (4-7, 12-15), 8: 8 (8-15), 16: 4 (16-19). Send to r+pof2, receive from r-pof2.
  const int p = 20;
  Recorder r(3, p);
  coll::alltoall(r, 100, 100);
  EXPECT_EQ(r.posts(), (std::vector<Post>{S(4, 1000), R(2, 1000), S(5, 1000), R(1, 1000), S(7, 800), R(19, 800),
                                          S(11, 800), R(15, 800), S(19, 400), R(7, 400)}));
  EXPECT_EQ(r.pattern(), "SRWWSRWWSRWWSRWWSRWW");
  for (int tag : r.tags())
    EXPECT_EQ(tag, -1112);
  auto ranks = run_all(p, [](Recorder& x) { coll::alltoall(x, 100, 100); });
  expect_sends_match_receives(ranks);
}

TEST(Alltoall, BruckOnPowerOfTwoSendsHalfTheBlocksEachStep)
{
  // p = 32, 8 bytes: Bruck, 5 steps of 16 blocks each.
  Recorder r(0, 32);
  coll::alltoall(r, 8, 8);
  auto sends = r.posts(Kind::Send);
  ASSERT_EQ(sends.size(), 5u);
  const int dst[5] = {1, 2, 4, 8, 16};
  for (int i = 0; i < 5; i++)
    EXPECT_EQ(sends[i], S(dst[i], 128)) << i;
}

// Bruck's block counts for p = 5 (pof2 = 1: blocks 1,3 -> 2; pof2 = 2: blocks 2,3 -> 2; pof2 = 4: block 4 -> 1)
// cannot be observed through the public interface: the default decision never picks Bruck below 16 ranks, and
// alltoall_bruck is file-local. The p = 20 case above covers a non-power-of-two world instead.
TEST(Alltoall, FiveRanksNeverUseBruck)
{
  for (int64_t b : {0, 1, 100, 1000, 100000, 600000, 2000000})
    EXPECT_NE(coll::alltoall_algorithm(5, b), AllToAllAlgorithm::Bruck) << b;
}

// ---------------------------------------------------------------- reduce_scatter

TEST(ReduceScatter, RegularCountsReduceThenScatterv)
{
  const int64_t counts[4] = {8, 8, 8, 8};
  auto ranks = run_all(4, [&counts](Recorder& x) { coll::reduce_scatter(x, counts, 4); });
  EXPECT_EQ(ranks[0].posts(), (std::vector<Post>{R(1, 32), R(2, 32), R(3, 32), S(1, 8), S(2, 8), S(3, 8)}));
  EXPECT_EQ(ranks[0].tags(), (std::vector<int>{-112, -112, -112, -334, -334, -334}));
  EXPECT_EQ(ranks[2].posts(), (std::vector<Post>{S(0, 32), R(0, 8)}));
  expect_sends_match_receives(ranks);
}

TEST(ReduceScatter, IrregularSmallUsesRecursiveDoubling)
{
  // p = 4, counts {1,2,3,4} bytes of 1-byte elements, total 10 <= 524288 -> mpich_rdb.
  // Rank 0: mask 1 -> dst 1, send sum outside [0,1) = 9, recv sum outside [1,2) = 8;
  //         mask 2 -> dst 2, send sum outside [0,2) = 7, recv sum outside [2,4) = 3.
  const int64_t counts[4] = {1, 2, 3, 4};
  auto ranks = run_all(4, [&counts](Recorder& x) { coll::reduce_scatter(x, counts, 1); });
  EXPECT_EQ(ranks[0].posts(), (std::vector<Post>{S(1, 9), R(1, 8), S(2, 7), R(2, 3)}));
  for (int tag : ranks[0].tags())
    EXPECT_EQ(tag, -889);
  expect_sends_match_receives(ranks);
}

TEST(ReduceScatter, ElementSizeDecidesBetweenRdbAndPair)
{
  // 3,000,000 bytes in total: 375,000 doubles (<= 524288 -> rdb) but 3,000,000 bytes-as-elements (-> pair).
  const int64_t counts[3] = {1000000, 1000008, 999992};
  Recorder doubles(0, 3);
  coll::reduce_scatter(doubles, counts, 8);
  Recorder bytes(0, 3);
  coll::reduce_scatter(bytes, counts, 1);
  // Pair: for i = 1..p-1, dst = r+i, src = r-i; send counts[dst], receive counts[r].
  EXPECT_EQ(bytes.posts(),
            (std::vector<Post>{S(1, 1000008), R(2, 1000000), S(2, 999992), R(1, 1000000)}));
  EXPECT_NE(doubles.posts(), bytes.posts());
  // rdb for p = 3, rank 0: mask 1 -> dst 1: send outside [0,1) = 2000000, recv outside [1,2) = 1999992;
  // mask 2 -> dst 2: send outside [0,2) = 999992, recv outside [2,4) = 2000008; then the non-power-of-two
  // fix-up (dst_root + mask = 4 > 3, nprocs_completed = 1): rank 1 had no partner, so rank 0 passes it the
  // 2000008 it just received (d = 0^1 = 1 > 0, 0 < 1, 1 >= 1).
  EXPECT_EQ(doubles.posts(), (std::vector<Post>{S(1, 2000000), R(1, 1999992), S(2, 999992), R(2, 2000008),
                                                S(1, 2000008)}));
}

TEST(ReduceScatter, NonPowerOfTwoRdbIsConsistentAcrossRanks)
{
  const int64_t counts[5] = {1, 2, 3, 4, 5};
  auto ranks = run_all(5, [&counts](Recorder& x) { coll::reduce_scatter(x, counts, 1); });
  expect_sends_match_receives(ranks);
  for (auto const& r : ranks)
    EXPECT_TRUE(r.all_waited_once()) << r.rank();
}
