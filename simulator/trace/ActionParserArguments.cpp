/* The arguments of each action after "<rank> <action>": their layout, read as numbers, counts, ranks and
 * datatypes, every error naming file:line and the form expected. A line's words and its action: ActionParser.cpp. */
#include "trace/ActionParser.hpp"
#include "trace/ActionParserDecimal.hpp"
#include "trace/Datatype.hpp"
#include "trace/TraceError.hpp"

#include <boost/algorithm/string/join.hpp>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace progsim::trace {

namespace {

constexpr int32_t kAnySourceInTrace = -555; // SMPI's MPI_ANY_SOURCE

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
      return "<flops> [bytes]";
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
    // The action as spelled: ibcast takes bcast's arguments.
    msg << file_ << ":" << line_ << ": " << what << " in '" << boost::algorithm::join(copy, " ")
        << "'; expected '<rank> " << words_[1] << " " << usage(type_) << "'";
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
    // Most numbers are small integers (ranks, tags, sizes): read exactly, as strtod would, without its cost.
    int64_t whole = 0;
    const char* first = words_[i].data();
    const char* last  = first + words_[i].size();
    if (words_[i].size() <= 15 && read_decimal(words_[i], whole))
      return static_cast<double>(whole); // below 10^15 < 2^53: exact
    // Then as a real (flops such as 1e+06): from_chars rounds as strtod does; strtod reads what it does not.
    double real = 0;
    if (auto [stop, error] = std::from_chars(first, last, real); error == std::errc() && stop == last)
      if (std::isfinite(real))
        return real;
    std::string text(words_[i]);
    char* end      = nullptr;
    double value   = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || not std::isfinite(value))
      fail(std::string("'") + text + "' is not a number (" + what + ")");
    return value;
  }
  /** A real number that must not be negative (flops). */
  double nonnegative(size_t i, const char* what) const
  {
    double value = number(i, what);
    if (value < 0)
      fail(std::string("negative ") + what);
    return value;
  }
  /** A count: SMPI reads counts as reals and truncates them. It must fit in 64 bits. */
  int64_t count(size_t i, const char* what) const
  {
    double value = std::trunc(number(i, what));
    if (value >= 0x1p63 || value < -0x1p63)
      fail(std::string(what) + " " + std::string(words_[i]) + " does not fit in 64 bits");
    return static_cast<int64_t>(value);
  }
  /** A count that must not be negative, in bytes: times `type_size`; the bytes must fit in 64 bits. */
  int64_t bytes(size_t i, const char* what, int type_size) const
  {
    int64_t n = count(i, what);
    if (n < 0)
      fail(std::string("negative ") + what + " " + std::string(words_[i]));
    int64_t result = 0;
    if (__builtin_mul_overflow(n, static_cast<int64_t>(type_size), &result))
      fail(std::string(what) + " " + std::string(words_[i]) + " x " + std::to_string(type_size) +
           " bytes does not fit in 64 bits");
    return result;
  }
  int32_t integer(size_t i, const char* what) const
  {
    if (not has(i))
      fail(std::string("missing ") + what);
    int32_t value = 0;
    if (not read_decimal(words_[i], value))
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

namespace {

/** Appends a vector of `n` counts starting at word `first`, scaled by `type_size`, to the pool. */
uint32_t pool_counts(const LineParser& p, size_t first, int n, int type_size, CountPool& into)
{
  if (into.size() > std::numeric_limits<uint32_t>::max())
    p.fail("more v-collective counts than a trace can hold (2^32)");
  auto offset = static_cast<uint32_t>(into.size());
  for (int i = 0; i < n; i++)
    into.push_back(p.bytes(first + i, "count", type_size));
  return offset;
}

Action parse_arguments(const LineParser& p, ActionType type, int world, int& default_type_size, CountPool& into)
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
      // A receive of a negative count probes for the size (-1); a send must give one.
      const bool probe = (type == ActionType::Recv || type == ActionType::Irecv) && p.count(4, "count") < 0;
      a.bytes = probe ? -1 : p.bytes(4, "count", p.type_size(5));
      break;
    }
    case ActionType::Test:
    case ActionType::Wait:
      p.require(3);
      a.tag = p.integer(4, "tag");
      if (is_nonblocking_request_tag(a.tag)) { // a non-blocking collective's: SMPI writes its src and dst as it can
        a.peer = a.peer2 = -1;
        break;
      }
      a.peer  = p.rank_arg(2, "src", true);
      a.peer2 = p.rank_arg(3, "dst");
      break;
    case ActionType::SendRecv:
      p.require(4);
      a.bytes  = p.bytes(2, "sendcount", p.type_size(6));
      a.peer   = p.rank_arg(3, "dst");
      a.bytes2 = p.bytes(4, "recvcount", p.type_size(7));
      a.peer2  = p.rank_arg(5, "src");
      break;
    case ActionType::Bcast:
      p.require(1);
      a.bytes  = p.bytes(2, "count", p.type_size(4));
      a.bytes2 = p.type_size(4); // the element size: some algorithms split the vector by elements
      a.root   = p.root_arg(3);
      break;
    case ActionType::Reduce:
      p.require(2);
      a.bytes  = p.bytes(2, "count", p.type_size(5));
      a.bytes2 = p.type_size(5);
      a.flops  = p.nonnegative(3, "flops");
      a.root   = p.root_arg(4);
      break;
    case ActionType::AllReduce:
    case ActionType::Scan:
    case ActionType::ExScan:
      p.require(2);
      a.bytes  = p.bytes(2, "count", p.type_size(4));
      a.bytes2 = p.type_size(4);
      a.flops  = p.nonnegative(3, "flops");
      break;
    case ActionType::AllToAll:
    case ActionType::AllGather:
      p.require(2);
      a.bytes  = p.bytes(2, "sendcount", p.type_size(4));
      a.bytes2 = p.bytes(3, "recvcount", p.type_size(5));
      break;
    case ActionType::Gather:
    case ActionType::Scatter:
      p.require(2);
      a.bytes  = p.bytes(2, "sendcount", p.type_size(5));
      a.bytes2 = p.bytes(3, "recvcount", p.type_size(6));
      a.root   = p.root_arg(4);
      break;
    case ActionType::GatherV:
      p.require(N + 1);
      a.root   = p.root_arg(3 + N);
      a.bytes  = p.bytes(2, "sendcount", p.type_size(4 + N));
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
      a.bytes  = p.bytes(2, "sendcount", p.type_size(send_type));
      a.vector = pool_counts(p, 3, world, p.type_size(recv_type), into);
      break;
    }
    case ActionType::ScatterV:
      p.require(N + 1);
      a.root   = p.root_arg(3 + N);
      a.vector = pool_counts(p, 2, world, p.type_size(4 + N), into);
      a.bytes2 = p.bytes(2 + N, "recvcount", p.type_size(5 + N));
      break;
    case ActionType::AllToAllV:
      p.require(2 * N + 2);
      a.bytes   = p.bytes(2, "sendbufsize", 1);
      a.vector  = pool_counts(p, 3, world, p.type_size(4 + 2 * N), into);
      a.bytes2  = p.bytes(3 + N, "recvbufsize", 1);
      a.vector2 = pool_counts(p, 4 + N, world, p.type_size(5 + 2 * N), into);
      break;
    case ActionType::ReduceScatter:
      p.require(N + 1);
      a.flops  = p.nonnegative(2 + N, "flops");
      a.bytes2 = p.type_size(3 + N); // the element size: SMPI's algorithm choice counts elements
      a.vector = pool_counts(p, 2, world, static_cast<int>(a.bytes2), into);
      break;
    case ActionType::Compute:
      p.require(1);
      a.flops = p.nonnegative(2, "flops");
      a.bytes = p.has(3) ? p.bytes(3, "bytes", 1) : -1; // progsim's extension: the bytes it moves through memory
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

} // namespace

Action parse_action(const std::string& file, uint32_t line, const std::vector<std::string_view>& words,
                    ActionType type, int world_size, int& default_type_size, CountPool& into)
{
  LineParser parser(file, line, words, type, world_size, default_type_size);
  Action action = parse_arguments(parser, type, world_size, default_type_size, into);
  action.line   = line;
  return action;
}

} // namespace progsim::trace
