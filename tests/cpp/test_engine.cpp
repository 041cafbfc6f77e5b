/*
 * Unit tests of the pure parts of the engine: protocol choice (simulator/mpi/Transport) and the store of
 * non-blocking requests that trace wait/test/waitall actions find again (simulator/mpi/RequestStore), which follows
 * SMPI 3.32's replay RequestStorage: per (src, dst, tag) key, oldest first; a successful test leaves a null
 * placeholder; waitall takes every stored request and clears the store.
 */
#include "mpi/Request.hpp"
#include "mpi/RequestStore.hpp"
#include "config/Transport.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using progsim::choose;
using progsim::parse_rendezvous;
using progsim::TransportProtocol;
using progsim::mpi::kAnySource;
using progsim::mpi::kAnyTag;
using progsim::Protocol;
using progsim::mpi::Request;
using progsim::mpi::RequestPtr;
using progsim::mpi::RequestStore;

namespace {

RequestPtr request(uint64_t id)
{
  auto r = std::make_shared<Request>();
  r->id  = id;
  return r;
}

} // namespace

// ---------------------------------------------------------------- protocol choice

TEST(ProtocolChoice, EagerStrictlyBelowTheThreshold)
{
  TransportProtocol t{65536, Protocol::RendezvousGet, 131072};
  EXPECT_EQ(choose(t, 0), Protocol::Eager);
  EXPECT_EQ(choose(t, 1), Protocol::Eager);
  EXPECT_EQ(choose(t, 65535), Protocol::Eager);
  EXPECT_EQ(choose(t, 65536), Protocol::RendezvousGet); // at the threshold: rendezvous (SMPI: size < thresh)
  EXPECT_EQ(choose(t, 65537), Protocol::RendezvousGet);
  EXPECT_EQ(choose(t, int64_t{1} << 40), Protocol::RendezvousGet);
}

TEST(ProtocolChoice, TheConfiguredRendezvousVariantIsUsed)
{
  TransportProtocol put{1024, Protocol::RendezvousPut, 4096};
  EXPECT_EQ(choose(put, 1023), Protocol::Eager);
  EXPECT_EQ(choose(put, 1024), Protocol::RendezvousPut);
  TransportProtocol pipe{1024, Protocol::RendezvousPipelined, 4096};
  EXPECT_EQ(choose(pipe, 1023), Protocol::Eager);
  EXPECT_EQ(choose(pipe, 5000), Protocol::RendezvousPipelined);
}

TEST(ProtocolChoice, ZeroThresholdMeansAlwaysRendezvous)
{
  TransportProtocol t{0, Protocol::RendezvousPut, 131072};
  EXPECT_EQ(choose(t, 0), Protocol::RendezvousPut);
  EXPECT_EQ(choose(t, 1), Protocol::RendezvousPut);
}

TEST(ProtocolChoice, ParseRendezvous)
{
  EXPECT_EQ(parse_rendezvous("get"), Protocol::RendezvousGet);
  EXPECT_EQ(parse_rendezvous("put"), Protocol::RendezvousPut);
  EXPECT_EQ(parse_rendezvous("pipelined"), Protocol::RendezvousPipelined);
}

TEST(ProtocolChoice, ParseRendezvousErrors)
{
  for (const char* bad : {"", "GET", "Put", "eager", "pipeline", "direct", " get", "get "}) {
    try {
      parse_rendezvous(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      std::string what = e.what();
      EXPECT_NE(what.find(std::string("'") + bad + "'"), std::string::npos) << what;
      EXPECT_NE(what.find("get, put or pipelined"), std::string::npos) << what;
    }
  }
}

TEST(ProtocolChoice, Names)
{
  EXPECT_EQ(progsim::protocol_name(Protocol::Direct), "direct");
  EXPECT_EQ(progsim::protocol_name(Protocol::Eager), "eager");
  EXPECT_EQ(progsim::protocol_name(Protocol::RendezvousGet), "rendezvous-get");
  EXPECT_EQ(progsim::protocol_name(Protocol::RendezvousPut), "rendezvous-put");
  EXPECT_EQ(progsim::protocol_name(Protocol::RendezvousPipelined), "pipelined");
  EXPECT_EQ(progsim::mpi::state_name(progsim::mpi::RequestState::Complete), "complete");
  EXPECT_EQ(progsim::mpi::state_name(progsim::mpi::RequestState::Posted), "posted");
}

TEST(RequestDefaults, FreshRequestIsAPostedPointToPointSend)
{
  Request r;
  EXPECT_TRUE(r.is_send);
  EXPECT_EQ(r.state, progsim::mpi::RequestState::Posted);
  EXPECT_EQ(r.context, progsim::mpi::Context::PointToPoint);
  EXPECT_EQ(r.protocol, Protocol::Direct);
  EXPECT_FALSE(r.complete());
  EXPECT_EQ(r.matched_source, -1);
  r.state = progsim::mpi::RequestState::Complete;
  EXPECT_TRUE(r.complete());
}

// ---------------------------------------------------------------- request store

TEST(RequestStore, EmptyStoreFindsNothing)
{
  RequestStore store;
  EXPECT_TRUE(store.empty());
  bool found = true;
  EXPECT_EQ(store.pop(0, 1, 0, found), nullptr);
  EXPECT_FALSE(found);
  EXPECT_TRUE(store.take_all().empty());
}

TEST(RequestStore, OldestFirstPerKey)
{
  RequestStore store;
  auto a = request(1), b = request(2), c = request(3);
  store.add(a, 0, 1, 5);
  store.add(b, 0, 1, 5);
  store.add(c, 0, 1, 5);
  bool found = false;
  EXPECT_EQ(store.pop(0, 1, 5, found), a);
  EXPECT_TRUE(found);
  EXPECT_EQ(store.pop(0, 1, 5, found), b);
  EXPECT_EQ(store.pop(0, 1, 5, found), c);
  EXPECT_TRUE(store.empty());
  EXPECT_EQ(store.pop(0, 1, 5, found), nullptr);
  EXPECT_FALSE(found);
}

TEST(RequestStore, KeysAreIndependent)
{
  RequestStore store;
  auto send = request(1), recv = request(2), other_tag = request(3);
  store.add(send, 0, 1, 5);      // isend from 0 to 1
  store.add(recv, 1, 0, 5);      // irecv on 0 from 1
  store.add(other_tag, 0, 1, 6); // isend, another tag
  bool found = false;
  EXPECT_EQ(store.pop(1, 0, 5, found), recv);
  EXPECT_EQ(store.pop(0, 1, 6, found), other_tag);
  EXPECT_EQ(store.pop(0, 1, 5, found), send);
  EXPECT_TRUE(found);
  EXPECT_EQ(store.pop(0, 1, 7, found), nullptr); // nothing under (0, 1, 7)
  EXPECT_FALSE(found);
  EXPECT_TRUE(store.empty());
}

TEST(RequestStore, PlaceholderIsFoundButNull)
{
  // A test that succeeded leaves a null request, so that the wait that follows costs nothing.
  RequestStore store;
  auto later = request(9);
  store.add_placeholder(2, 0, 3);
  store.add(later, 2, 0, 3);
  EXPECT_FALSE(store.empty());
  bool found = false;
  EXPECT_EQ(store.pop(2, 0, 3, found), nullptr);
  EXPECT_TRUE(found);
  EXPECT_EQ(store.pop(2, 0, 3, found), later); // the placeholder was consumed
  EXPECT_TRUE(found);
  EXPECT_TRUE(store.empty());
}

TEST(RequestStore, ARequestATestCompletedIsFoundAgainByLaterTestsAndTheWait)
{
  // The replay completed the request at the first of the trace's tests: the second test takes the placeholder, and
  // the third and the wait still find one (SMPI's replay ignores them), while a key never posted stays unknown.
  RequestStore store;
  store.add_placeholder(0, 1, 4);
  bool found = false;
  for (int call = 0; call < 3; call++) {
    EXPECT_EQ(store.pop(0, 1, 4, found), nullptr);
    EXPECT_TRUE(found);
  }
  EXPECT_TRUE(store.empty());
  EXPECT_EQ(store.pop(0, 1, 5, found), nullptr);
  EXPECT_FALSE(found);
  auto next = request(7); // a later request under the same key is found first
  store.add(next, 0, 1, 4);
  EXPECT_EQ(store.pop(0, 1, 4, found), next);
}

TEST(RequestStore, AnySourceReceiveIsFoundByTheRealSource)
{
  RequestStore store;
  auto any = request(1);
  store.add(any, kAnySource, 1, 5); // "1 irecv -555 5 n" on rank 1
  bool found = false;
  EXPECT_EQ(store.pop(3, 1, 5, found), any); // "1 wait 3 1 5" names the source it matched
  EXPECT_TRUE(found);
  EXPECT_TRUE(store.empty());
}

TEST(RequestStore, AnyTagAndBothWildcards)
{
  RequestStore store;
  auto any_tag = request(1), both = request(2);
  store.add(any_tag, 2, 1, kAnyTag);
  store.add(both, kAnySource, 1, kAnyTag);
  bool found = false;
  EXPECT_EQ(store.pop(2, 1, 7, found), any_tag);
  EXPECT_EQ(store.pop(4, 1, 8, found), both);
  EXPECT_TRUE(found);
  EXPECT_TRUE(store.empty());
}

TEST(RequestStore, WildcardsDoNotCrossDestinations)
{
  RequestStore store;
  store.add(request(1), kAnySource, 1, 5);
  bool found = true;
  EXPECT_EQ(store.pop(3, 2, 5, found), nullptr); // another destination
  EXPECT_FALSE(found);
  EXPECT_EQ(store.pop(3, 1, 6, found), nullptr); // another tag
  EXPECT_FALSE(found);
  EXPECT_FALSE(store.empty());
}

TEST(RequestStore, ExactKeyIsPreferredToAWildcard)
{
  RequestStore store;
  auto any = request(1), exact = request(2);
  store.add(any, kAnySource, 1, 5);
  store.add(exact, 3, 1, 5);
  bool found = false;
  EXPECT_EQ(store.pop(3, 1, 5, found), exact);
  EXPECT_EQ(store.pop(3, 1, 5, found), any);
  EXPECT_TRUE(found);
  EXPECT_TRUE(store.empty());
}

TEST(RequestStore, TakeAllInKeyOrderThenPostingOrderAndClears)
{
  RequestStore store;
  auto k2a = request(1), k1a = request(2), k2b = request(3), k1b = request(4), any = request(5);
  store.add(k2a, 1, 0, 7);         // key (1, 0, 7)
  store.add(k1a, 0, 1, 7);         // key (0, 1, 7)
  store.add_placeholder(0, 1, 7);  // skipped by take_all
  store.add(k2b, 1, 0, 7);
  store.add(k1b, 0, 1, 7);
  store.add(any, kAnySource, 0, 3); // key (-555, 0, 3): first in key order
  store.add_placeholder(5, 5, 5);   // a key holding only a placeholder

  std::vector<RequestPtr> all = store.take_all();
  EXPECT_EQ(all, (std::vector<RequestPtr>{any, k1a, k1b, k2a, k2b}));
  EXPECT_TRUE(store.empty());
  bool found = true;
  EXPECT_EQ(store.pop(0, 1, 7, found), nullptr);
  EXPECT_FALSE(found);
  EXPECT_EQ(store.pop(5, 5, 5, found), nullptr); // the placeholders are gone too
  EXPECT_FALSE(found);
  EXPECT_TRUE(store.take_all().empty());
}

TEST(RequestStore, TakeAllKeepsDuplicatesAndOnlyOnce)
{
  RequestStore store;
  auto r = request(1);
  store.add(r, 0, 1, 0);
  store.add(r, 0, 1, 0); // the same request twice under one key is returned twice, as stored
  EXPECT_EQ(store.take_all().size(), 2u);
  EXPECT_TRUE(store.take_all().empty());
}
