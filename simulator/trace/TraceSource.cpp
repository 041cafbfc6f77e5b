#include "trace/TraceSource.hpp"
#include "trace/ActionParser.hpp"
#include "trace/LineReader.hpp"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <filesystem>
#include <sys/resource.h>

namespace progsim::trace {

namespace {

// The highest rank a shared trace may name, plus one. Every rank of the world gets a stream, lines or not: a bound
// keeps a short file from asking for gigabytes. 2^20 ranks is far beyond what one machine simulates.
constexpr int32_t kMostRanks = 1 << 20;

// Parsed actions held per rank between two reads. The replay holds one chunk per rank, so the chunk shrinks as the
// world grows: about 8 MiB of actions in all, at most 64 (3.5 KiB) and never fewer than 16 actions a read. 256 a
// read held a megabyte more than SMPI at 64 ranks, for 0.3 % fewer instructions.
constexpr size_t kActionBudget   = (8u << 20) / sizeof(Action);
constexpr size_t kMostPerChunk   = 64;
constexpr size_t kFewestPerChunk = 16;
// The check reads each file once from start to end, beside the replay's own reads: blocks of 64 KiB (a read per
// thousand lines or so; 1 MiB blocks added their size to the replay's peak memory).
constexpr size_t kCheckBlock = 1u << 16;

size_t chunk_for(int world)
{
  return std::clamp(kActionBudget / static_cast<size_t>(std::max(world, 1)), kFewestPerChunk, kMostPerChunk);
}

/** A read that brings a chunk's lines and little more (trace lines are ~20 to 60 bytes). */
size_t block_for(size_t chunk)
{
  return std::clamp<size_t>(chunk * 40, 4096, 1u << 16);
}

/** Raises the soft limit of open files to the hard one, and says how many trace files may stay open at once. */
size_t open_file_budget()
{
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0)
    return 256;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    getrlimit(RLIMIT_NOFILE, &limit);
  }
  // Leave room for SimGrid, the outputs and the standard streams.
  return limit.rlim_cur > 512 ? static_cast<size_t>(limit.rlim_cur) - 256 : static_cast<size_t>(limit.rlim_cur) / 2;
}

/** The rank a line of a shared trace starts with (checked against the bound). */
int32_t rank_of(std::string_view line, const std::string& file, uint32_t number)
{
  size_t start = 0;
  while (start < line.size() && std::isspace(static_cast<unsigned char>(line[start])))
    start++;
  size_t end = start;
  while (end < line.size() && not std::isspace(static_cast<unsigned char>(line[end])))
    end++;
  int32_t rank = -1;
  auto [stop, error] = std::from_chars(line.data() + start, line.data() + end, rank);
  if (error != std::errc() || stop != line.data() + end || rank < 0 || rank >= kMostRanks)
    throw TraceError(file + ":" + std::to_string(number) + ": a line must start with its rank (0 to " +
                     std::to_string(kMostRanks - 1) + "), got '" + std::string(line.substr(start, end - start)) +
                     "' in '" + std::string(line) + "'");
  return rank;
}

uint32_t line_number(const LineReader& reader)
{
  return static_cast<uint32_t>(std::min<uint64_t>(reader.line_number(), UINT32_MAX));
}

/** One rank's own file, read a chunk of actions at a time. */
class RankFileStream : public ActionStream {
public:
  RankFileStream(const std::string& file, int rank, int world, size_t chunk, bool keep_open)
      : reader_(file, block_for(chunk), keep_open), rank_(rank), world_(world), chunk_(chunk)
  {
  }

  const Action* next() override
  {
    if (index_ == actions_.size()) {
      refill();
      if (actions_.empty())
        return nullptr;
    }
    return &actions_[index_++];
  }
  const CountPool& counts() const override { return counts_; }

private:
  void refill()
  {
    actions_.clear();
    counts_.clear();
    index_ = 0;
    std::string_view line;
    Action action;
    while (actions_.size() < chunk_ && reader_.next(line))
      if (parse_line(line, reader_.path(), line_number(reader_), rank_, world_, default_type_size_, counts_, action))
        actions_.push_back(action);
    reader_.pause();
  }

  LineReader reader_;
  int rank_;
  int world_;
  size_t chunk_;
  int default_type_size_ = 1; // MPI_BYTE until an "init" says otherwise
  std::vector<Action> actions_;
  size_t index_ = 0;
  CountPool counts_;
};

/**
 * One file holding every rank's lines, read once for all of them: the lines met while looking for one rank's next
 * action wait, parsed, in their own rank's queue. What waits is what the file's order puts ahead: little for a
 * trace written in time order, the whole trace for a file sorted by rank.
 */
class SharedFileReader {
public:
  SharedFileReader(const std::string& file, int world) : reader_(file, 1u << 16, true), queues_(world) {}

  /** Copies `rank`'s next action to `out`; false at the end of its lines. */
  bool next(int rank, Action& out)
  {
    Queue& queue = queues_[rank];
    if (queue.head == queue.actions.size()) {
      queue.actions.clear();
      queue.head = 0;
      queue.counts.clear(); // the last action given out was copied: nothing refers to them any more
      if (not read_until(rank))
        return false;
    }
    out = queue.actions[queue.head++];
    // Drop what was given out once it is half the queue: a queue that is never empty when its rank asks (the file
    // read one line ahead of it) would otherwise keep every action it ever held. Each action moves once at most.
    if (2 * queue.head >= queue.actions.size()) {
      queue.actions.erase(queue.actions.begin(), queue.actions.begin() + static_cast<std::ptrdiff_t>(queue.head));
      queue.head = 0;
    }
    return true;
  }
  const CountPool& counts(int rank) const { return queues_[rank].counts; }

private:
  struct Queue { // a vector and a head, not a deque: an empty deque costs hundreds of bytes, and ranks are many
    std::vector<Action> actions;
    size_t head = 0;
    CountPool counts;
    int default_type_size = 1;
  };

  bool read_until(int rank)
  {
    std::string_view line;
    Action action;
    const int world = static_cast<int>(queues_.size());
    while (reader_.next(line)) {
      const uint32_t number = line_number(reader_);
      if (is_blank_or_comment(line))
        continue;
      const int32_t owner = rank_of(line, reader_.path(), number);
      Queue& queue        = queues_.at(owner);
      if (parse_line(line, reader_.path(), number, owner, world, queue.default_type_size, queue.counts, action)) {
        queue.actions.push_back(action);
        if (owner == rank)
          return true;
      }
    }
    return false;
  }

  LineReader reader_;
  std::vector<Queue> queues_;
};

class SharedRankStream : public ActionStream {
public:
  SharedRankStream(std::shared_ptr<SharedFileReader> reader, int rank) : reader_(std::move(reader)), rank_(rank) {}
  const Action* next() override { return reader_->next(rank_, current_) ? &current_ : nullptr; }
  const CountPool& counts() const override { return reader_->counts(rank_); }

private:
  std::shared_ptr<SharedFileReader> reader_;
  int rank_;
  Action current_;
};

bool first_line_is_action(const std::string& path)
{
  LineReader reader(path, 4096, false);
  std::string_view line;
  while (reader.next(line)) {
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
  for (auto folder = list_dir;; folder = folder.parent_path()) {
    auto candidate = folder / entry;
    if (std::filesystem::exists(candidate, ignored))
      return candidate.string();
    if (folder.empty() || folder == folder.parent_path())
      break;
  }
  return entry;
}

/** The trace files a list names, one per rank. */
std::vector<std::string> read_list(const std::string& path)
{
  std::vector<std::string> files;
  LineReader list(path, 1u << 16, false);
  auto list_dir = std::filesystem::path(path).parent_path();
  std::string_view line;
  std::error_code error;
  while (list.next(line)) {
    const uint32_t number = line_number(list);
    if (is_blank_or_comment(line))
      continue;
    auto words = split_words(line);
    if (words.size() != 1)
      throw TraceError(path + ":" + std::to_string(number) +
                       ": a list file names one trace file per line (rank 0 first), got '" + std::string(line) + "'");
    if (words[0].find('\0') != std::string_view::npos) // the system would open the name cut at the NUL
      throw TraceError(path + ":" + std::to_string(number) + ": a trace file name cannot hold a NUL byte, got '" +
                       std::string(line) + "'");
    auto file = resolve_listed(std::string(words[0]), list_dir);
    if (not std::filesystem::is_regular_file(file, error))
      throw TraceError(path + ":" + std::to_string(number) + ": trace file '" + std::string(words[0]) +
                       "' not found (looked in the current folder, beside the list file and above it)");
    files.push_back(file);
  }
  if (files.empty())
    throw TraceError(path + ": empty trace list (expected one trace file per line)");
  if (files.size() >= static_cast<size_t>(kMostRanks))
    throw TraceError(path + ": more than " + std::to_string(kMostRanks - 1) + " trace files");
  return files;
}

} // namespace

TraceSource::TraceSource(const std::string& path) : path_(path)
{
  std::error_code error;
  if (not std::filesystem::is_regular_file(path, error))
    throw TraceError(path + ": no such trace file");
  if (first_line_is_action(path)) {
    files_  = {path};
    shared_ = true;
  } else {
    files_  = read_list(path);
    shared_ = files_.size() == 1; // as in SMPI: a list of one file names a trace shared by all ranks
  }
  if (not shared_) {
    world_ = static_cast<int>(files_.size());
    return;
  }
  // The world is the highest rank named, plus one: its size shapes the v-collectives' lines.
  LineReader reader(files_.front(), kCheckBlock, false);
  std::string_view line;
  int32_t highest = -1;
  while (reader.next(line))
    if (not is_blank_or_comment(line))
      highest = std::max(highest, rank_of(line, files_.front(), line_number(reader)));
  world_ = highest + 1;
}

TraceSource::~TraceSource() = default;

uint64_t TraceSource::check() const
{
  return shared_ ? check_shared_file() : check_rank_files();
}

uint64_t TraceSource::check_rank_files() const
{
  uint64_t actions = 0;
  for (int rank = 0; rank < world_; rank++) {
    LineReader reader(files_[rank], kCheckBlock, false);
    int default_type_size = 1;
    CountPool counts;
    Action action;
    std::string_view line;
    while (reader.next(line)) {
      if (parse_line(line, files_[rank], line_number(reader), rank, world_, default_type_size, counts, action))
        actions++;
      counts.clear();
    }
  }
  return actions;
}

uint64_t TraceSource::check_shared_file() const
{
  const std::string& file = files_.front();
  uint64_t actions        = 0;
  LineReader reader(file, kCheckBlock, false);
  std::vector<int> default_type_size(static_cast<size_t>(world_), 1);
  CountPool counts;
  Action action;
  std::string_view line;
  while (reader.next(line)) {
    const uint32_t number = line_number(reader);
    if (is_blank_or_comment(line))
      continue;
    const int32_t rank = rank_of(line, file, number);
    if (parse_line(line, file, number, rank, world_, default_type_size[rank], counts, action))
      actions++;
    counts.clear();
  }
  return actions;
}

std::vector<std::unique_ptr<ActionStream>> TraceSource::streams(size_t chunk) const
{
  std::vector<std::unique_ptr<ActionStream>> streams;
  streams.reserve(static_cast<size_t>(world_));
  if (shared_) {
    auto reader = std::make_shared<SharedFileReader>(files_.front(), world_);
    for (int rank = 0; rank < world_; rank++)
      streams.push_back(std::make_unique<SharedRankStream>(reader, rank));
    return streams;
  }
  if (chunk == 0)
    chunk = chunk_for(world_);
  const bool keep_open  = static_cast<size_t>(world_) <= open_file_budget();
  for (int rank = 0; rank < world_; rank++)
    streams.push_back(std::make_unique<RankFileStream>(files_[rank], rank, world_, chunk, keep_open));
  return streams;
}

} // namespace progsim::trace
