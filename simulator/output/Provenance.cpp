#include "output/Provenance.hpp"

#include <boost/uuid/detail/sha1.hpp>

#include <array>
#include <cstdio>
#include <fstream>
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
  boost::uuids::detail::sha1 hash;
  std::array<char, 8192> buffer; // not a zeroed vector: rank files are small, and there may be 65 536 of them
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    hash.process_bytes(buffer.data(), static_cast<size_t>(in.gcount()));
  }
  boost::uuids::detail::sha1::digest_type digest;
  hash.get_digest(digest);
  std::string hex;
  char byte[3];
  for (auto word : digest) { // five 32-bit words, most significant byte first
    for (int shift = 24; shift >= 0; shift -= 8) {
      std::snprintf(byte, sizeof byte, "%02x", static_cast<unsigned>((word >> shift) & 0xffU));
      hex += byte;
    }
  }
  return hex;
}

Provenance make_provenance(int argc, char** argv, const std::vector<std::pair<std::string, std::string>>& inputs)
{
  Provenance provenance{PROGSIM_VERSION, PROGSIM_COMMIT, {}, {}, PROGSIM_SIMGRID_BUILD};
  // The outputs' own paths are left out: the same inputs give the same bytes wherever the results go.
  for (int i = 0; i < argc; i++) {
    std::string arg = argv[i];
    if (arg.rfind("--cfg=progsim/out:", 0) != 0 && arg.rfind("--cfg=progsim/timeline:", 0) != 0)
      provenance.command.push_back(arg);
  }
  for (auto const& [role, path] : inputs)
    provenance.inputs.push_back({role, path, sha1_of_file(path)});
  return provenance;
}

} // namespace progsim::output
