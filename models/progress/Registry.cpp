/* The table of progress mechanisms: adding one means adding its file and one line here. */
#include "mpi/ProgressModel.hpp"

#include <functional>
#include <stdexcept>
#include <utility>

namespace progsim::models::progress {

std::unique_ptr<ProgressModel> make_none(const Parameters&);
std::unique_ptr<ProgressModel> make_thread(const Parameters&);
std::unique_ptr<ProgressModel> make_dedicated_core(const Parameters&);
std::unique_ptr<ProgressModel> make_offload(const Parameters&);
std::unique_ptr<ProgressModel> make_ideal(const Parameters&);

namespace {
using Factory = std::unique_ptr<ProgressModel> (*)(const Parameters&);
const std::vector<std::pair<std::string, Factory>>& factories()
{
  static const std::vector<std::pair<std::string, Factory>> table = {
      {"none", make_none},       {"thread", make_thread}, {"dedicated-core", make_dedicated_core},
      {"offload", make_offload}, {"ideal", make_ideal},
  };
  return table;
}
} // namespace

std::unique_ptr<ProgressModel> make_progress_model(const Parameters& parameters)
{
  for (auto const& [name, factory] : factories())
    if (name == parameters.progress)
      return factory(parameters);
  std::string known;
  for (auto const& name : progress_model_names())
    known += (known.empty() ? "" : ", ") + name;
  throw std::invalid_argument("unknown progress mechanism '" + parameters.progress + "' (expected one of: " + known +
                              ")");
}

std::vector<std::string> progress_model_names()
{
  std::vector<std::string> names;
  for (auto const& entry : factories())
    names.push_back(entry.first);
  return names;
}

} // namespace progsim::models::progress
