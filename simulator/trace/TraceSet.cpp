#include "trace/TraceSet.hpp"
#include "trace/ActionParser.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace progsim::trace {

size_t TraceSet::action_count() const
{
  size_t total = 0;
  for (auto const& rank : ranks)
    total += rank.actions.size();
  return total;
}

void parse_rank_lines(std::istream& in, const std::string& file, int rank, int world_size, TraceSet& into,
                      RankTrace& out, const std::vector<uint32_t>* line_numbers)
{
  out.file               = file;
  int default_type_size  = 1; // MPI_BYTE until an "init" says otherwise
  std::string line;
  uint32_t number = 0;
  uint32_t read = 0;
  while (std::getline(in, line)) {
    read++;
    number = line_numbers ? (*line_numbers)[read - 1] : read;
    if (is_blank_or_comment(line))
      continue;
    auto words = split_words(line);
    ActionType type;
    if (words.size() < 2 || not action_from_name(words[1], type)) {
      std::ostringstream msg;
      msg << file << ":" << number << ": ";
      if (words.size() < 2)
        msg << "a line needs '<rank> <action> [arguments]'";
      else
        msg << "unknown action '" << words[1] << "' (SimGrid 3.32's replay knows: init finalize comm_size comm_split "
            << "comm_dup send isend recv irecv test sendRecv wait waitall barrier bcast reduce allreduce alltoall "
            << "alltoallv gather scatter gatherv scatterv allgather allgatherv reducescatter scan exscan compute sleep "
            << "location)";
      msg << " in '" << line << "'";
      throw TraceError(msg.str());
    }
    int32_t line_rank = -1;
    auto [end, error] = std::from_chars(words[0].data(), words[0].data() + words[0].size(), line_rank);
    if (error != std::errc() || end != words[0].data() + words[0].size() || line_rank != rank)
      throw TraceError(file + ":" + std::to_string(number) + ": line starts with '" + std::string(words[0]) +
                       "' but this trace belongs to rank " + std::to_string(rank) + " in '" + line + "'");
    Action action = parse_action(file, number, words, type, world_size, default_type_size, into);
    if (type != ActionType::Location)
      out.actions.push_back(action);
  }
}

namespace {

bool first_line_is_action(const std::string& path)
{
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (is_blank_or_comment(line))
      continue;
    auto words = split_words(line);
    ActionType type;
    return words.size() >= 2 && action_from_name(words[1], type);
  }
  return false;
}

std::string resolve_listed(const std::string& entry, const std::filesystem::path& list_dir)
{
  if (std::filesystem::exists(entry))
    return entry;
  auto beside = list_dir / entry;
  if (std::filesystem::exists(beside))
    return beside.string();
  return entry;
}

} // namespace

namespace {
/** One file holding the lines of every rank: split them by rank, then parse each rank's lines in order. */
TraceSet read_shared(const std::string& path)
{
  TraceSet set;
  {
    // One shared file: split its lines by rank first, then parse each rank's lines in order.
    std::ifstream in(path);
    std::vector<std::ostringstream> per_rank;
    std::vector<std::vector<uint32_t>> numbers;
    std::string line;
    uint32_t number = 0;
    while (std::getline(in, line)) {
      number++;
      if (is_blank_or_comment(line))
        continue;
      auto words = split_words(line);
      int32_t rank = -1;
      auto [end, error] = std::from_chars(words[0].data(), words[0].data() + words[0].size(), rank);
      if (error != std::errc() || end != words[0].data() + words[0].size() || rank < 0 || rank > 10'000'000)
        throw TraceError(path + ":" + std::to_string(number) + ": a line must start with its rank, got '" +
                         std::string(words[0]) + "' in '" + line + "'");
      if (static_cast<size_t>(rank) >= per_rank.size()) {
        per_rank.resize(rank + 1);
        numbers.resize(rank + 1);
      }
      per_rank[rank] << line << '\n';
      numbers[rank].push_back(number);
    }
    const int world = static_cast<int>(per_rank.size());
    set.ranks.resize(world);
    for (int r = 0; r < world; r++) {
      std::istringstream lines(per_rank[r].str());
      parse_rank_lines(lines, path, r, world, set, set.ranks[r], &numbers[r]); // lines of the shared file
    }
  }
  return set;
}
} // namespace

TraceSet read_traces(const std::string& path)
{
  if (not std::filesystem::is_regular_file(path))
    throw TraceError(path + ": no such trace file");
  if (first_line_is_action(path))
    return read_shared(path);

  TraceSet set;
  std::ifstream list(path);
  std::vector<std::string> files;
  std::string line;
  auto list_dir = std::filesystem::path(path).parent_path();
  uint32_t number = 0;
  while (std::getline(list, line)) {
    number++;
    if (is_blank_or_comment(line))
      continue;
    auto words = split_words(line);
    if (words.size() != 1)
      throw TraceError(path + ":" + std::to_string(number) +
                       ": a list file names one trace file per line (rank 0 first), got '" + line + "'");
    auto file = resolve_listed(std::string(words[0]), list_dir);
    if (not std::filesystem::is_regular_file(file))
      throw TraceError(path + ":" + std::to_string(number) + ": trace file '" + std::string(words[0]) +
                       "' not found (looked in the current folder and beside the list file)");
    files.push_back(file);
  }
  if (files.empty())
    throw TraceError(path + ": empty trace list (expected one trace file per line)");
  if (files.size() == 1) // as in SMPI: a list of one file names a trace shared by all ranks
    return read_shared(files.front());
  const int world = static_cast<int>(files.size());
  set.ranks.resize(world);
  for (int r = 0; r < world; r++) {
    std::ifstream in(files[r]);
    parse_rank_lines(in, files[r], r, world, set, set.ranks[r]);
  }
  return set;
}

} // namespace progsim::trace
