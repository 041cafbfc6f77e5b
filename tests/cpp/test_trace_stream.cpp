/*
 * Unit tests of the streaming trace reader (simulator/trace/LineReader.cpp, TraceSource.cpp): lines across blocks,
 * pauses that drop the buffer, gzip-compressed files, chunks that cut v-collectives apart, a shared file read for
 * all ranks at once, and a bad line deep inside a file found before anything runs. Expected actions come from the
 * whole-trace reader (read_traces) and from the lines the tests write.
 */
#include "TempDir.hpp"
#include "trace/LineReader.hpp"
#include "trace/TraceSet.hpp"
#include "trace/TraceSource.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;
using progsim::trace::Action;
using progsim::trace::ActionType;
using progsim::trace::LineReader;
using progsim::trace::TraceError;
using progsim::trace::TraceSource;

namespace {

using progsim::testing::TempDir;

/** Writes `text` gzip-compressed to `name` in `dir`; returns the file's path. */
std::string write_gzip(const TempDir& dir, const std::string& name, const std::string& text)
{
  std::string file = (dir.path() / name).string();
  gzFile gz        = gzopen(file.c_str(), "wb9");
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  return file;
}

std::vector<std::string> all_lines(LineReader& reader, bool pause_after_each)
{
  std::vector<std::string> lines;
  std::string_view line;
  while (reader.next(line)) {
    lines.emplace_back(line);
    if (pause_after_each)
      reader.pause();
  }
  return lines;
}

/** The lines of `text` as a reader must give them: split at '\n', a last line without newline kept. */
std::vector<std::string> expected_lines(const std::string& text)
{
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

const std::string kAwkwardText = "0 init\n\n# comment\n0 compute 12\r\n  0   send 1 0 8  \n0 finalize"; // no final \n

} // namespace

TEST(LineReader, LinesAcrossTinyBlocksAndPauses)
{
  TempDir dir;
  auto file = dir.write("t.txt", kAwkwardText);
  for (size_t block : {1u, 2u, 7u, 4096u})
    for (bool keep_open : {true, false})
      for (bool pause : {false, true}) {
        LineReader reader(file, block, keep_open);
        EXPECT_EQ(all_lines(reader, pause), expected_lines(kAwkwardText))
            << "block " << block << " keep_open " << keep_open << " pause " << pause;
        EXPECT_EQ(reader.line_number(), 6u);
        std::string_view line;
        EXPECT_FALSE(reader.next(line)); // and stays at the end
      }
}

TEST(LineReader, GzipFileReadsAsItsText)
{
  TempDir dir;
  auto file = write_gzip(dir, "t.txt.gz", kAwkwardText);
  for (size_t block : {3u, 4096u})
    for (bool pause : {false, true}) {
      LineReader reader(file, block, false);
      EXPECT_EQ(all_lines(reader, pause), expected_lines(kAwkwardText)) << "block " << block << " pause " << pause;
    }
}

TEST(LineReader, LineMuchLongerThanABlock)
{
  TempDir dir;
  std::string longline(300000, 'x');
  auto file = dir.write("t.txt", "a\n" + longline + "\nb\n");
  LineReader reader(file, 16, false);
  EXPECT_EQ(all_lines(reader, true), (std::vector<std::string>{"a", longline, "b"}));
}

TEST(LineReader, LinesWrittenAfterTheFileWasOpenedAreReadToo)
{
  // A plain file's reads ask for little more than the size it had when opened: what was appended since still counts.
  TempDir dir;
  auto file = dir.write("t.txt", "0 init\n");
  for (bool keep_open : {true, false}) {
    LineReader reader(file, 1u << 20, keep_open);
    std::string_view line;
    ASSERT_TRUE(reader.next(line));
    EXPECT_EQ(line, "0 init");
    std::string more;
    for (int i = 0; i < 2000; i++) // 36 KB: several of the small reads past the size seen at opening
      more += "0 compute " + std::to_string(1000000 + i) + "\n";
    std::ofstream(file, std::ios::app) << more;
    std::vector<std::string> rest = all_lines(reader, false);
    EXPECT_EQ(rest, expected_lines(more)) << "keep_open " << keep_open;
    dir.write("t.txt", "0 init\n");
  }
}

TEST(LineReader, MissingFileIsATraceError)
{
  LineReader reader("/nonexistent/progsim/t.txt", 64, false);
  std::string_view line;
  try {
    reader.next(line);
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/progsim/t.txt: cannot read the trace file"), std::string::npos)
        << e.what();
  }
}

namespace {

/** Rank r's lines: computes, sends and v-collectives whose counts tell the rank and the iteration apart. */
std::string rank_lines(int rank, int world, int iterations)
{
  std::string text = std::to_string(rank) + " init\n";
  for (int i = 0; i < iterations; i++) {
    text += std::to_string(rank) + " compute " + std::to_string(1000 * rank + i) + "\n";
    text += std::to_string(rank) + " gatherv " + std::to_string(i + 1);
    for (int peer = 0; peer < world; peer++)
      text += " " + std::to_string(100 * i + peer + rank);
    text += " 0 0 0\n";
    text += std::to_string(rank) + " location f.c " + std::to_string(i) + "\n";
  }
  return text + std::to_string(rank) + " finalize\n";
}

/** An action with its vector (if any) spelled out, to compare readers. */
std::string describe(const Action& a, const int64_t* vector, int world)
{
  std::string text = std::string(progsim::trace::action_name(a.type)) + "@" + std::to_string(a.line) + " " +
                     std::to_string(a.bytes) + " " + std::to_string(a.flops);
  if (a.type == ActionType::GatherV)
    for (int i = 0; i < world; i++)
      text += " " + std::to_string(vector[i]);
  return text;
}

std::vector<std::string> streamed(progsim::trace::ActionStream& stream, int world)
{
  std::vector<std::string> out;
  while (const Action* a = stream.next())
    out.push_back(describe(*a, stream.counts().data() + a->vector, world));
  EXPECT_EQ(stream.next(), nullptr); // the end stays the end
  return out;
}

std::vector<std::string> whole(const progsim::trace::TraceSet& set, int rank, int world)
{
  std::vector<std::string> out;
  for (auto const& a : set.ranks[rank].actions)
    out.push_back(describe(a, set.vector_at(a.vector), world));
  return out;
}

} // namespace

TEST(TraceSource, PerRankFilesStreamInChunksAsTheWholeTraceReads)
{
  TempDir dir;
  const int world = 3;
  std::string list;
  for (int r = 0; r < world; r++)
    list += (r == 1 ? write_gzip(dir, "r1.txt.gz", rank_lines(r, world, 50)) // gzip and plain mix
                    : dir.write("r" + std::to_string(r) + ".txt", rank_lines(r, world, 50))) +
            "\n";
  auto path = dir.write("list.txt", list);
  TraceSource source(path);
  EXPECT_EQ(source.rank_count(), world);
  EXPECT_FALSE(source.shared());
  EXPECT_EQ(source.check(), static_cast<uint64_t>(world * (2 + 2 * 50)));
  auto set = progsim::trace::read_traces(path);
  for (size_t chunk : {1u, 3u, 4096u}) {
    auto streams = source.streams(chunk);
    for (int r = world - 1; r >= 0; r--) { // any order of consumption
      auto actions = streamed(*streams[r], world);
      EXPECT_EQ(actions.size(), 102u);
      EXPECT_EQ(actions, whole(set, r, world)) << "rank " << r << " chunk " << chunk;
    }
  }
  // The whole-trace reader itself against the lines written: rank 2's 3rd gatherv, at line 2 + 3*2 + 1, counts
  // 3 and 202 203 204 of datatype 0 (SMPI's id of MPI_DOUBLE, 8 B).
  EXPECT_EQ(whole(set, 2, world)[6], "gatherv@9 24 0.000000 1616 1624 1632");
}

TEST(TraceSource, SharedFileInterleavedServesEveryRankInFileOrder)
{
  TempDir dir;
  const int world = 4;
  // Interleave the ranks' lines the way a trace written in time order does: round robin, blocks of varying size.
  std::vector<std::vector<std::string>> per_rank;
  for (int r = 0; r < world; r++) {
    per_rank.push_back(expected_lines(rank_lines(r, world, 40)));
  }
  std::string text;
  std::vector<size_t> next(world, 0);
  for (bool more = true; more;) {
    more = false;
    for (int r = 0; r < world; r++)
      for (int k = 0; k < r + 1 && next[r] < per_rank[r].size(); k++) {
        text += per_rank[r][next[r]++] + "\n";
        more = true;
      }
  }
  auto path = dir.write("shared.txt", text);
  TraceSource source(path);
  EXPECT_TRUE(source.shared());
  EXPECT_EQ(source.rank_count(), world);
  auto set     = progsim::trace::read_traces(path);
  auto streams = source.streams();
  // Rank 0 first to its end, then the others: what rank 0 passes over waits for them.
  for (int r : {0, 3, 1, 2})
    EXPECT_EQ(streamed(*streams[r], world), whole(set, r, world)) << "rank " << r;
  // And round robin, one action at a time, in a fresh set of streams.
  auto again = source.streams();
  std::vector<std::vector<std::string>> got(world);
  for (bool more = true; more;) {
    more = false;
    for (int r = 0; r < world; r++)
      if (const Action* a = again[r]->next()) {
        got[r].push_back(describe(*a, again[r]->counts().data() + a->vector, world));
        more = true;
      }
  }
  for (int r = 0; r < world; r++)
    EXPECT_EQ(got[r], whole(set, r, world)) << "rank " << r;
}

TEST(TraceSource, TheCheckFindsABadLineDeepInside)
{
  TempDir dir;
  std::string text = rank_lines(1, 2, 20000);
  const size_t lines_before = 1 + 3 * 15000;
  size_t at = 0;
  for (size_t i = 0; i < lines_before; i++)
    at = text.find('\n', at) + 1;
  text.insert(at, "1 send 0 oops 8\n");
  auto r0   = dir.write("r0.txt", rank_lines(0, 2, 1));
  auto r1   = write_gzip(dir, "r1.txt.gz", text);
  auto list = dir.write("list.txt", r0 + "\n" + r1 + "\n");
  TraceSource source(list); // finds the files only
  try {
    source.check();
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find(r1 + ":" + std::to_string(lines_before + 1) + ": "), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("oops"), std::string::npos) << e.what();
  }
}

TEST(TraceSource, GzipSharedFileAndListOfOne)
{
  TempDir dir;
  auto shared = write_gzip(dir, "all.txt.gz", rank_lines(0, 2, 3) + rank_lines(1, 2, 3));
  auto list   = dir.write("list.txt", shared + "\n");
  for (auto const& path : {shared, list}) {
    TraceSource source(path);
    EXPECT_TRUE(source.shared());
    EXPECT_EQ(source.rank_count(), 2);
    EXPECT_EQ(source.file(1), shared);
    EXPECT_EQ(source.check(), 2u * (2 + 2 * 3));
  }
}
