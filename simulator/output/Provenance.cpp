#include "output/Provenance.hpp"

#include <openssl/evp.h>

#include <array>
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
  // OpenSSL's digest, which uses the CPU's SHA instructions where it has them: Boost's hashes byte by byte, and took
  // a tenth of a 256-rank `ideal` replay.
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> hash(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (not hash || EVP_DigestInit_ex(hash.get(), EVP_sha1(), nullptr) != 1)
    throw std::runtime_error("OpenSSL cannot compute SHA-1");
  std::array<char, 65536> buffer; // not a zeroed vector: rank files are small, and there may be 65 536 of them
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    if (EVP_DigestUpdate(hash.get(), buffer.data(), static_cast<size_t>(in.gcount())) != 1)
      throw std::runtime_error(path + ": OpenSSL failed to hash it");
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest;
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(hash.get(), digest.data(), &length) != 1)
    throw std::runtime_error(path + ": OpenSSL failed to hash it");
  std::string hex;
  char byte[3];
  for (unsigned int i = 0; i < length; i++) {
    std::snprintf(byte, sizeof byte, "%02x", static_cast<unsigned>(digest[i]));
    hex += byte;
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
