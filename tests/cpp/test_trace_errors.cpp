/*
 * Unit tests of the trace reader (simulator/trace): the errors a malformed line gives (file:line, the problem, the
 * form expected), and the limits of what it accepts (counts whose bytes overflow, negative counts, NaN), found by
 * fuzzing (tests/fuzz).
 */
#include "TraceParsing.hpp"
#include <gtest/gtest.h>

#include <string>

using progsim::testing::contains;
using progsim::testing::one;
using progsim::testing::parse_error;

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
