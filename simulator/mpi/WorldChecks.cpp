/* What the ranks' traces must agree on, and what the run says when they do not: collectives called alike on every
 * rank, bad input named with its file and line, what a run left behind and, when it deadlocks, which ranks wait on
 * what. The rest of the world: World.cpp. */
#include "mpi/World.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <iostream>
#include <sstream>

namespace sg4 = simgrid::s4u;

namespace progsim::mpi {

namespace {
bool rooted(trace::ActionType type)
{
  using T = trace::ActionType;
  return type == T::Bcast || type == T::Reduce || type == T::Gather || type == T::GatherV || type == T::Scatter ||
         type == T::ScatterV;
}

/** The size every rank must give (MPI: matching type signatures), or -1 where ranks may differ. */
int64_t common_size(const trace::Action& a)
{
  using T = trace::ActionType;
  switch (a.type) {
    case T::Bcast:
    case T::Reduce:
    case T::AllReduce:
    case T::Scan:
    case T::ExScan:
    case T::AllToAll:
    case T::AllGather:
    case T::Gather:
      return a.bytes;
    case T::Scatter:
      return a.bytes2;
    default:
      return -1;
  }
}

std::string describe(const trace::Action& a)
{
  std::string name = (a.nonblocking ? "i" : "") + std::string(trace::action_name(a.type));
  std::string text = (std::string_view("aeiou").find(name.front()) != std::string_view::npos ? "an " : "a ") + name;
  if (rooted(a.type))
    text += " from root " + std::to_string(a.root);
  if (common_size(a) >= 0)
    text += " of " + std::to_string(common_size(a)) + " B";
  return text;
}
} // namespace

void World::enter_collective(int rank, const trace::Action& action)
{
  if (collectives_entered_.empty())
    collectives_entered_.assign(size(), 0);
  uint64_t sequence = collectives_entered_[rank]++;
  auto [it, first] = collective_calls_.try_emplace(sequence, CollectiveCall{action, rank, 0});
  const trace::Action& expected = it->second.action;
  if (not first && (expected.type != action.type || expected.nonblocking != action.nonblocking ||
                    (rooted(action.type) && expected.root != action.root) ||
                    common_size(expected) != common_size(action))) {
    const std::string& other_file = traces_.file(it->second.rank);
    invalid_mpi(rank, "collective #" + std::to_string(sequence + 1) + " is " + describe(action) + " here but " +
                          describe(expected) + " on rank " + std::to_string(it->second.rank) + " (" + other_file +
                          ":" + std::to_string(expected.line) + ")");
  }
  if (++it->second.arrived == size())
    collective_calls_.erase(it);
}

void World::check_every_collective_called() const
{
  // A blocking collective that some rank never calls deadlocks (reported as such); a non-blocking one that nobody
  // waits for would end quietly. The first collective not every rank called is an error of the trace.
  if (collective_calls_.empty())
    return;
  auto const& [sequence, call] = *collective_calls_.begin();
  std::string missing;
  int first_missing = -1;
  for (int r = 0; r < size(); r++)
    if (collectives_entered_[r] <= sequence) {
      missing += (missing.empty() ? "" : ", ") + std::to_string(r);
      if (first_missing < 0)
        first_missing = r;
    }
  invalid_mpi(first_missing, "collective #" + std::to_string(sequence + 1) + ", " + describe(call.action) + " that rank " +
                                 std::to_string(call.rank) + " calls (" + traces_.file(call.rank) + ":" +
                                 std::to_string(call.action.line) + "), is never called by rank(s) " + missing);
}

void World::invalid_mpi(int rank, const std::string& what) const
{
  const RankRecord& record = records_[rank];
  std::string where        = traces_.file(rank);
  if (not record.trace_done)
    where += ":" + std::to_string(record.action.line) + " ('" + std::string(trace::action_name(record.action.type)) +
             "')";
  stop_on_bad_input(where + ": rank " + std::to_string(rank) + ": " + what);
}

void World::unreadable_trace(const std::string& what) const
{
  stop_on_bad_input(what);
}

void World::stop_on_bad_input(const std::string& message) const
{
  if (on_bad_input)
    on_bad_input(message); // leaves the process
  std::cerr << "progsim: error: " << message << "\n" << std::flush;
  std::abort();
}

std::string World::leftovers_report() const
{
  std::ostringstream out;
  for (int rank = 0; rank < size(); rank++) {
    for (auto const& envelope : endpoints_[rank]->unreceived())
      out << "  rank " << rank << " never received the message of rank " << envelope.source << " (tag "
          << envelope.tag << ", " << envelope.bytes << " B" << (envelope.context == Context::Collective ? ", collective" : "")
          << ")\n";
  }
  return out.str();
}

std::string World::deadlock_report() const
{
  std::ostringstream out;
  out << "Deadlock at simulated time " << sg4::Engine::get_clock() << " s: " << (size() - finished_) << " of "
      << size() << " ranks cannot go on.\n";
  for (int rank = 0; rank < size(); rank++) {
    const RankRecord& record = records_[rank];
    if (record.activity == Activity::Finished)
      continue;
    out << "  rank " << rank << " (" << host_of(rank)->get_name() << ") is " << activity_name(record.activity);
    if (not record.trace_done) {
      out << " in '" << trace::action_name(record.action.type) << "' at " << traces_.file(rank) << ":"
          << record.action.line;
    } else {
      out << " waiting for the requests its trace left pending";
    }
    out << "\n";
    for (auto const& request : endpoints_[rank]->pending_requests()) {
      if (request->in_network) {
        out << "    pending part in a collective that the network runs, " << request->bytes
            << " B: waits for every rank's part\n";
        continue;
      }
      out << "    pending " << (request->is_send ? "send to " : "receive from ");
      if (request->peer == kAnySource)
        out << "any source";
      else
        out << "rank " << request->peer;
      out << ", tag " << (request->tag == kAnyTag ? std::string("any") : std::to_string(request->tag)) << ", "
          << request->bytes << " B" << (request->context == Context::Collective ? " (inside a collective)" : "")
          << ": " << state_name(request->state) << "\n";
    }
  }
  out << waiting_cycle();
  return out.str();
}

std::string World::waiting_cycle() const
{
  // Each blocked rank waits for one peer (the rank its request names): follow those edges until one repeats.
  auto next = [this](int rank) -> int {
    auto const& request = records_[rank].waiting_for;
    if (records_[rank].activity != Activity::Blocked || not request || request->peer < 0 || request->in_network)
      return -1;
    return request->is_send ? request->peer : (request->peer == kAnySource ? -1 : request->peer);
  };
  for (int start = 0; start < size(); start++) {
    std::vector<int> path;
    std::vector<int> seen_at(size(), -1);
    for (int rank = start; rank >= 0 && seen_at[rank] < 0; rank = next(rank)) {
      seen_at[rank] = static_cast<int>(path.size());
      path.push_back(rank);
      int following = next(rank);
      if (following < 0 || seen_at[following] < 0)
        continue;
      // A cycle: from `following` to the end of the path.
      std::ostringstream out;
      out << "  waiting cycle:";
      bool blocking_send = false;
      for (size_t i = seen_at[following]; i < path.size(); i++) {
        auto const& request = records_[path[i]].waiting_for;
        out << " rank " << path[i] << " (" << (request->is_send ? "send " : "receive ") << request->bytes
            << " B) ->";
        blocking_send = blocking_send || request->is_send;
      }
      out << " rank " << following << "\n";
      if (blocking_send)
        out << "  A blocking send of this cycle waits for its receiver. The MPI that captured the trace may have\n"
            << "  returned from it once the data was copied (SMPI does below 65536 B): progsim/buffered-send-threshold\n"
            << "  (now " << parameters_.buffered_send_threshold << " B) replays blocking sends below it that way.\n";
      return out.str();
    }
  }
  return "";
}

} // namespace progsim::mpi
