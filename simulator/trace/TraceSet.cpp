#include "trace/TraceSet.hpp"
#include "trace/Datatype.hpp"

#include <boost/algorithm/string/join.hpp>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace progsim::trace {

namespace {

constexpr int32_t kAnySourceInTrace = -555; // SMPI's MPI_ANY_SOURCE

std::vector<std::string_view> split_words(std::string_view line)
{
  std::vector<std::string_view> words;
  size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && std::isspace(static_cast<unsigned char>(line[pos])))
      pos++;
    size_t start = pos;
    while (pos < line.size() && not std::isspace(static_cast<unsigned char>(line[pos])))
      pos++;
    if (pos > start)
      words.emplace_back(line.substr(start, pos - start));
  }
  return words;
}

/** The expected argument layout of each action, for error messages (after "<rank> <action>"). */
std::string_view usage(ActionType type)
{
  switch (type) {
    case ActionType::Send:
    case ActionType::Isend:
    case ActionType::Recv:
    case ActionType::Irecv:
      return "<partner> <tag> <count> [datatype]";
    case ActionType::Test:
    case ActionType::Wait:
      return "<src> <dst> <tag>";
    case ActionType::SendRecv:
      return "<sendcount> <dst> <recvcount> <src> [sendtype] [recvtype]";
    case ActionType::Bcast:
      return "<count> [root] [datatype]";
    case ActionType::Reduce:
      return "<count> <flops> [root] [datatype]";
    case ActionType::AllReduce:
    case ActionType::Scan:
    case ActionType::ExScan:
      return "<count> <flops> [datatype]";
    case ActionType::AllToAll:
    case ActionType::AllGather:
      return "<sendcount> <recvcount> [sendtype] [recvtype]";
    case ActionType::Gather:
    case ActionType::Scatter:
      return "<sendcount> <recvcount> [root] [sendtype] [recvtype]";
    case ActionType::GatherV:
      return "<sendcount> <recvcount x N> [root] [sendtype] [recvtype]";
    case ActionType::AllGatherV:
      return "<sendcount> <recvcount x N> [sendtype recvtype] [displacement x N]";
    case ActionType::ScatterV:
      return "<sendcount x N> <recvcount> [root] [sendtype] [recvtype]";
    case ActionType::AllToAllV:
      return "<sendbufsize> <sendcount x N> <recvbufsize> <recvcount x N> [sendtype] [recvtype]";
    case ActionType::ReduceScatter:
      return "<recvcount x N> <flops> [datatype]";
    case ActionType::Compute:
      return "<flops>";
    case ActionType::Sleep:
      return "<seconds>";
    case ActionType::Location:
      return "<file> <line>";
    default:
      return "(no argument needed)";
  }
}

/** Parses the arguments of one line; every error names file:line, the expected form and the line. */
class LineParser {
public:
  LineParser(const std::string& file, uint32_t line, const std::vector<std::string_view>& words, ActionType type,
             int world_size, int default_type_size)
      : file_(file), line_(line), words_(words), type_(type), world_(world_size), default_size_(default_type_size)
  {
  }

  [[noreturn]] void fail(const std::string& what) const
  {
    std::vector<std::string> copy(words_.begin(), words_.end());
    std::ostringstream msg;
    msg << file_ << ":" << line_ << ": " << what << " in '" << boost::algorithm::join(copy, " ") << "'; expected '<rank> "
        << action_name(type_) << " " << usage(type_) << "'";
    throw TraceError(msg.str());
  }

  void require(size_t mandatory) const
  {
    if (words_.size() < mandatory + 2)
      fail("missing arguments (" + std::to_string(words_.size() - 2) + " given, " + std::to_string(mandatory) +
           " needed)");
  }
  bool has(size_t i) const { return i < words_.size(); }

  /** A real number: flops, seconds, or a count written as "2.06769e+06". */
  double number(size_t i, const char* what) const
  {
    if (not has(i))
      fail(std::string("missing ") + what);
    std::string text(words_[i]);
    char* end      = nullptr;
    double value   = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || not std::isfinite(value))
      fail(std::string("'") + text + "' is not a number (" + what + ")");
    return value;
  }
  /** A count: SMPI reads counts as reals and truncates them. */
  int64_t count(size_t i, const char* what) const { return static_cast<int64_t>(std::trunc(number(i, what))); }
  int32_t integer(size_t i, const char* what) const
  {
    if (not has(i))
      fail(std::string("missing ") + what);
    int32_t value = 0;
    auto [end, error] = std::from_chars(words_[i].data(), words_[i].data() + words_[i].size(), value);
    if (error != std::errc() || end != words_[i].data() + words_[i].size())
      fail("'" + std::string(words_[i]) + "' is not an integer (" + what + ")");
    return value;
  }
  /** A world rank; `any` also accepts MPI_ANY_SOURCE (-555, as SMPI writes it) for receives. */
  int32_t rank_arg(size_t i, const char* what, bool any = false) const
  {
    int32_t value = integer(i, what);
    if (any && value == kAnySourceInTrace)
      return value;
    if (value < 0 || value >= world_)
      fail(std::string(what) + " " + std::to_string(value) + " is outside the " + std::to_string(world_) +
           " ranks of the trace");
    return value;
  }
  int32_t root_arg(size_t i) const
  {
    if (not has(i))
      return 0;
    int32_t value = integer(i, "root");
    if (value < 0 || value >= world_)
      fail("root " + std::to_string(value) + " is outside the " + std::to_string(world_) + " ranks of the trace");
    return value;
  }
  /** Size of the datatype named by word i, or the default datatype's when absent. */
  int type_size(size_t i) const
  {
    if (not has(i))
      return default_size_;
    auto size = datatype_size(words_[i]);
    if (not size)
      fail("unknown datatype id '" + std::string(words_[i]) + "' (SMPI ids are -1 and 0..59)");
    return *size;
  }
  size_t size() const { return words_.size(); }

private:
  const std::string& file_;
  uint32_t line_;
  const std::vector<std::string_view>& words_;
  ActionType type_;
  int world_;
  int default_size_;
};

} // namespace

size_t TraceSet::action_count() const
{
  size_t total = 0;
  for (auto const& rank : ranks)
    total += rank.actions.size();
  return total;
}

namespace {

/** Appends a vector of `n` counts starting at word `first`, scaled by `type_size`, to the pool. */
uint32_t pool_counts(const LineParser& p, size_t first, int n, int type_size, TraceSet& into)
{
  auto offset = static_cast<uint32_t>(into.pool.size());
  for (int i = 0; i < n; i++)
    into.pool.push_back(p.count(first + i, "count") * type_size);
  return offset;
}

Action parse_action(const LineParser& p, ActionType type, int world, int& default_type_size, TraceSet& into)
{
  Action a;
  a.type = type;
  const auto N = static_cast<size_t>(world);
  switch (type) {
    case ActionType::Init:
      // As SMPI: an extra word after "init" makes MPI_DOUBLE the default datatype (MPE traces), else MPI_BYTE.
      default_type_size = p.size() > 2 ? 8 : 1;
      break;
    case ActionType::Finalize:
    case ActionType::CommSize:
    case ActionType::CommSplit:
    case ActionType::CommDup:
    case ActionType::WaitAll:
    case ActionType::Barrier:
      break;
    case ActionType::Send:
    case ActionType::Isend:
    case ActionType::Recv:
    case ActionType::Irecv: {
      p.require(3);
      a.peer    = p.rank_arg(2, "partner", type == ActionType::Recv || type == ActionType::Irecv);
      a.tag     = p.integer(3, "tag");
      auto n    = p.count(4, "count");
      if (n < 0 && (type == ActionType::Send || type == ActionType::Isend))
        p.fail("negative count");
      a.bytes = n < 0 ? -1 : n * p.type_size(5);
      break;
    }
    case ActionType::Test:
    case ActionType::Wait:
      p.require(3);
      a.peer  = p.rank_arg(2, "src", true);
      a.peer2 = p.rank_arg(3, "dst");
      a.tag   = p.integer(4, "tag");
      break;
    case ActionType::SendRecv:
      p.require(4);
      a.bytes  = p.count(2, "sendcount") * p.type_size(6);
      a.peer   = p.rank_arg(3, "dst");
      a.bytes2 = p.count(4, "recvcount") * p.type_size(7);
      a.peer2  = p.rank_arg(5, "src");
      break;
    case ActionType::Bcast:
      p.require(1);
      a.bytes = p.count(2, "count") * p.type_size(4);
      a.root  = p.root_arg(3);
      break;
    case ActionType::Reduce:
      p.require(2);
      a.bytes = p.count(2, "count") * p.type_size(5);
      a.flops = p.number(3, "flops");
      a.root  = p.root_arg(4);
      break;
    case ActionType::AllReduce:
    case ActionType::Scan:
    case ActionType::ExScan:
      p.require(2);
      a.bytes = p.count(2, "count") * p.type_size(4);
      a.flops = p.number(3, "flops");
      break;
    case ActionType::AllToAll:
    case ActionType::AllGather:
      p.require(2);
      a.bytes  = p.count(2, "sendcount") * p.type_size(4);
      a.bytes2 = p.count(3, "recvcount") * p.type_size(5);
      break;
    case ActionType::Gather:
    case ActionType::Scatter:
      p.require(2);
      a.bytes  = p.count(2, "sendcount") * p.type_size(5);
      a.bytes2 = p.count(3, "recvcount") * p.type_size(6);
      a.root   = p.root_arg(4);
      break;
    case ActionType::GatherV:
      p.require(N + 1);
      a.root   = p.root_arg(3 + N);
      a.bytes  = p.count(2, "sendcount") * p.type_size(4 + N);
      a.vector = pool_counts(p, 3, world, p.type_size(5 + N), into);
      break;
    case ActionType::AllGatherV: {
      p.require(N + 1);
      // SMPI's three layouts: "types + displacements", "displacements only", or "[types]".
      size_t send_type = 3 + N;
      size_t recv_type = 4 + N;
      if (p.size() > 3 + N + N) {
      } else if (p.size() > 3 + N + 2) {
        send_type = recv_type = p.size(); // displacements only: the default datatype
      }
      a.bytes  = p.count(2, "sendcount") * p.type_size(send_type);
      a.vector = pool_counts(p, 3, world, p.type_size(recv_type), into);
      break;
    }
    case ActionType::ScatterV:
      p.require(N + 1);
      a.root   = p.root_arg(3 + N);
      a.vector = pool_counts(p, 2, world, p.type_size(4 + N), into);
      a.bytes2 = p.count(2 + N, "recvcount") * p.type_size(5 + N);
      break;
    case ActionType::AllToAllV:
      p.require(2 * N + 2);
      a.bytes   = p.count(2, "sendbufsize");
      a.vector  = pool_counts(p, 3, world, p.type_size(4 + 2 * N), into);
      a.bytes2  = p.count(3 + N, "recvbufsize");
      a.vector2 = pool_counts(p, 4 + N, world, p.type_size(5 + 2 * N), into);
      break;
    case ActionType::ReduceScatter:
      p.require(N + 1);
      a.flops  = p.number(2 + N, "flops");
      a.bytes2 = p.type_size(3 + N); // the element size: SMPI's algorithm choice counts elements
      a.vector = pool_counts(p, 2, world, static_cast<int>(a.bytes2), into);
      break;
    case ActionType::Compute:
      p.require(1);
      a.flops = p.number(2, "flops");
      if (a.flops < 0)
        p.fail("negative flops");
      break;
    case ActionType::Sleep:
      p.require(1);
      a.flops = p.number(2, "seconds");
      if (a.flops < 0)
        p.fail("negative duration");
      break;
    case ActionType::Location:
      p.require(2);
      p.integer(3, "line");
      break;
  }
  return a;
}

bool is_blank_or_comment(std::string_view line)
{
  for (char c : line) {
    if (c == '#')
      return true;
    if (not std::isspace(static_cast<unsigned char>(c)))
      return false;
  }
  return true;
}

} // namespace

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
    LineParser parser(file, number, words, type, world_size, default_type_size);
    Action action = parse_action(parser, type, world_size, default_type_size, into);
    action.line   = number;
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
