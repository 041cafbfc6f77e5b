/* Unit tests of the inputs' check beside the run (simulator/InputCheck.cpp): the first bad line in file order, the
 * inputs' checksums. */
#include "InputCheck.hpp"
#include "TempDir.hpp"

#include <gtest/gtest.h>

#include <string>

using progsim::InputCheck;
using progsim::testing::TempDir;
using progsim::trace::TraceSource;

namespace {

std::string lines(int rank, int count)
{
  std::string text = std::to_string(rank) + " init\n";
  for (int i = 0; i < count; i++)
    text += std::to_string(rank) + " compute 1000\n";
  return text + std::to_string(rank) + " finalize\n";
}

} // namespace

TEST(InputCheck, GoodInputsGiveTheirChecksums)
{
  TempDir dir;
  auto r0   = dir.write("r0.txt", lines(0, 3));
  auto r1   = dir.write("r1.txt", lines(1, 3));
  auto list = dir.write("list.txt", r0 + "\n" + r1 + "\n");
  auto abc  = dir.write("abc.txt", "abc");
  InputCheck check(TraceSource(list), {{"platform", abc}, {"rank trace", r1}});
  EXPECT_EQ(check.verdict(), "");
  EXPECT_FALSE(check.failed());
  ASSERT_EQ(check.hashed().size(), 2u);
  EXPECT_EQ(check.hashed()[0].role, "platform");
  EXPECT_EQ(check.hashed()[0].path, abc);
  // FIPS 180-2's first example: SHA-1("abc").
  EXPECT_EQ(check.hashed()[0].sha1, "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(check.hashed()[1].sha1.size(), 40u);
}

TEST(InputCheck, TheFirstBadLineInFileOrderIsTheVerdict)
{
  TempDir dir;
  // Rank 1's bad line comes early in its file, rank 0's late in its own: rank 0's file comes first.
  std::string zero = lines(0, 5000);
  zero.insert(zero.rfind("0 finalize"), "0 compute many\n");
  auto r0   = dir.write("r0.txt", zero);
  auto r1   = dir.write("r1.txt", "1 init\n1 send 0 oops 8\n1 finalize\n");
  auto list = dir.write("list.txt", r0 + "\n" + r1 + "\n");
  InputCheck check(TraceSource(list), {{"trace", list}});
  const std::string verdict = check.verdict();
  EXPECT_NE(verdict.find(r0 + ":5002: "), std::string::npos) << verdict;
  EXPECT_NE(verdict.find("many"), std::string::npos) << verdict;
  EXPECT_TRUE(check.failed());
}

TEST(InputCheck, AnUnreadableInputIsTheVerdict)
{
  TempDir dir;
  auto list = dir.write("list.txt", dir.write("r0.txt", lines(0, 1)) + "\n");
  const std::string missing = (dir.path() / "gone.xml").string();
  InputCheck check(TraceSource(list), {{"platform", missing}});
  EXPECT_EQ(check.verdict(), missing + ": cannot be read");
}
