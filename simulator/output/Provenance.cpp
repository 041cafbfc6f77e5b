#include "output/Provenance.hpp"

#include <nettle/sha1.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>

#ifndef PROGSIM_VERSION
#define PROGSIM_VERSION "unknown"
#endif
#ifndef PROGSIM_SIMGRID_BUILD
#define PROGSIM_SIMGRID_BUILD "unknown"
#endif
#include "progsim_commit.hpp" // generated at every build (cmake/commit.cmake)

namespace progsim::output {

std::string sha1_of_file(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  if (not in)
    throw std::runtime_error(path + ": cannot be read");
  // Nettle's SHA-1, which uses the CPU's SHA instructions where it has them (Boost's hashes byte by byte, and took a
  // tenth of a 256-rank `ideal` replay), in a library of 0.3 MB: OpenSSL's libcrypto, as fast, kept 3.5 MB resident.
  sha1_ctx hash;
  sha1_init(&hash);
  std::array<char, 65536> buffer; // not a zeroed vector: rank files are small, and there may be 65 536 of them
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    sha1_update(&hash, static_cast<size_t>(in.gcount()), reinterpret_cast<const uint8_t*>(buffer.data()));
  }
  if (in.bad())
    throw std::runtime_error(path + ": cannot be read");
  std::array<uint8_t, SHA1_DIGEST_SIZE> digest;
  sha1_digest(&hash, digest.size(), digest.data());
  std::string hex;
  char byte[3];
  for (uint8_t value : digest) {
    std::snprintf(byte, sizeof byte, "%02x", static_cast<unsigned>(value));
    hex += byte;
  }
  return hex;
}

Provenance make_provenance(int argc, char** argv)
{
  Provenance provenance{PROGSIM_VERSION, PROGSIM_COMMIT, {}, {}, PROGSIM_SIMGRID_BUILD};
  // The outputs' own paths are left out: the same inputs give the same bytes wherever the results go.
  for (int i = 0; i < argc; i++) {
    std::string arg = argv[i];
    if (arg.rfind("--cfg=progsim/out:", 0) != 0 && arg.rfind("--cfg=progsim/timeline:", 0) != 0)
      provenance.command.push_back(arg);
  }
  return provenance;
}

std::vector<InputFile> hash_inputs(const std::vector<std::pair<std::string, std::string>>& inputs)
{
  std::vector<InputFile> hashed;
  for (auto const& [role, path] : inputs)
    hashed.push_back({role, path, sha1_of_file(path)});
  return hashed;
}

} // namespace progsim::output
