#include "collectives/SmpiNonBlocking.hpp"
#include "mpi/Request.hpp"
#include "trace/Action.hpp"

#include <stdexcept>
#include <string>

namespace progsim::models::collectives::smpi_nonblocking {

using trace::ActionType;

namespace {

/** One round, filled in SMPI's posting order. */
class Round {
public:
  Round(int rank, int size, int tag) : rank_(rank), size_(size), tag_(tag) {}
  void send(int to, int64_t bytes) { round_.transfers.push_back({true, to, tag_, bytes}); }
  void recv(int from, int64_t bytes) { round_.transfers.push_back({false, from, tag_, bytes}); }
  int rank() const { return rank_; }
  int size() const { return size_; }
  mpi::Schedule schedule()
  {
    mpi::Schedule one;
    one.rounds.push_back(std::move(round_));
    return one;
  }

private:
  int rank_;
  int size_;
  int tag_;
  mpi::Round round_;
};

template <typename BytesTo> void from_root(Round& round, int root, BytesTo bytes_to, int64_t recv_bytes)
{
  if (round.rank() != root) {
    round.recv(root, recv_bytes);
    return;
  }
  for (int to = 0; to < round.size(); to++)
    if (to != root)
      round.send(to, bytes_to(to));
}

template <typename BytesFrom> void to_root(Round& round, int root, int64_t send_bytes, BytesFrom bytes_from)
{
  if (round.rank() != root) {
    round.send(root, send_bytes);
    return;
  }
  for (int from = 0; from < round.size(); from++)
    if (from != root)
      round.recv(from, bytes_from(from));
}

/** Everyone sends to and receives from everyone else, a send then a receive per peer. */
template <typename BytesTo, typename BytesFrom>
void with_everyone(Round& round, BytesTo bytes_to, BytesFrom bytes_from)
{
  for (int other = 0; other < round.size(); other++)
    if (other != round.rank()) {
      round.send(other, bytes_to(other));
      round.recv(other, bytes_from(other));
    }
}

} // namespace

mpi::Schedule schedule(const trace::Action& a, int rank, int size, const trace::CountPool& counts)
{
  Round round(rank, size, trace::nonblocking_request_tag(a.type));
  const int64_t* vector  = counts.data() + a.vector;
  const int64_t* vector2 = counts.data() + a.vector2;
  auto same              = [](int64_t bytes) { return [bytes](int) { return bytes; }; };
  switch (a.type) {
    case ActionType::Barrier: // rank 0 hears from anyone and answers each rank, all posted at once
      if (rank > 0) {
        round.send(0, 0);
        round.recv(0, 0);
      } else {
        for (int other = 1; other < size; other++) {
          round.recv(mpi::kAnySource, 0);
          round.send(other, 0);
        }
      }
      break;
    case ActionType::Bcast:
      from_root(round, a.root, same(a.bytes), a.bytes);
      break;
    case ActionType::Scatter:
      from_root(round, a.root, same(a.bytes), a.bytes2);
      break;
    case ActionType::ScatterV:
      from_root(round, a.root, [vector](int to) { return vector[to]; }, a.bytes2);
      break;
    case ActionType::Reduce:
      to_root(round, a.root, a.bytes, same(a.bytes));
      break;
    case ActionType::Gather:
      to_root(round, a.root, a.bytes, same(a.bytes2));
      break;
    case ActionType::GatherV:
      to_root(round, a.root, a.bytes, [vector](int from) { return vector[from]; });
      break;
    case ActionType::AllReduce:
      with_everyone(round, same(a.bytes), same(a.bytes));
      break;
    case ActionType::AllGather:
      with_everyone(round, same(a.bytes), same(a.bytes2));
      break;
    case ActionType::AllGatherV:
      with_everyone(round, same(a.bytes), [vector](int from) { return vector[from]; });
      break;
    case ActionType::ReduceScatter: // each rank reduces its own share: it sends each peer that peer's share
      with_everyone(round, [vector](int to) { return vector[to]; }, same(vector[rank]));
      break;
    case ActionType::AllToAll: // receives from the next ranks up, then sends to the next ranks down
      for (int i = (rank + 1) % size; i != rank; i = (i + 1) % size)
        round.recv(i, a.bytes2);
      for (int i = (rank + size - 1) % size; i != rank; i = (i + size - 1) % size)
        round.send(i, a.bytes);
      break;
    case ActionType::AllToAllV:
      for (int i = 0; i < size; i++)
        if (i != rank)
          round.recv(i, vector2[i]);
      for (int i = 0; i < size; i++)
        if (i != rank)
          round.send(i, vector[i]);
      break;
    case ActionType::Scan:
    case ActionType::ExScan: // from every rank below, to every rank above
      for (int other = 0; other < rank; other++)
        round.recv(other, a.bytes);
      for (int other = rank + 1; other < size; other++)
        round.send(other, a.bytes);
      break;
    default:
      throw std::logic_error("action " + std::string(trace::action_name(a.type)) + " is not a collective");
  }
  return round.schedule();
}

} // namespace progsim::models::collectives::smpi_nonblocking
