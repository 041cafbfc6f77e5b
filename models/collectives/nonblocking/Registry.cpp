/* The non-blocking algorithms of this folder, by collective and name: adding one is a file and a line here. */
#include "collectives/nonblocking/Algorithms.hpp"

#include <stdexcept>

namespace progsim::models::collectives::nonblocking {

using trace::ActionType;

const std::vector<NamedAlgorithm>& algorithms()
{
  static const std::vector<NamedAlgorithm> all = {
      {ActionType::Barrier, "dissemination", dissemination_barrier},
      {ActionType::Bcast, "linear", linear_bcast},
      {ActionType::Bcast, "binomial", binomial_bcast},
      {ActionType::Bcast, "chain", chain_bcast},
      {ActionType::Bcast, "libnbc", libnbc_bcast}, // Open MPI's selection
      {ActionType::AllReduce, "binomial", binomial_allreduce},
      {ActionType::AllReduce, "recursive-doubling", recursive_doubling_allreduce},
      {ActionType::AllReduce, "ring", ring_allreduce},
      {ActionType::AllReduce, "rabenseifner", rabenseifner_allreduce},
      {ActionType::AllReduce, "libnbc", libnbc_allreduce}, // Open MPI's selection
      {ActionType::AllToAll, "pairwise", pairwise_alltoall},
  };
  return all;
}

namespace {
std::string known()
{
  std::string text;
  for (auto const& a : algorithms())
    text += (text.empty() ? "" : ", ") + ("i" + std::string(trace::action_name(a.collective))) + ":" +
            std::string(a.name);
  return text + " (or smpi: SMPI's own, one round)";
}
} // namespace

std::map<ActionType, Algorithm> parse_choices(const std::string& text)
{
  std::map<ActionType, Algorithm> chosen;
  size_t start = 0;
  while (start < text.size()) {
    size_t end         = text.find(';', start);
    std::string choice = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start              = end == std::string::npos ? text.size() : end + 1;
    if (choice.empty())
      continue;
    size_t colon = choice.find(':');
    if (colon == std::string::npos) { // a selector: its algorithm for every collective that has one
      bool found = false;
      for (auto const& a : algorithms())
        if (a.name == choice) {
          chosen[a.collective] = a.run;
          found                = true;
        }
      if (not found)
        throw std::invalid_argument("progsim/nbc-algorithms: '" + choice + "': expected <collective>:<algorithm> "
                                    "or a selector (libnbc), one of " + known());
      continue;
    }
    ActionType type;
    if (colon == std::string::npos || not trace::nonblocking_collective_from_name(choice.substr(0, colon), type))
      throw std::invalid_argument("progsim/nbc-algorithms: '" + choice + "': expected <collective>:<algorithm>, one of " +
                                  known());
    std::string name = choice.substr(colon + 1);
    if (name == "smpi") {
      chosen.erase(type);
      continue;
    }
    bool found = false;
    for (auto const& a : algorithms())
      if (a.collective == type && a.name == name) {
        chosen[type] = a.run;
        found        = true;
      }
    if (not found)
      throw std::invalid_argument("progsim/nbc-algorithms: '" + choice + "': no such algorithm; known: " + known());
  }
  return chosen;
}

} // namespace progsim::models::collectives::nonblocking
