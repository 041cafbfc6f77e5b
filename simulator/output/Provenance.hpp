/* Where a result comes from: the progsim build, the command line, and a checksum of every input file. */
#pragma once

#include <string>
#include <vector>

namespace progsim::output {

struct InputFile {
  std::string role; // platform, hostfile, trace list, rank trace
  std::string path;
  std::string sha1;
};

struct Provenance {
  std::string version;                // progsim's
  std::string commit;                 // of the source tree the engine was configured from
  std::vector<std::string> command;   // the engine's command line, but for the output paths
  std::vector<InputFile> inputs;
  std::string simgrid_build;          // which SimGrid the engine was built on (CMakeLists.txt)
};

/** The SHA-1 of a file's bytes, in hexadecimal; throws std::runtime_error if it cannot be read. */
std::string sha1_of_file(const std::string& path);

/** The build's version and commit and `argv`; the inputs come from hash_inputs(). */
Provenance make_provenance(int argc, char** argv);

/** Each input (role, path) with its checksum; throws std::runtime_error if one cannot be read. */
std::vector<InputFile> hash_inputs(const std::vector<std::pair<std::string, std::string>>& inputs);

} // namespace progsim::output
