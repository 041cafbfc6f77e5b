/* A trace line: its words, whether it carries an action, and which action of which rank it names. Each action's
 * arguments: ActionParserArguments.cpp. */
#include "trace/ActionParser.hpp"
#include "trace/ActionParserDecimal.hpp"
#include "trace/TraceError.hpp"

#include <sstream>

namespace progsim::trace {

std::vector<std::string_view> split_words(std::string_view line)
{
  std::vector<std::string_view> words;
  split_words(line, words);
  return words;
}

namespace {
/** std::isspace in the "C" locale, inline: a call per character was a tenth of a replay's parsing. */
constexpr bool is_space(char c)
{
  return static_cast<unsigned char>(c) <= ' ' && (c == ' ' || (c >= '\t' && c <= '\r')); // most are above ' '
}
} // namespace

void split_words(std::string_view line, std::vector<std::string_view>& words)
{
  words.clear();
  const char* at        = line.data();
  const char* const end = at + line.size();
  while (true) {
    while (at != end && is_space(*at))
      ++at;
    if (at == end)
      return;
    const char* start = at;
    while (at != end && not is_space(*at))
      ++at;
    words.emplace_back(start, static_cast<size_t>(at - start));
  }
}

bool parse_line(std::string_view line, const std::string& file, uint32_t number, int rank, int world_size,
                int& default_type_size, CountPool& counts, Action& out)
{
  if (is_blank_or_comment(line))
    return false;
  thread_local std::vector<std::string_view> words; // one line at a time: no allocation per line
  split_words(line, words);
  ActionType type;
  // No action's name is "i" and a collective's: a name that is not an action may be a non-blocking collective's.
  const bool known       = words.size() >= 2 && action_from_name(words[1], type);
  const bool nonblocking = not known && words.size() >= 2 && nonblocking_collective_from_name(words[1], type);
  if (not known && not nonblocking) {
    std::ostringstream msg;
    msg << file << ":" << number << ": ";
    if (words.size() < 2)
      msg << "a line needs '<rank> <action> [arguments]'";
    else
      msg << "unknown action '" << words[1] << "' (SimGrid 3.32's replay knows: init finalize comm_size comm_split "
          << "comm_dup send isend recv irecv test sendRecv wait waitall barrier bcast reduce allreduce alltoall "
          << "alltoallv gather scatter gatherv scatterv allgather allgatherv reducescatter scan exscan compute sleep "
          << "location, and the non-blocking collectives that SMPI's tracer writes: ibarrier ibcast ireduce "
          << "iallreduce ialltoall ialltoallv igather igatherv iscatter iscatterv iallgather iallgatherv "
          << "ireducescatter iscan iexscan)";
    msg << " in '" << line << "'";
    throw TraceError(msg.str());
  }
  int32_t line_rank = -1;
  if (not read_decimal(words[0], line_rank) || line_rank != rank)
    throw TraceError(file + ":" + std::to_string(number) + ": line starts with '" + std::string(words[0]) +
                     "' but this trace belongs to rank " + std::to_string(rank) + " in '" + std::string(line) + "'");
  out             = parse_action(file, number, words, type, world_size, default_type_size, counts);
  out.nonblocking = nonblocking;
  return type != ActionType::Location; // a source position: no time, nothing to replay
}

bool is_blank_or_comment(std::string_view line)
{
  for (char c : line) {
    if (c == '#')
      return true;
    if (not is_space(c))
      return false;
  }
  return true;
}

} // namespace progsim::trace
