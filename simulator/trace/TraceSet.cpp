#include "trace/TraceSet.hpp"
#include "trace/ActionParser.hpp"

#include <algorithm>
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

namespace {

/** Parses one line of `rank`'s trace that is neither blank nor a comment, and keeps its action. */
void parse_line(const std::string& line, const std::string& file, uint32_t number, int rank, int world_size,
                int& default_type_size, TraceSet& into, RankTrace& out)
{
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

} // namespace

void parse_rank_lines(std::istream& in, const std::string& file, int rank, int world_size, TraceSet& into,
                      RankTrace& out, const std::vector<uint32_t>* line_numbers)
{
  out.file               = file;
  int default_type_size  = 1; // MPI_BYTE until an "init" says otherwise
  std::string line;
  uint32_t read = 0;
  while (std::getline(in, line)) {
    read++;
    uint32_t number = line_numbers && read <= line_numbers->size() ? (*line_numbers)[read - 1] : read;
    if (is_blank_or_comment(line))
      continue;
    parse_line(line, file, number, rank, world_size, default_type_size, into, out);
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
  // Errors (a name too long for the system, a folder that cannot be searched) count as "not there".
  std::error_code ignored;
  if (std::filesystem::exists(entry, ignored)) // as SMPI reads it: relative to the current folder
    return entry;
  // Beside the list, then from each folder above it: a list written from a project's root works from anywhere.
  for (auto folder = list_dir; ; folder = folder.parent_path()) {
    auto candidate = folder / entry;
    if (std::filesystem::exists(candidate, ignored))
      return candidate.string();
    if (folder.empty() || folder == folder.parent_path())
      break;
  }
  return entry;
}

} // namespace

namespace {

// The highest rank a shared trace may name, plus one. Every rank of the world gets its RankTrace, lines or not: a
// bound keeps a short file from asking for gigabytes. 2^20 ranks is far beyond what one machine simulates (the
// engine needs about 33 KB per rank at 16 384 ranks).
constexpr int32_t kMostRanks = 1 << 20;

/**
 * One file holding the lines of every rank: note each line's rank, then parse each rank's lines in file order.
 * Memory grows with the lines and the world, never with a stream per rank.
 */
TraceSet read_shared(const std::string& path)
{
  std::ifstream in(path);
  if (not in)
    throw TraceError(path + ": cannot read the trace file");
  struct Line {
    int32_t rank;
    uint32_t number;
    std::string text;
  };
  std::vector<Line> lines;
  int32_t highest = -1;
  std::string line;
  uint32_t number = 0;
  while (std::getline(in, line)) {
    number++;
    if (is_blank_or_comment(line))
      continue;
    auto words   = split_words(line); // not blank: one word at least
    int32_t rank = -1;
    auto [end, error] = std::from_chars(words[0].data(), words[0].data() + words[0].size(), rank);
    if (error != std::errc() || end != words[0].data() + words[0].size() || rank < 0 || rank >= kMostRanks)
      throw TraceError(path + ":" + std::to_string(number) + ": a line must start with its rank (0 to " +
                       std::to_string(kMostRanks - 1) + "), got '" + std::string(words[0]) + "' in '" + line + "'");
    highest = std::max(highest, rank);
    lines.push_back(Line{rank, number, std::move(line)});
  }
  std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) { return a.rank < b.rank; });

  TraceSet set;
  const int world = highest + 1;
  set.ranks.resize(world);
  for (auto& rank : set.ranks)
    rank.file = path;
  int current            = -1;
  int default_type_size  = 1;
  for (auto const& l : lines) {
    if (l.rank != current) {
      current           = l.rank;
      default_type_size = 1; // MPI_BYTE until an "init" of that rank says otherwise
    }
    parse_line(l.text, path, l.number, l.rank, world, default_type_size, set, set.ranks[l.rank]);
  }
  return set;
}

} // namespace

TraceSet read_traces(const std::string& path)
{
  std::error_code error;
  if (not std::filesystem::is_regular_file(path, error))
    throw TraceError(path + ": no such trace file");
  if (first_line_is_action(path))
    return read_shared(path);

  TraceSet set;
  std::ifstream list(path);
  if (not list)
    throw TraceError(path + ": cannot read the trace file");
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
    if (words[0].find('\0') != std::string_view::npos) // the system would open the name cut at the NUL
      throw TraceError(path + ":" + std::to_string(number) + ": a trace file name cannot hold a NUL byte, got '" +
                       line + "'");
    auto file = resolve_listed(std::string(words[0]), list_dir);
    if (not std::filesystem::is_regular_file(file, error))
      throw TraceError(path + ":" + std::to_string(number) + ": trace file '" + std::string(words[0]) +
                       "' not found (looked in the current folder, beside the list file and above it)");
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
    if (not in)
      throw TraceError(files[r] + ": cannot read the trace file");
    parse_rank_lines(in, files[r], r, world, set, set.ranks[r]);
  }
  return set;
}

} // namespace progsim::trace
