/*
 * Unit tests of the SMPI 3.32 default-selector collective schedules (models/collectives/SmpiDefault). A recording
 * fake of PointToPoint (RecordingPointToPoint.hpp) plays one rank of a world of p ranks; the recorded posts (and
 * waits) are compared with the algorithm definitions in SimGrid 3.32 (src/smpi/colls/..., summarised in
 * /work/notes/smpi-collectives-and-network.md section 2), worked out by hand below. Barrier, bcast, reduce, allreduce,
 * scan, the gather and scatter families and alltoallv here; alltoall and reduce_scatter:
 * test_collectives_alltoall.cpp.
 */
#include "collectives/SmpiDefault.hpp"

#include "RecordingPointToPoint.hpp"
#include <gtest/gtest.h>

#include <vector>

namespace coll = progsim::models::collectives::smpi_default;

using progsim::testing::expect_sends_match_receives;
using progsim::testing::Kind;
using progsim::testing::Post;
using progsim::testing::R;
using progsim::testing::Recorder;
using progsim::testing::run_all;
using progsim::testing::S;
using progsim::testing::total;

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
