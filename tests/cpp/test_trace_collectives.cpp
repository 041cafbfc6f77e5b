/*
 * Unit tests of the trace reader (simulator/trace): the argument layout of every collective of SimGrid 3.32's replay
 * (src/smpi/internals/smpi_replay.cpp), the per-rank vectors of the v-collectives included. Expected values come
 * from SMPI's documented format (/work/notes/smpi-replay-semantics.md) and from arithmetic (bytes = count x datatype
 * size).
 */
#include "trace/Action.hpp"

#include "TraceParsing.hpp"
#include <gtest/gtest.h>

#include <string>
#include <vector>

using progsim::trace::Action;
using progsim::trace::ActionType;

using progsim::testing::contains;
using progsim::testing::one;
using progsim::testing::parse;
using progsim::testing::parse_error;
using progsim::testing::Parsed;

// ---------------------------------------------------------------- collectives

TEST(ParseCollectives, Bcast)
{
  Action a = one("0 bcast 10 2 1\n");
  EXPECT_EQ(a.type, ActionType::Bcast);
  EXPECT_EQ(a.bytes, 40);
  EXPECT_EQ(a.root, 2);
  Action b = one("0 bcast 10\n");
  EXPECT_EQ(b.bytes, 10);
  EXPECT_EQ(b.root, 0);
}

TEST(ParseCollectives, ReduceAllreduceScanExscan)
{
  Action r = one("0 reduce 10 5e3 3 0\n");
  EXPECT_EQ(r.type, ActionType::Reduce);
  EXPECT_EQ(r.bytes, 80);
  EXPECT_DOUBLE_EQ(r.flops, 5000.0);
  EXPECT_EQ(r.root, 3);
  Action r2 = one("0 reduce 10 0\n");
  EXPECT_EQ(r2.root, 0);
  EXPECT_EQ(r2.bytes, 10);

  for (const char* name : {"allreduce", "scan", "exscan"}) {
    Action a = one(std::string("0 ") + name + " 10 100 1\n");
    EXPECT_EQ(a.bytes, 40) << name;
    EXPECT_DOUBLE_EQ(a.flops, 100.0) << name;
    EXPECT_EQ(a.root, 0) << name;
  }
  EXPECT_EQ(one("0 scan 3 1\n").type, ActionType::Scan);
  EXPECT_EQ(one("0 exscan 3 1\n").type, ActionType::ExScan);
  EXPECT_EQ(one("0 allreduce 3 1\n").type, ActionType::AllReduce);
}

TEST(ParseCollectives, AlltoallAndAllgatherUseTwoDatatypes)
{
  Action a = one("0 alltoall 10 20 0 1\n");
  EXPECT_EQ(a.type, ActionType::AllToAll);
  EXPECT_EQ(a.bytes, 80);  // 10 doubles per peer
  EXPECT_EQ(a.bytes2, 80); // 20 ints per peer
  Action g = one("0 allgather 3 5 2 3\n");
  EXPECT_EQ(g.type, ActionType::AllGather);
  EXPECT_EQ(g.bytes, 3);
  EXPECT_EQ(g.bytes2, 10);
  Action d = one("0 alltoall 10 20\n");
  EXPECT_EQ(d.bytes, 10);
  EXPECT_EQ(d.bytes2, 20);
}

TEST(ParseCollectives, GatherAndScatterHaveRootBeforeDatatypes)
{
  Action g = one("0 gather 10 20 2 1 0\n");
  EXPECT_EQ(g.type, ActionType::Gather);
  EXPECT_EQ(g.bytes, 40);   // sendtype int
  EXPECT_EQ(g.bytes2, 160); // recvtype double
  EXPECT_EQ(g.root, 2);
  Action s = one("0 scatter 10 20 3\n");
  EXPECT_EQ(s.type, ActionType::Scatter);
  EXPECT_EQ(s.bytes, 10);
  EXPECT_EQ(s.bytes2, 20);
  EXPECT_EQ(s.root, 3);
  EXPECT_EQ(one("0 gather 1 1\n").root, 0);
}

TEST(ParseCollectives, GathervVectorSizedByWorld)
{
  // r gatherv <sendcount> <recvcount x N> [root] [sendtype] [recvtype], N = 4
  Parsed p = parse("0 gatherv 10 1 2 3 4 2 1 0\n");
  const Action& a = p.at(0);
  EXPECT_EQ(a.type, ActionType::GatherV);
  EXPECT_EQ(a.bytes, 40);
  EXPECT_EQ(a.root, 2);
  EXPECT_EQ(p.vec(a.vector, 4), (std::vector<int64_t>{8, 16, 24, 32}));

  Parsed q = parse("0 gatherv 10 1 2 3 4\n");
  EXPECT_EQ(q.at(0).root, 0);
  EXPECT_EQ(q.at(0).bytes, 10);
  EXPECT_EQ(q.vec(q.at(0).vector, 4), (std::vector<int64_t>{1, 2, 3, 4}));

  // With 2 ranks the same words mean: counts {1, 2}, root 3 -> outside the world.
  EXPECT_TRUE(contains(parse_error("0 gatherv 10 1 2 3\n", 0, 2), "root 3 is outside the 2 ranks"));
}

TEST(ParseCollectives, ScattervLayout)
{
  // r scatterv <sendcount x N> <recvcount> [root] [sendtype] [recvtype]
  Parsed p = parse("0 scatterv 1 2 3 4 10 3 0 1\n");
  const Action& a = p.at(0);
  EXPECT_EQ(a.type, ActionType::ScatterV);
  EXPECT_EQ(p.vec(a.vector, 4), (std::vector<int64_t>{8, 16, 24, 32}));
  EXPECT_EQ(a.bytes2, 40);
  EXPECT_EQ(a.root, 3);
}

TEST(ParseCollectives, AlltoallvLayout)
{
  // r alltoallv <sendbufsize> <sendcount x N> <recvbufsize> <recvcount x N> [sendtype] [recvtype]
  Parsed p = parse("0 alltoallv 100 1 2 3 4 200 5 6 7 8 0 1\n");
  const Action& a = p.at(0);
  EXPECT_EQ(a.type, ActionType::AllToAllV);
  EXPECT_EQ(a.bytes, 100);
  EXPECT_EQ(a.bytes2, 200);
  EXPECT_EQ(p.vec(a.vector, 4), (std::vector<int64_t>{8, 16, 24, 32}));
  EXPECT_EQ(p.vec(a.vector2, 4), (std::vector<int64_t>{20, 24, 28, 32}));

  Parsed q = parse("0 alltoallv 4 1 0 0 3 4 0 2 2 0\n");
  EXPECT_EQ(q.vec(q.at(0).vector, 4), (std::vector<int64_t>{1, 0, 0, 3}));
  EXPECT_EQ(q.vec(q.at(0).vector2, 4), (std::vector<int64_t>{0, 2, 2, 0}));
}

TEST(ParseCollectives, AllgathervThreeTailLayouts)
{
  // N = 4. Tail = datatypes + displacements (size > 2N+3 = 11 words).
  Parsed a = parse("0 allgatherv 10 1 2 3 4 0 1 0 1 3 6\n");
  EXPECT_EQ(a.at(0).type, ActionType::AllGatherV);
  EXPECT_EQ(a.at(0).bytes, 80);                                                 // sendtype double
  EXPECT_EQ(a.vec(a.at(0).vector, 4), (std::vector<int64_t>{4, 8, 12, 16}));    // recvtype int

  // Displacements only (N+5 < size <= 2N+3): the default datatype for both.
  Parsed b = parse("0 allgatherv 10 1 2 3 4 0 1 3 6\n");
  EXPECT_EQ(b.at(0).bytes, 10);
  EXPECT_EQ(b.vec(b.at(0).vector, 4), (std::vector<int64_t>{1, 2, 3, 4}));
  Parsed b8 = parse("0 init 1\n0 allgatherv 10 1 2 3 4 0 1 3 6\n"); // default = double
  EXPECT_EQ(b8.at(1).bytes, 80);
  EXPECT_EQ(b8.vec(b8.at(1).vector, 4), (std::vector<int64_t>{8, 16, 24, 32}));

  // Datatypes only (size <= N+5).
  Parsed c = parse("0 allgatherv 10 1 2 3 4 1 0\n");
  EXPECT_EQ(c.at(0).bytes, 40);
  EXPECT_EQ(c.vec(c.at(0).vector, 4), (std::vector<int64_t>{8, 16, 24, 32}));

  // Nothing after the counts.
  Parsed d = parse("0 allgatherv 10 1 2 3 4\n");
  EXPECT_EQ(d.at(0).bytes, 10);
  EXPECT_EQ(d.vec(d.at(0).vector, 4), (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST(ParseCollectives, ReducescatterStoresElementSizeInBytes2)
{
  // r reducescatter <recvcount x N> <flops> [datatype]
  Parsed p = parse("0 reducescatter 1 2 3 4 1e3 1\n");
  const Action& a = p.at(0);
  EXPECT_EQ(a.type, ActionType::ReduceScatter);
  EXPECT_EQ(a.bytes2, 4); // MPI_INT
  EXPECT_DOUBLE_EQ(a.flops, 1000.0);
  EXPECT_EQ(p.vec(a.vector, 4), (std::vector<int64_t>{4, 8, 12, 16}));

  Parsed q = parse("0 reducescatter 5 5 5 5 0\n");
  EXPECT_EQ(q.at(0).bytes2, 1); // MPI_BYTE by default
  EXPECT_EQ(q.vec(q.at(0).vector, 4), (std::vector<int64_t>{5, 5, 5, 5}));

  Parsed r = parse("0 init 1\n0 reducescatter 5 5 5 5 0\n");
  EXPECT_EQ(r.at(1).bytes2, 8); // MPI_DOUBLE after "init <word>"
  EXPECT_EQ(r.vec(r.at(1).vector, 4), (std::vector<int64_t>{40, 40, 40, 40}));

  Parsed z = parse("0 reducescatter 5 5 5 5 0 -1\n");
  EXPECT_EQ(z.at(0).bytes2, 0);
  EXPECT_EQ(z.vec(z.at(0).vector, 4), (std::vector<int64_t>{0, 0, 0, 0}));
}

TEST(ParseCollectives, VectorsOfSeveralActionsDoNotOverlap)
{
  Parsed p = parse("0 gatherv 1 1 2\n0 alltoallv 0 3 4 0 5 6\n0 scatterv 7 8 9\n", 0, 2);
  ASSERT_EQ(p.trace.actions.size(), 3u);
  EXPECT_EQ(p.set.pool.size(), 8u); // 2 + 2x2 + 2
  EXPECT_EQ(p.vec(p.at(0).vector, 2), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(p.vec(p.at(1).vector, 2), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(p.vec(p.at(1).vector2, 2), (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(p.vec(p.at(2).vector, 2), (std::vector<int64_t>{7, 8}));
  EXPECT_EQ(p.at(2).bytes2, 9);
}
