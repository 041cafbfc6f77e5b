/* One rank of a collective as the point-to-point calls it makes, for the tests of the SMPI default collectives
 * (test_collectives.cpp, test_collectives_alltoall.cpp): a recording fake of PointToPoint, the posts it saw, and
 * checks across the ranks of a world. */
#pragma once

#include "collectives/PointToPoint.hpp"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace progsim::testing {

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

inline std::ostream& operator<<(std::ostream& out, const Post& p)
{
  return out << (p.kind == Kind::Send ? "send(" : "recv(") << p.peer << ", " << p.bytes << ")";
}

inline Post S(int peer, int64_t bytes) { return {Kind::Send, peer, bytes}; }
inline Post R(int peer, int64_t bytes) { return {Kind::Recv, peer, bytes}; }

/** One rank of a world of `size`: records every isend, irecv and wait; requests never complete. */
class Recorder : public models::collectives::PointToPoint {
public:
  Recorder(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  mpi::RequestPtr isend(int destination, int tag, int64_t bytes) override
  {
    return post(true, destination, tag, bytes);
  }
  mpi::RequestPtr irecv(int source, int tag, int64_t bytes) override { return post(false, source, tag, bytes); }
  void wait(const mpi::RequestPtr& request) override { ops.push_back({Kind::Wait, -1, 0, 0, request->id}); }

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
  mpi::RequestPtr post(bool is_send, int peer, int tag, int64_t bytes)
  {
    auto r     = std::make_shared<mpi::Request>();
    r->id      = next_id_++;
    r->is_send = is_send;
    r->owner   = rank_;
    r->peer    = peer;
    r->tag     = tag;
    r->bytes   = bytes;
    r->context = mpi::Context::Collective;
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
inline void expect_sends_match_receives(const std::vector<Recorder>& ranks)
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

inline size_t total(const std::vector<Recorder>& ranks, Kind kind)
{
  size_t n = 0;
  for (auto const& r : ranks)
    n += r.posts(kind).size();
  return n;
}

} // namespace progsim::testing
