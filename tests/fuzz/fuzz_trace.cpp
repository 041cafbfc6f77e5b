/*
 * libFuzzer harness of the trace reader (simulator/trace). Each input is read three ways:
 *  1. every line alone through the argument parser (split_words, action_from_name, parse_action), for worlds of
 *     1, 4 and 16 ranks, whatever rank it starts with;
 *  2. its first section (up to a line "#--") as a file given to read_traces: a shared trace when its first line
 *     is an action, else a list file, whose entries may name the per-rank files of 3;
 *  3. each later section as one rank's file p0.txt, p1.txt, ... and a list file naming them, read by read_traces.
 * A bad input must end in a TraceError whose message starts with the file it names. Anything else (another
 * exception, a crash, a sanitizer report, a hang) is a bug, and so is a parsed action that breaks what the engine
 * relies on: sizes in bytes >= 0 (-1 for a receive that probes its size), finite flops >= 0, peers and roots
 * inside the world, vectors inside the pool.
 * The harness works in a folder of its own, which it makes the current folder: give libFuzzer absolute paths.
 * '/' is replaced by '_' in what the files hold, and an input whose list names a file of a folder above the
 * harness's is not read as files, so that only the input's own files are ever read.
 */
#include "trace/ActionParser.hpp"
#include "trace/TraceSet.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;
using namespace progsim::trace;

namespace {

constexpr int32_t kAnySource = -555;

[[noreturn]] void bug(const std::string& what, std::string_view input)
{
  std::fprintf(stderr, "fuzz_trace: %s\n  input: '%.*s'\n", what.c_str(), static_cast<int>(input.size()),
               input.data());
  std::abort();
}

/** The folder every input's files go to; also the current folder, where list entries are looked up first. */
const fs::path& folder()
{
  static const fs::path dir = [] {
    // In memory when the system has a tmpfs at /dev/shm: creating and removing files on a disk costs far more than
    // parsing them.
    std::error_code ignored;
    fs::path base = fs::is_directory("/dev/shm", ignored) && ::access("/dev/shm", W_OK) == 0
                        ? fs::path("/dev/shm")
                        : fs::temp_directory_path();
    fs::path d = base / ("progsim-fuzz-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    fs::current_path(d);
    static fs::path remove_at_exit = d;
    std::atexit([] {
      std::error_code ignored;
      fs::current_path(remove_at_exit.parent_path(), ignored);
      fs::remove_all(remove_at_exit, ignored);
    });
    return d;
  }();
  return dir;
}

void write(const fs::path& path, std::string_view text)
{
  std::ofstream out(path, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (not out)
    bug("cannot write " + path.string(), text);
}

std::vector<std::string_view> split_lines(std::string_view text)
{
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

/** What the engine relies on in every action read without error. */
void check_action(const Action& a, int world, const TraceSet& set, std::string_view input)
{
  auto peer_ok = [&](int32_t p, bool any) { return (p >= 0 && p < world) || (any && p == kAnySource); };
  // -1: a receive of any size, a computation that gives no byte count (Action::bytes).
  const bool may_be_unset = a.type == ActionType::Recv || a.type == ActionType::Irecv || a.type == ActionType::Compute;
  if (a.bytes < (may_be_unset ? -1 : 0) || a.bytes2 < 0)
    bug("negative byte count in a parsed action (line " + std::to_string(a.line) + ")", input);
  if (not std::isfinite(a.flops) || a.flops < 0)
    bug("flops not finite or negative in a parsed action (line " + std::to_string(a.line) + ")", input);
  if (not peer_ok(a.peer, true) || not peer_ok(a.peer2, true) || not peer_ok(a.root, false))
    bug("peer or root outside the world in a parsed action (line " + std::to_string(a.line) + ")", input);
  std::vector<uint32_t> vectors;
  if (a.type == ActionType::GatherV || a.type == ActionType::AllGatherV || a.type == ActionType::ScatterV ||
      a.type == ActionType::ReduceScatter || a.type == ActionType::AllToAllV)
    vectors.push_back(a.vector);
  if (a.type == ActionType::AllToAllV)
    vectors.push_back(a.vector2);
  for (uint32_t offset : vectors) {
    if (static_cast<uint64_t>(offset) + static_cast<uint64_t>(world) > set.pool.size())
      bug("vector outside the pool in a parsed action (line " + std::to_string(a.line) + ")", input);
    for (int i = 0; i < world; i++)
      if (set.vector_at(offset)[i] < 0)
        bug("negative count in a parsed vector (line " + std::to_string(a.line) + ")", input);
  }
}

/** A TraceError must name the file it is about: one of `files`, followed by ':' (a line, or the message). */
void check_error(const TraceError& e, const std::vector<std::string>& files, std::string_view input)
{
  std::string_view message = e.what();
  for (auto const& file : files)
    if (message.size() > file.size() && message.substr(0, file.size()) == file && message[file.size()] == ':')
      return;
  bug(std::string("TraceError that names none of the input files: ") + e.what(), input);
}

/** 1. Every line alone, with the default datatype that the "init" lines before it set. */
void lines_alone(std::string_view text)
{
  static const std::string kFile = "fuzz-line";
  for (int world : {1, 4, 16}) {
    TraceSet set;
    int default_type_size = 1;
    uint32_t number       = 0;
    for (std::string_view line : split_lines(text)) {
      number++;
      if (is_blank_or_comment(line))
        continue;
      auto words = split_words(line);
      ActionType type;
      if (words.size() < 2 || not action_from_name(words[1], type))
        continue;
      try {
        Action a = parse_action(kFile, number, words, type, world, default_type_size, set.pool);
        if (a.line != number)
          bug("action line " + std::to_string(a.line) + " for line " + std::to_string(number), text);
        check_action(a, world, set, text);
      } catch (const TraceError& e) {
        check_error(e, {kFile + ":" + std::to_string(number)}, text);
      }
    }
  }
}

/** 2 and 3: the input's sections as files, read by read_traces. */
void files(std::string_view text)
{
  const fs::path& dir = folder();
  for (auto const& entry : fs::directory_iterator(dir))
    fs::remove_all(entry.path());

  std::string clean(text);
  for (char& c : clean)
    if (c == '/')
      c = '_';
  std::vector<std::string_view> sections;
  std::string_view rest(clean);
  for (;;) {
    size_t cut = rest.find("\n#--\n");
    if (cut == std::string_view::npos) {
      sections.push_back(rest);
      break;
    }
    sections.push_back(rest.substr(0, cut + 1));
    rest = rest.substr(cut + 5);
  }

  // read_traces also looks list entries up in the folders above the list's: an entry naming a file there would read
  // files that are not the input's (and differ from one machine to the next). Such inputs are read line by line only.
  for (std::string_view line : split_lines(sections[0])) {
    auto words = split_words(line);
    if (words.size() != 1 || is_blank_or_comment(line))
      continue;
    std::error_code ignored;
    for (fs::path above = dir.parent_path();; above = above.parent_path()) {
      if (fs::is_regular_file(above / std::string(words[0]), ignored))
        return;
      if (above == above.parent_path())
        break;
    }
  }

  std::vector<std::string> names = {"list.txt", "first.txt", (dir / "list.txt").string(),
                                    (dir / "first.txt").string()};
  std::string list;
  for (size_t i = 1; i < sections.size(); i++) {
    std::string name = "p" + std::to_string(i - 1) + ".txt";
    write(dir / name, sections[i]);
    list += name + "\n";
    names.push_back(name);
    names.push_back((dir / name).string());
  }
  write(dir / "first.txt", sections[0]);
  if (sections.size() > 1)
    write(dir / "list.txt", list);

  for (const char* file : {"first.txt", "list.txt"}) {
    fs::path path = dir / file;
    if (not fs::exists(path))
      continue;
    try {
      TraceSet set = read_traces(path.string());
      const int world = static_cast<int>(set.rank_count());
      for (auto const& rank : set.ranks)
        for (auto const& action : rank.actions)
          check_action(action, world, set, text);
    } catch (const TraceError& e) {
      check_error(e, names, text);
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  std::string_view text(reinterpret_cast<const char*>(data), size);
  // Anything but a TraceError escapes and is reported by libFuzzer as an uncaught exception (a crash).
  lines_alone(text);
  files(text);
  return 0;
}
