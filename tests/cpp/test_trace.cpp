/*
 * Unit tests of the trace reader (simulator/trace): action names, datatype sizes, the argument layout of every
 * action of SimGrid 3.32's replay (src/smpi/internals/smpi_replay.cpp) and error reporting. Reading files:
 * test_trace_files.cpp. Expected values come from SMPI's documented format
 * (/work/notes/smpi-replay-semantics.md) and from arithmetic (bytes = count x datatype size).
 */
#include "mpi/Request.hpp"
#include "trace/Action.hpp"
#include "trace/Datatype.hpp"
#include "trace/TraceSet.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>


using progsim::trace::Action;
using progsim::trace::ActionType;
using progsim::trace::RankTrace;
using progsim::trace::TraceError;
using progsim::trace::TraceSet;

namespace {

/** The result of parsing one rank's lines. */
struct Parsed {
  TraceSet set;
  RankTrace trace;

  const Action& at(size_t i) const { return trace.actions.at(i); }
  std::vector<int64_t> vec(uint32_t offset, int n) const
  {
    const int64_t* v = set.vector_at(offset);
    return std::vector<int64_t>(v, v + n);
  }
};

Parsed parse(const std::string& text, int rank = 0, int world = 4, const std::string& file = "t.txt")
{
  Parsed p;
  std::istringstream in(text);
  progsim::trace::parse_rank_lines(in, file, rank, world, p.set, p.trace);
  return p;
}

/** Parses `text` and returns the only action it holds. */
Action one(const std::string& text, int world = 4)
{
  Parsed p = parse(text, 0, world);
  EXPECT_EQ(p.trace.actions.size(), 1u) << text;
  return p.trace.actions.empty() ? Action{} : p.trace.actions.front();
}

/** The message of the TraceError that parsing `text` throws (fails the test if none is thrown). */
std::string parse_error(const std::string& text, int rank = 0, int world = 4, const std::string& file = "t.txt")
{
  try {
    parse(text, rank, world, file);
  } catch (const TraceError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no TraceError for: " << text;
  return "";
}

bool contains(const std::string& haystack, const std::string& needle)
{
  return haystack.find(needle) != std::string::npos;
}

} // namespace

// ---------------------------------------------------------------- action names

TEST(ActionNames, EveryReplayActionRoundTrips)
{
  // Exactly the names that smpi_replay_init registers.
  const std::vector<std::string> names = {
      "init",      "finalize",  "comm_size", "comm_split", "comm_dup",  "send",          "isend",
      "recv",      "irecv",     "test",      "wait",       "waitall",   "sendRecv",      "barrier",
      "bcast",     "reduce",    "allreduce", "alltoall",   "alltoallv", "gather",        "gatherv",
      "scatter",   "scatterv",  "allgather", "allgatherv", "reducescatter", "scan",      "exscan",
      "compute",   "sleep",     "location"};
  EXPECT_EQ(names.size(), 31u);
  for (auto const& name : names) {
    ActionType type{};
    ASSERT_TRUE(progsim::trace::action_from_name(name, type)) << name;
    EXPECT_EQ(progsim::trace::action_name(type), name);
  }
}

TEST(ActionNames, SpellingIsExact)
{
  ActionType type = ActionType::Barrier;
  EXPECT_FALSE(progsim::trace::action_from_name("sendrecv", type)); // SMPI spells it sendRecv
  EXPECT_FALSE(progsim::trace::action_from_name("Send", type));
  EXPECT_FALSE(progsim::trace::action_from_name("reduce_scatter", type));
  EXPECT_FALSE(progsim::trace::action_from_name("iprobe", type));
  EXPECT_FALSE(progsim::trace::action_from_name("", type));
  EXPECT_EQ(type, ActionType::Barrier); // untouched on failure
  EXPECT_TRUE(progsim::trace::action_from_name("sendRecv", type));
  EXPECT_EQ(type, ActionType::SendRecv);
}

// ---------------------------------------------------------------- datatypes

TEST(Datatype, SizesOfSmpiIds)
{
  using progsim::trace::datatype_size;
  EXPECT_EQ(datatype_size("0"), 8);  // MPI_DOUBLE
  EXPECT_EQ(datatype_size("1"), 4);  // MPI_INT
  EXPECT_EQ(datatype_size("2"), 1);  // MPI_CHAR
  EXPECT_EQ(datatype_size("3"), 2);  // MPI_SHORT
  EXPECT_EQ(datatype_size("4"), 8);  // MPI_LONG
  EXPECT_EQ(datatype_size("5"), 4);  // MPI_FLOAT
  EXPECT_EQ(datatype_size("6"), 1);  // MPI_BYTE
  EXPECT_EQ(datatype_size("7"), 8);  // MPI_LONG_LONG
  EXPECT_EQ(datatype_size("14"), 16); // MPI_LONG_DOUBLE
  EXPECT_EQ(datatype_size("32"), 16); // MPI_DOUBLE_INT
  EXPECT_EQ(datatype_size("55"), 0);  // MPI_UB
  EXPECT_EQ(datatype_size("56"), 0);  // MPI_LB
  EXPECT_EQ(datatype_size("57"), 1);  // MPI_PACKED
  EXPECT_EQ(datatype_size("59"), 8);  // MPI_COUNT, the last id
  EXPECT_EQ(datatype_size("-1"), 0);  // derived datatype: replayed as 0 bytes
}

TEST(Datatype, UnknownIdsAreRejected)
{
  using progsim::trace::datatype_size;
  EXPECT_FALSE(datatype_size("60").has_value());
  EXPECT_FALSE(datatype_size("99").has_value());
  EXPECT_FALSE(datatype_size("-2").has_value());
  EXPECT_FALSE(datatype_size("1.0").has_value());
  EXPECT_FALSE(datatype_size("int").has_value());
  EXPECT_FALSE(datatype_size("").has_value());
  EXPECT_FALSE(datatype_size("1x").has_value());
}

// ---------------------------------------------------------------- point-to-point layouts

TEST(ParsePointToPoint, SendLayoutAndDefaultByteType)
{
  Action a = one("0 send 3 7 100\n");
  EXPECT_EQ(a.type, ActionType::Send);
  EXPECT_EQ(a.peer, 3);
  EXPECT_EQ(a.tag, 7);
  EXPECT_EQ(a.bytes, 100); // no init: MPI_BYTE, 1 byte per element
  EXPECT_EQ(a.line, 1u);
}

TEST(ParsePointToPoint, DatatypeScalesTheCount)
{
  EXPECT_EQ(one("0 send 1 0 100 0\n").bytes, 800);  // double
  EXPECT_EQ(one("0 send 1 0 100 1\n").bytes, 400);  // int
  EXPECT_EQ(one("0 send 1 0 100 2\n").bytes, 100);  // char
  EXPECT_EQ(one("0 send 1 0 100 6\n").bytes, 100);  // byte
  EXPECT_EQ(one("0 send 1 0 100 -1\n").bytes, 0);   // derived: 0 bytes
  EXPECT_EQ(one("0 isend 1 0 100 3\n").bytes, 200); // short
}

TEST(ParsePointToPoint, InitWithAnExtraWordMakesDoubleTheDefault)
{
  Parsed p = parse("0 init 1\n0 send 1 0 10\n0 send 1 0 10 1\n");
  ASSERT_EQ(p.trace.actions.size(), 3u);
  EXPECT_EQ(p.at(0).type, ActionType::Init);
  EXPECT_EQ(p.at(1).bytes, 80); // default = MPI_DOUBLE
  EXPECT_EQ(p.at(2).bytes, 40); // an explicit datatype still wins

  Parsed q = parse("0 init\n0 send 1 0 10\n");
  EXPECT_EQ(q.at(1).bytes, 10); // plain init: MPI_BYTE
}

TEST(ParsePointToPoint, InitOnlyAffectsTheLinesAfterIt)
{
  Parsed p = parse("0 send 1 0 10\n0 init x\n0 send 1 0 10\n");
  EXPECT_EQ(p.at(0).bytes, 10);
  EXPECT_EQ(p.at(2).bytes, 80);
}

TEST(ParsePointToPoint, ReceiveLayouts)
{
  Action r = one("0 recv 2 5 64 1\n");
  EXPECT_EQ(r.type, ActionType::Recv);
  EXPECT_EQ(r.peer, 2);
  EXPECT_EQ(r.tag, 5);
  EXPECT_EQ(r.bytes, 256);

  Action i = one("0 irecv 1 -444 16\n"); // MPI_ANY_TAG is a valid tag
  EXPECT_EQ(i.type, ActionType::Irecv);
  EXPECT_EQ(i.tag, progsim::mpi::kAnyTag);
  EXPECT_EQ(i.bytes, 16);
}

TEST(ParsePointToPoint, NegativeReceiveCountMeansProbe)
{
  EXPECT_EQ(one("0 recv 1 0 -1\n").bytes, -1);
  EXPECT_EQ(one("0 irecv 1 0 -5 0\n").bytes, -1);
  std::string error = parse_error("0 send 1 0 -1\n");
  EXPECT_TRUE(contains(error, "t.txt:1")) << error;
  EXPECT_TRUE(contains(error, "negative count")) << error;
}

// SMPI traces write receives from any source with the partner -555 (MPI_ANY_SOURCE), and the engine's matching
// and request store handle kAnySource; the reader must therefore accept it.
// BUG (reported): LineParser::rank_arg in simulator/trace/TraceSet.cpp rejects every partner below -1, so
// "1 irecv -555 5 10" throws "partner -555 is outside the 4 ranks of the trace" instead of giving peer = -555.
TEST(ParsePointToPoint, ReceiveFromAnySourceIsAccepted)
{
  try {
    Parsed p = parse("1 irecv -555 5 10\n1 recv -555 5 10\n", 1, 4);
    ASSERT_EQ(p.trace.actions.size(), 2u);
    EXPECT_EQ(p.at(0).peer, progsim::mpi::kAnySource);
    EXPECT_EQ(p.at(1).peer, progsim::mpi::kAnySource);
    EXPECT_EQ(p.at(0).bytes, 10);
  } catch (const TraceError& e) {
    ADD_FAILURE() << "MPI_ANY_SOURCE rejected: " << e.what();
  }
}

TEST(ParsePointToPoint, WaitAndTestLayout)
{
  Action w = one("0 wait 2 0 9\n");
  EXPECT_EQ(w.type, ActionType::Wait);
  EXPECT_EQ(w.peer, 2);
  EXPECT_EQ(w.peer2, 0);
  EXPECT_EQ(w.tag, 9);
  Action t = one("0 test 0 3 -7\n");
  EXPECT_EQ(t.type, ActionType::Test);
  EXPECT_EQ(t.peer, 0);
  EXPECT_EQ(t.peer2, 3);
  EXPECT_EQ(t.tag, -7);
}

TEST(ParsePointToPoint, SendRecvLayout)
{
  // r sendRecv <sendcount> <dst> <recvcount> <src> [sendtype] [recvtype]
  Action a = one("0 sendRecv 10 1 20 3 0 1\n");
  EXPECT_EQ(a.type, ActionType::SendRecv);
  EXPECT_EQ(a.bytes, 80);  // 10 doubles
  EXPECT_EQ(a.peer, 1);    // dst
  EXPECT_EQ(a.bytes2, 80); // 20 ints
  EXPECT_EQ(a.peer2, 3);   // src
  Action b = one("0 sendRecv 10 1 20 3\n");
  EXPECT_EQ(b.bytes, 10);
  EXPECT_EQ(b.bytes2, 20);
}

TEST(ParsePointToPoint, NoArgumentActions)
{
  Parsed p = parse("0 init\n0 comm_size 4\n0 comm_split\n0 comm_dup\n0 barrier\n0 waitall\n0 finalize\n");
  std::vector<ActionType> expected = {ActionType::Init,    ActionType::CommSize, ActionType::CommSplit,
                                      ActionType::CommDup, ActionType::Barrier,  ActionType::WaitAll,
                                      ActionType::Finalize};
  ASSERT_EQ(p.trace.actions.size(), expected.size());
  for (size_t i = 0; i < expected.size(); i++) {
    EXPECT_EQ(p.at(i).type, expected[i]) << i;
    EXPECT_EQ(p.at(i).line, i + 1);
  }
}

TEST(ParsePointToPoint, ComputeSleepAndLocation)
{
  Parsed p = parse("0 compute 1.5e9\n0 location foo.c 42\n0 sleep 0.25\n");
  ASSERT_EQ(p.trace.actions.size(), 2u); // location carries no time and is not kept
  EXPECT_EQ(p.at(0).type, ActionType::Compute);
  EXPECT_DOUBLE_EQ(p.at(0).flops, 1.5e9);
  EXPECT_EQ(p.at(1).type, ActionType::Sleep);
  EXPECT_DOUBLE_EQ(p.at(1).flops, 0.25);
  EXPECT_EQ(p.at(1).line, 3u);
  EXPECT_TRUE(contains(parse_error("0 compute -1\n"), "negative flops"));
  EXPECT_TRUE(contains(parse_error("0 sleep -1\n"), "negative duration"));
  EXPECT_TRUE(contains(parse_error("0 location foo.c bar\n"), "'bar' is not an integer"));
}

// ---------------------------------------------------------------- counts and whitespace

TEST(ParseNumbers, CountsInScientificNotationAreTruncated)
{
  EXPECT_EQ(one("0 send 1 0 2.06769e+06\n").bytes, 2067690);
  EXPECT_EQ(one("0 send 1 0 2.06769e+06 1\n").bytes, 2067690 * 4);
  EXPECT_EQ(one("0 send 1 0 12.7\n").bytes, 12);  // trunc, not round
  EXPECT_EQ(one("0 bcast 1e3 0 0\n").bytes, 8000);
  EXPECT_EQ(one("0 allreduce 99.99 2.5e2\n").bytes, 99);
  EXPECT_DOUBLE_EQ(one("0 allreduce 99.99 2.5e2\n").flops, 250.0);
}

TEST(ParseNumbers, IntegersReadAsFromCharsReadsThem)
{
  // The parser's own decimal reader must accept and refuse what std::from_chars does: an optional '-', digits.
  EXPECT_EQ(one("0 send 1 2147483647 8\n").tag, 2147483647);
  EXPECT_EQ(one("0 send 1 -2147483648 8\n").tag, -2147483648LL);
  EXPECT_EQ(one("0 send 1 007 8\n").tag, 7);
  EXPECT_EQ(one("0 send 1 -0 8\n").tag, 0);
  EXPECT_EQ(one("0 send 1 0000000000000000000000000000042 8\n").tag, 42); // leading zeros: no overflow
  EXPECT_EQ(one("00 send 1 2 8\n").peer, 1);                              // the rank prefix too
  EXPECT_TRUE(contains(parse_error("0 send 1 2147483648 8\n"), "'2147483648' is not an integer (tag)"));
  EXPECT_TRUE(contains(parse_error("0 send 1 -2147483649 8\n"), "'-2147483649' is not an integer (tag)"));
  EXPECT_TRUE(contains(parse_error("0 send 1 99999999999999999999 8\n"), "is not an integer (tag)"));
  EXPECT_TRUE(contains(parse_error("0 send 1 +2 8\n"), "'+2' is not an integer (tag)"));
  EXPECT_TRUE(contains(parse_error("0 send 1 - 8\n"), "'-' is not an integer (tag)"));
  EXPECT_TRUE(contains(parse_error("0 send 1 2- 8\n"), "'2-' is not an integer (tag)"));
  EXPECT_TRUE(contains(parse_error("+0 init\n"), "line starts with '+0'"));
  // Counts are reals: "+8" and "1e3" go to strtod, as SMPI reads them.
  EXPECT_EQ(one("0 send 1 2 +8\n").bytes, 8);
  EXPECT_EQ(one("0 send 1 2 -0 \n").bytes, 0);
  EXPECT_EQ(one("0 send 1 2 999999999999999\n").bytes, 999999999999999LL);
}

TEST(ParseNumbers, TrailingSpacesTabsAndCarriageReturns)
{
  Parsed p = parse("0 send 1 2 30   \n0\tsend\t1 \t 2\t30\t \t\n  0  send 1 2 30\r\n");
  ASSERT_EQ(p.trace.actions.size(), 3u);
  for (size_t i = 0; i < 3; i++) {
    EXPECT_EQ(p.at(i).type, ActionType::Send) << i;
    EXPECT_EQ(p.at(i).peer, 1) << i;
    EXPECT_EQ(p.at(i).tag, 2) << i;
    EXPECT_EQ(p.at(i).bytes, 30) << i;
  }
  // A trailing tab must not be taken as a (bad) datatype word.
  EXPECT_EQ(one("0 send 1 2 30 1\t\n").bytes, 120);
}

TEST(ParseNumbers, BlankAndCommentLinesAreSkippedButCounted)
{
  Parsed p = parse("# header\n\n   \n\t\n0 init\n   # indented comment\n0 compute 5\n");
  ASSERT_EQ(p.trace.actions.size(), 2u);
  EXPECT_EQ(p.at(0).type, ActionType::Init);
  EXPECT_EQ(p.at(0).line, 5u);
  EXPECT_EQ(p.at(1).type, ActionType::Compute);
  EXPECT_EQ(p.at(1).line, 7u);
  EXPECT_TRUE(parse("").trace.actions.empty());
  EXPECT_TRUE(parse("# only a comment\n\n").trace.actions.empty());
}

TEST(ParseNumbers, LastLineWithoutNewlineIsRead)
{
  // The engine keeps a last line without its final newline (SMPI 3.32 drops it: a documented difference).
  Parsed p = parse("0 init\n0 compute 7");
  ASSERT_EQ(p.trace.actions.size(), 2u);
  EXPECT_DOUBLE_EQ(p.at(1).flops, 7.0);
}

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

// ---------------------------------------------------------------- errors

TEST(ParseErrors, UnknownAction)
{
  std::string e = parse_error("0 init\n\n0 frobnicate 1 2\n");
  EXPECT_TRUE(contains(e, "t.txt:3")) << e;
  EXPECT_TRUE(contains(e, "unknown action 'frobnicate'")) << e;
  EXPECT_TRUE(contains(e, "sendRecv")) << e; // lists what is known
  EXPECT_TRUE(contains(parse_error("0 sendrecv 1 1 1 1\n"), "unknown action 'sendrecv'"));
}

TEST(ParseErrors, LineWithoutAction)
{
  std::string e = parse_error("0 init\n0\n");
  EXPECT_TRUE(contains(e, "t.txt:2")) << e;
  EXPECT_TRUE(contains(e, "<rank> <action>")) << e;
}

TEST(ParseErrors, MissingArguments)
{
  std::string e = parse_error("0 init\n0 send 1 2\n");
  EXPECT_TRUE(contains(e, "t.txt:2")) << e;
  EXPECT_TRUE(contains(e, "missing arguments (2 given, 3 needed)")) << e;
  EXPECT_TRUE(contains(e, "expected '<rank> send <partner> <tag> <count> [datatype]'")) << e;

  std::string w = parse_error("0 wait 1 0\n");
  EXPECT_TRUE(contains(w, "expected '<rank> wait <src> <dst> <tag>'")) << w;
  std::string b = parse_error("0 bcast\n");
  EXPECT_TRUE(contains(b, "expected '<rank> bcast <count> [root] [datatype]'")) << b;
  std::string c = parse_error("0 compute\n");
  EXPECT_TRUE(contains(c, "t.txt:1")) << c;
  EXPECT_TRUE(contains(c, "expected '<rank> compute <flops> [bytes]'")) << c;
  // v-collectives need one count per rank: 4 ranks -> "0 gatherv 1 1 1 1" lacks the fourth count.
  std::string g = parse_error("0 gatherv 1 1 1 1\n");
  EXPECT_TRUE(contains(g, "missing arguments (4 given, 5 needed)")) << g;
  EXPECT_TRUE(contains(g, "<recvcount x N>")) << g;
  std::string a = parse_error("0 alltoallv 1 1 1 1 1 1 1 1 1\n"); // 9 of the 10 needed
  EXPECT_TRUE(contains(a, "missing arguments (9 given, 10 needed)")) << a;
  std::string r = parse_error("0 reducescatter 1 1 1 1\n"); // no flops
  EXPECT_TRUE(contains(r, "missing arguments")) << r;
}

TEST(ParseErrors, NonNumericCount)
{
  std::string e = parse_error("0 send 1 2 abc\n");
  EXPECT_TRUE(contains(e, "t.txt:1")) << e;
  EXPECT_TRUE(contains(e, "'abc' is not a number (count)")) << e;
  EXPECT_TRUE(contains(e, "expected '<rank> send")) << e;
  EXPECT_TRUE(contains(parse_error("0 send 1 2 12x\n"), "'12x' is not a number"));
  EXPECT_TRUE(contains(parse_error("0 compute inf\n"), "is not a number"));
  EXPECT_TRUE(contains(parse_error("0 send 1 x 3\n"), "'x' is not an integer (tag)"));
  EXPECT_TRUE(contains(parse_error("0 gatherv 1 1 zz 1 1\n"), "'zz' is not a number (count)"));
}

TEST(ParseErrors, UnknownDatatype)
{
  std::string e = parse_error("0 init\n0 send 1 2 3 99\n");
  EXPECT_TRUE(contains(e, "t.txt:2")) << e;
  EXPECT_TRUE(contains(e, "unknown datatype id '99'")) << e;
  EXPECT_TRUE(contains(e, "expected '<rank> send <partner> <tag> <count> [datatype]'")) << e;
  EXPECT_TRUE(contains(parse_error("0 alltoall 1 1 0 double\n"), "unknown datatype id 'double'"));
  EXPECT_TRUE(contains(parse_error("0 reducescatter 1 1 1 1 0 60\n"), "unknown datatype id '60'"));
}

TEST(ParseErrors, PartnerOutsideTheWorld)
{
  std::string e = parse_error("0 send 4 0 1\n", 0, 4);
  EXPECT_TRUE(contains(e, "t.txt:1")) << e;
  EXPECT_TRUE(contains(e, "partner 4 is outside the 4 ranks")) << e;
  EXPECT_TRUE(contains(e, "expected '<rank> send")) << e;
  EXPECT_TRUE(contains(parse_error("0 recv -3 0 1\n"), "partner -3 is outside"));
  EXPECT_TRUE(contains(parse_error("0 wait 0 7 0\n"), "dst 7 is outside"));
  EXPECT_TRUE(contains(parse_error("0 sendRecv 1 9 1 0\n"), "dst 9 is outside"));
  EXPECT_TRUE(contains(parse_error("0 bcast 1 4\n"), "root 4 is outside the 4 ranks"));
  EXPECT_TRUE(contains(parse_error("0 reduce 1 0 -1\n"), "root -1 is outside"));
  EXPECT_EQ(one("0 send 3 0 1\n", 4).peer, 3); // the last rank is fine
}

TEST(ParseErrors, RankPrefixMustBeTheFilesRank)
{
  std::string e = parse_error("2 init\n1 send 0 0 1\n", 2, 4);
  EXPECT_TRUE(contains(e, "t.txt:2")) << e;
  EXPECT_TRUE(contains(e, "line starts with '1' but this trace belongs to rank 2")) << e;
  EXPECT_TRUE(contains(parse_error("x init\n"), "line starts with 'x'"));
}

TEST(ParseErrors, FileNameIsTheOneGiven)
{
  std::string e = parse_error("0 barrier\n0 barrier\n0 barrier\n0 nope\n", 0, 4, "dir/rank0.trace");
  EXPECT_TRUE(contains(e, "dir/rank0.trace:4")) << e;
}

// ---------------------------------------------------------------- limits (found by fuzzing: tests/fuzz)

TEST(ParseLimits, CountsWhoseBytesOverflow64BitsAreRejected)
{
  // A count beyond 2^63, or count x datatype size beyond 2^63 bytes, cannot be held: an error, never a wrap.
  for (const char* text : {"0 send 1 0 1e30\n", "0 isend 1 0 1.2e18 0\n", "0 recv 1 0 1e19\n",
                           "0 irecv 1 0 -1e30\n", "0 allreduce 1e30 1e6\n", "0 bcast 2e18 0 0\n",
                           "0 reduce 3e18 0 0 14\n", "0 sendRecv 1 1 2e18 1 0 0\n", "0 alltoall 9.3e18 1\n",
                           "0 gather 1 1.2e18 0 0 0\n", "0 gatherv 1 1 1e30 1 1\n", "0 scatterv 1 1 1 1 1e19\n",
                           "0 allgatherv 2e18 1 1 1 1 0 0\n", "0 alltoallv 1e19 1 1 1 1 4 1 1 1 1\n",
                           "0 alltoallv 4 1 1 1 1 4 1 5e18 1 1 0 0\n", "0 reducescatter 2e18 1 1 1 0 0\n"}) {
    std::string e = parse_error(text);
    EXPECT_TRUE(contains(e, "t.txt:1: ")) << e;
    EXPECT_TRUE(contains(e, "does not fit in 64 bits")) << e;
    EXPECT_TRUE(contains(e, "expected '<rank> ")) << e;
  }
  std::string e = parse_error("0 init\n0 send 1 0 1.2e18 0\n");
  EXPECT_TRUE(contains(e, "t.txt:2: count 1.2e18 x 8 bytes does not fit in 64 bits")) << e;
  // Just below the limit is fine.
  EXPECT_EQ(one("0 send 1 0 9.2e18\n").bytes, 9'200'000'000'000'000'000);
  EXPECT_EQ(one("0 send 1 0 1.1e18 0\n").bytes, 8'800'000'000'000'000'000);
}

TEST(ParseLimits, NegativeCountsInCollectivesAreRejected)
{
  // As isend rejects them; only a receive may give a negative count (probe for the size).
  for (const char* text :
       {"0 allreduce -1024 1e6\n", "0 sendRecv -100 1 100 1\n", "0 sendRecv 100 1 -100 1\n", "0 bcast -1\n",
        "0 reduce -5 0\n", "0 scan -1 0\n", "0 exscan -1 0\n", "0 alltoall -1 1\n", "0 allgather 1 -1\n",
        "0 gather -1 1\n", "0 scatter 1 -1\n", "0 gatherv -1 1 1 1 1\n", "0 gatherv 1 1 -2 1 1\n",
        "0 scatterv 1 1 1 -1 1\n", "0 scatterv 1 1 1 1 -1\n", "0 allgatherv 1 1 1 1 -1\n",
        "0 alltoallv -1 1 1 1 1 4 1 1 1 1\n", "0 alltoallv 4 1 1 1 1 -4 1 1 1 1\n",
        "0 alltoallv 4 1 1 1 1 4 1 -1 1 1\n", "0 reducescatter 1 -1 1 1 0\n"}) {
    std::string e = parse_error(text);
    EXPECT_TRUE(contains(e, "t.txt:1: negative ")) << e;
    EXPECT_TRUE(contains(e, "expected '<rank> ")) << e;
  }
  std::string e = parse_error("0 sendRecv -100 1 100 1\n");
  EXPECT_TRUE(contains(e, "negative sendcount -100")) << e;
  EXPECT_TRUE(contains(e, "expected '<rank> sendRecv <sendcount> <dst> <recvcount> <src>")) << e;
  EXPECT_TRUE(contains(parse_error("0 allreduce -1024 1e6\n"), "negative count -1024"));
  EXPECT_EQ(one("0 allreduce -0.5 1\n").bytes, 0); // truncated to 0, as SMPI does
}

TEST(ParseLimits, NanOrNegativeComputeAmountsAreRejected)
{
  for (const char* text : {"0 compute nan\n", "0 compute -nan\n", "0 compute NAN(1)\n", "0 compute 1e400\n",
                           "0 compute -inf\n", "0 allreduce 1 nan\n", "0 sleep nan\n", "0 reduce 1 inf 0\n"}) {
    std::string e = parse_error(text);
    EXPECT_TRUE(contains(e, "t.txt:1: '")) << e;
    EXPECT_TRUE(contains(e, "is not a number")) << e;
  }
  for (const char* text : {"0 compute -1e-9\n", "0 reduce 1 -1\n", "0 allreduce 1 -5\n", "0 scan 1 -5\n",
                           "0 exscan 1 -5\n", "0 reducescatter 1 1 1 1 -1\n"}) {
    std::string e = parse_error(text);
    EXPECT_TRUE(contains(e, "t.txt:1: negative flops")) << e;
  }
  EXPECT_DOUBLE_EQ(one("0 compute 0\n").flops, 0.0);
  EXPECT_DOUBLE_EQ(one("0 allreduce 1 0\n").flops, 0.0);
}
