/*
 * Unit tests of MPI message matching (simulator/mpi/MatchQueues): the matching rule on (source, tag, context)
 * with MPI_ANY_SOURCE = -555 and MPI_ANY_TAG = -444 as SMPI spells them, and the order rules of the posted-receive
 * and unexpected-message queues (MPI's non-overtaking rule). SMPI 3.32's rule (smpi_request.cpp match_common):
 * same communicator, (ANY_SOURCE or equal source), (ANY_TAG and send tag >= 0, or equal tag).
 * Collective traffic lives in its own context, where ANY_TAG also accepts SMPI's negative internal tags.
 */
#include "mpi/MatchQueues.hpp"
#include "mpi/PostingOrder.hpp"
#include "mpi/Request.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

using progsim::mpi::Context;
using progsim::mpi::Envelope;
using progsim::mpi::kAnySource;
using progsim::mpi::kAnyTag;
using progsim::mpi::MatchQueues;
using progsim::mpi::PostingOrder;
using progsim::Protocol;
using progsim::mpi::Request;
using progsim::mpi::RequestPtr;

namespace {

RequestPtr receive(int source, int tag, Context context = Context::PointToPoint, uint64_t id = 0)
{
  auto r     = std::make_shared<Request>();
  r->id      = id;
  r->is_send = false;
  r->owner   = 0;
  r->peer    = source;
  r->tag     = tag;
  r->context = context;
  return r;
}

Envelope envelope(int source, int tag, Context context = Context::PointToPoint, int64_t bytes = 0)
{
  Envelope e;
  e.source  = source;
  e.tag     = tag;
  e.context = context;
  e.bytes   = bytes;
  return e;
}

} // namespace

// ---------------------------------------------------------------- the rule

TEST(MatchRule, ExactSourceAndTag)
{
  auto r = receive(3, 7);
  EXPECT_TRUE(matches(*r, envelope(3, 7)));
  EXPECT_FALSE(matches(*r, envelope(2, 7)));
  EXPECT_FALSE(matches(*r, envelope(3, 8)));
  EXPECT_FALSE(matches(*r, envelope(4, 8)));
}

TEST(MatchRule, AnySourceAcceptsEverySource)
{
  auto r = receive(kAnySource, 5);
  for (int source = 0; source < 8; source++)
    EXPECT_TRUE(matches(*r, envelope(source, 5))) << source;
  EXPECT_FALSE(matches(*r, envelope(1, 6)));
}

TEST(MatchRule, AnyTagAcceptsNonNegativeTagsInPointToPoint)
{
  auto r = receive(1, kAnyTag);
  EXPECT_TRUE(matches(*r, envelope(1, 0)));
  EXPECT_TRUE(matches(*r, envelope(1, 12345)));
  EXPECT_FALSE(matches(*r, envelope(2, 0))); // the source still has to match
  // MPI_ANY_TAG does not accept negative tags in the point-to-point context (SMPI: send tag >= 0).
  EXPECT_FALSE(matches(*r, envelope(1, -1)));
  EXPECT_FALSE(matches(*r, envelope(1, -778)));
}

TEST(MatchRule, AnyTagAcceptsNegativeTagsInTheCollectiveContext)
{
  auto r = receive(1, kAnyTag, Context::Collective);
  EXPECT_TRUE(matches(*r, envelope(1, -778, Context::Collective))); // barrier's tag
  EXPECT_TRUE(matches(*r, envelope(1, -3334, Context::Collective))); // bcast's tag
  EXPECT_TRUE(matches(*r, envelope(1, 4, Context::Collective)));
}

TEST(MatchRule, NegativeTagMatchesItselfExactly)
{
  auto r = receive(0, -112, Context::Collective);
  EXPECT_TRUE(matches(*r, envelope(0, -112, Context::Collective)));
  EXPECT_FALSE(matches(*r, envelope(0, -445, Context::Collective)));
  auto p = receive(0, -5); // a user may use a negative tag on both sides in a trace
  EXPECT_TRUE(matches(*p, envelope(0, -5)));
}

TEST(MatchRule, ContextsNeverMix)
{
  EXPECT_FALSE(matches(*receive(1, 7), envelope(1, 7, Context::Collective)));
  EXPECT_FALSE(matches(*receive(1, 7, Context::Collective), envelope(1, 7)));
  EXPECT_FALSE(matches(*receive(kAnySource, kAnyTag), envelope(1, 7, Context::Collective)));
  EXPECT_FALSE(matches(*receive(kAnySource, kAnyTag, Context::Collective), envelope(1, 7)));
  EXPECT_TRUE(matches(*receive(kAnySource, kAnyTag), envelope(1, 7)));
}

// ---------------------------------------------------------------- the queues

TEST(MatchQueues, ArrivalWithoutReceiveIsUnexpected)
{
  MatchQueues q;
  EXPECT_EQ(q.match_arrival(envelope(2, 1, Context::PointToPoint, 64)), nullptr);
  ASSERT_EQ(q.unexpected().size(), 1u);
  EXPECT_EQ(q.unexpected().front().source, 2);
  EXPECT_EQ(q.unexpected().front().bytes, 64);
  EXPECT_TRUE(q.posted().empty());
}

TEST(MatchQueues, ReceiveWithoutMessageIsPosted)
{
  MatchQueues q;
  auto r = receive(2, 1);
  EXPECT_FALSE(q.match_posted(r).has_value());
  ASSERT_EQ(q.posted().size(), 1u);
  EXPECT_EQ(q.posted().front(), r);
  EXPECT_TRUE(q.unexpected().empty());
}

TEST(MatchQueues, ArrivalTakesTheFirstPostedReceiveThatMatches)
{
  MatchQueues q;
  auto a = receive(kAnySource, 1, Context::PointToPoint, 1);
  auto b = receive(2, 1, Context::PointToPoint, 2);
  q.match_posted(a);
  q.match_posted(b);
  EXPECT_EQ(q.match_arrival(envelope(2, 1)), a); // posted first, although b names the source exactly
  ASSERT_EQ(q.posted().size(), 1u);
  EXPECT_EQ(q.posted().front(), b);
  EXPECT_EQ(q.match_arrival(envelope(2, 1)), b);
  EXPECT_TRUE(q.posted().empty());
}

TEST(MatchQueues, ArrivalSkipsReceivesThatDoNotMatch)
{
  MatchQueues q;
  auto a = receive(3, 1);
  auto b = receive(2, 9);
  auto c = receive(2, 1);
  auto d = receive(2, 1, Context::Collective);
  for (auto const& r : {a, b, c, d})
    q.match_posted(r);
  EXPECT_EQ(q.match_arrival(envelope(2, 1)), c);
  ASSERT_EQ(q.posted().size(), 3u);
  EXPECT_EQ(q.posted()[0], a); // the others keep their order
  EXPECT_EQ(q.posted()[1], b);
  EXPECT_EQ(q.posted()[2], d);
  EXPECT_EQ(q.match_arrival(envelope(2, 1, Context::Collective)), d);
  EXPECT_EQ(q.posted().size(), 2u);
}

TEST(MatchQueues, UnexpectedMessagesAreNotOvertaken)
{
  MatchQueues q;
  q.match_arrival(envelope(1, 5, Context::PointToPoint, 10));
  q.match_arrival(envelope(1, 5, Context::PointToPoint, 20));
  q.match_arrival(envelope(1, 5, Context::PointToPoint, 30));
  auto first = q.match_posted(receive(1, 5));
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->bytes, 10);
  auto second = q.match_posted(receive(1, 5));
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->bytes, 20);
  ASSERT_EQ(q.unexpected().size(), 1u);
  EXPECT_EQ(q.unexpected().front().bytes, 30);
}

TEST(MatchQueues, WildcardReceiveTakesTheOldestMatchingMessage)
{
  MatchQueues q;
  q.match_arrival(envelope(3, -2, Context::PointToPoint, 1)); // negative tag: not for ANY_TAG
  q.match_arrival(envelope(1, 7, Context::PointToPoint, 2));
  q.match_arrival(envelope(2, 3, Context::PointToPoint, 3));
  q.match_arrival(envelope(1, 4, Context::Collective, 4));
  auto got = q.match_posted(receive(kAnySource, kAnyTag));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->bytes, 2);
  got = q.match_posted(receive(kAnySource, kAnyTag));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->bytes, 3);
  // Left: the negative-tag message and the collective one; a third wildcard receive is posted.
  EXPECT_FALSE(q.match_posted(receive(kAnySource, kAnyTag)).has_value());
  ASSERT_EQ(q.unexpected().size(), 2u);
  EXPECT_EQ(q.unexpected()[0].bytes, 1);
  EXPECT_EQ(q.unexpected()[1].bytes, 4);
  EXPECT_EQ(q.posted().size(), 1u);
}

TEST(MatchQueues, SpecificReceiveSkipsOlderMessagesOfOtherSources)
{
  MatchQueues q;
  q.match_arrival(envelope(1, 0, Context::PointToPoint, 100));
  q.match_arrival(envelope(2, 0, Context::PointToPoint, 200));
  auto got = q.match_posted(receive(2, 0));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->source, 2);
  EXPECT_EQ(got->bytes, 200);
  ASSERT_EQ(q.unexpected().size(), 1u);
  EXPECT_EQ(q.unexpected().front().source, 1);
}

TEST(MatchQueues, AMatchIsRemovedAndNeverMatchesTwice)
{
  MatchQueues q;
  auto r = receive(0, 0);
  q.match_posted(r);
  EXPECT_EQ(q.match_arrival(envelope(0, 0)), r);
  EXPECT_TRUE(q.posted().empty());
  // The same message again finds no receive: it becomes unexpected.
  EXPECT_EQ(q.match_arrival(envelope(0, 0, Context::PointToPoint, 8)), nullptr);
  ASSERT_EQ(q.unexpected().size(), 1u);
  // A receive takes it, and the queue is empty again.
  auto got = q.match_posted(receive(0, 0));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->bytes, 8);
  EXPECT_TRUE(q.unexpected().empty());
  EXPECT_TRUE(q.posted().empty());
}

TEST(MatchQueues, EnvelopeKeepsItsSenderAndProtocol)
{
  MatchQueues q;
  auto send      = std::make_shared<Request>();
  send->id       = 42;
  Envelope e     = envelope(5, 6, Context::PointToPoint, 1 << 20);
  e.protocol     = Protocol::RendezvousGet;
  e.send         = send;
  q.match_arrival(e);
  auto got = q.match_posted(receive(kAnySource, 6));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->send, send);
  EXPECT_EQ(got->send->id, 42u);
  EXPECT_EQ(got->protocol, Protocol::RendezvousGet);
  EXPECT_EQ(got->source, 5);
  EXPECT_EQ(got->bytes, 1 << 20);
  EXPECT_EQ(got->context, Context::PointToPoint);
}

// ---------------------------------------------------------------- the list under both queues

namespace {
std::vector<int> items(const PostingOrder<int>& list)
{
  return {list.begin(), list.end()};
}
} // namespace

TEST(PostingOrder, TakesFromAnywhereAndKeepsTheOthersInOrder)
{
  PostingOrder<int> list;
  for (int i = 0; i < 5; i++)
    list.push_back(i);
  EXPECT_EQ(list.take(list.begin() + 2), 2);
  EXPECT_EQ(list.take(list.begin()), 0);
  EXPECT_EQ(list.take(list.end() - 1), 4);
  list.push_back(5);
  EXPECT_EQ(items(list), (std::vector<int>{1, 3, 5}));
  EXPECT_EQ(list.size(), 3u);
  EXPECT_EQ(list[1], 3);
}

TEST(PostingOrder, ALongListTakenFromItsFrontKeepsItsOrderAcrossCompactions)
{
  PostingOrder<int> list;
  int next_in = 0;
  int next_out = 0;
  for (int round = 0; round < 50; round++) { // 30 in, 20 out: the list grows while its front is taken
    for (int i = 0; i < 30; i++)
      list.push_back(next_in++);
    for (int i = 0; i < 20; i++)
      ASSERT_EQ(list.take(list.begin()), next_out++);
  }
  ASSERT_EQ(list.size(), 500u);
  while (not list.empty())
    ASSERT_EQ(list.take(list.begin()), next_out++);
  EXPECT_EQ(next_out, next_in);
}

TEST(PostingOrder, AQueueThatEmptiesReusesTheSameStorage)
{
  // One message at a time, as in a ring: the item is always at the same address, so the same cache line.
  PostingOrder<int> list;
  list.push_back(0);
  const int* first = &list.front();
  for (int i = 1; i < 1000; i++) {
    EXPECT_EQ(list.take(list.begin()), i - 1);
    list.push_back(i);
    ASSERT_EQ(&list.front(), first);
  }
}
