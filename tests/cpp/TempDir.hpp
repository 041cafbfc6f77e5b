/* A fresh folder for one test, removed at its end: the C++ tests that read and write files share it. */
#pragma once

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace progsim::testing {

/** A fresh folder under the system's temporary folder, removed at the end of the test. */
class TempDir {
public:
  TempDir()
  {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("progsim-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir()
  {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&)            = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /** Writes `text` as it is (no newline conversion) to `name` in the folder; returns the file's path. */
  std::string write(const std::string& name, const std::string& text) const
  {
    std::filesystem::path file = path_ / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary);
    out << text;
    return file.string();
  }

private:
  std::filesystem::path path_;
};

} // namespace progsim::testing
