#include "output/ResultWriter.hpp"

#include <simgrid/version.h>
#include <xbt/config.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace progsim::output {

namespace {

std::string quoted(const std::string& text)
{
  std::ostringstream out;
  out << '"';
  for (char c : text) {
    switch (c) {
      case '"':
        out << "\\\"";
        break;
      case '\\':
        out << "\\\\";
        break;
      case '\n':
        out << "\\n";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(c) << std::dec;
        else
          out << c;
    }
  }
  out << '"';
  return out.str();
}

std::string number(double value)
{
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

} // namespace

double simulated_time(const mpi::World& world)
{
  double end = 0;
  for (int rank = 0; rank < world.size(); rank++)
    end = std::max(end, world.record(rank).end_time);
  return end;
}

void write_results(const std::string& path, const mpi::World& world, const RunDescription& run,
                   const Provenance& provenance)
{
  std::ostringstream out;
  auto const& progress = world.progress();
  out << "{\n";
  out << "  \"format\": \"progsim-results/2\",\n";
  out << "  \"progsim\": {\"version\": " << quoted(provenance.version) << ", \"commit\": " << quoted(provenance.commit)
      << "},\n";
  out << "  \"command\": [";
  for (size_t i = 0; i < provenance.command.size(); i++)
    out << (i ? ", " : "") << quoted(provenance.command[i]);
  out << "],\n";
  out << "  \"inputs\": [\n";
  for (size_t i = 0; i < provenance.inputs.size(); i++) {
    auto const& input = provenance.inputs[i];
    out << "    {\"role\": " << quoted(input.role) << ", \"path\": " << quoted(input.path) << ", \"sha1\": "
        << quoted(input.sha1) << "}" << (i + 1 < provenance.inputs.size() ? "," : "") << "\n";
  }
  out << "  ],\n";
  out << "  \"trace\": " << quoted(run.trace) << ",\n";
  out << "  \"platform\": " << quoted(run.platform) << ",\n";
  if (not world.parameters().platform_source.empty())
    out << "  \"platform_source\": " << quoted(world.parameters().platform_source) << ",\n";
  out << "  \"hostfile\": " << quoted(run.hostfile) << ",\n";
  out << "  \"progress\": " << quoted(std::string(progress.name())) << ",\n";
  out << "  \"ranks_count\": " << world.size() << ",\n";
  out << "  \"simulated_time\": " << number(simulated_time(world)) << ",\n";
  out << "  \"ranks\": [\n";
  for (int rank = 0; rank < world.size(); rank++) {
    auto const& record  = world.record(rank);
    auto const& endpoint = world.endpoint(rank);
    double progress_cpu = endpoint.step_seconds() + progress.background_cpu_seconds(endpoint, record.end_time);
    out << "    {\"rank\": " << rank << ", \"host\": " << quoted(world.host_of(rank)->get_name())
        << ", \"end_time\": " << number(record.end_time) << ", \"compute_time\": " << number(record.compute_seconds)
        << ", \"mpi_time\": " << number(record.mpi_seconds) << ", \"wait_time\": " << number(record.blocked_seconds)
        << ", \"progress_cpu_time\": " << number(progress_cpu)
        << ", \"copy_cpu_time\": " << number(endpoint.copy_seconds()) << ", \"bytes_sent\": " << endpoint.bytes_sent()
        << ", \"actions\": " << record.actions_done << "}" << (rank + 1 < world.size() ? "," : "") << "\n";
  }
  out << "  ],\n";
  out << "  \"parameters\": [\n";
  auto parameters = Parameters::describe();
  for (size_t i = 0; i < parameters.size(); i++) {
    auto const& p = parameters[i];
    std::string value = p.kind == ParameterInfo::Kind::Number   ? p.value
                        : p.kind == ParameterInfo::Kind::Switch ? (p.value == "yes" ? "true" : "false")
                                                                : quoted(p.value);
    out << "    {\"name\": " << quoted(p.name) << ", \"value\": " << value << ", \"unit\": "
        << quoted(p.unit) << ", \"description\": " << quoted(p.description) << "}"
        << (i + 1 < parameters.size() ? "," : "") << "\n";
  }
  out << "  ],\n";
  out << "  \"simgrid\": {\"version\": " << quoted(std::to_string(SIMGRID_VERSION_MAJOR) + "." +
                                                    std::to_string(SIMGRID_VERSION_MINOR))
      << ", \"build\": " << quoted(provenance.simgrid_build)
      << ", \"network/model\": " << quoted(simgrid::config::get_value<std::string>("network/model"))
      << ", \"surf/precision\": " << number(simgrid::config::get_value<double>("surf/precision")) << "}\n";
  out << "}\n";

  std::string temporary = path + ".partial";
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (not file)
      throw std::runtime_error("cannot write results to '" + path + "'");
    file << out.str();
  }
  std::filesystem::rename(temporary, path);
}

std::string summary(const mpi::World& world)
{
  double compute = 0, mpi = 0, blocked = 0;
  int64_t bytes  = 0;
  for (int rank = 0; rank < world.size(); rank++) {
    auto const& record = world.record(rank);
    compute += record.compute_seconds;
    mpi += record.mpi_seconds;
    blocked += record.blocked_seconds;
    bytes += world.endpoint(rank).bytes_sent();
  }
  std::ostringstream out;
  double n = world.size();
  out << std::setprecision(6);
  out << "progsim: " << world.size() << " ranks, progress '" << world.progress().name()
      << "'\n";
  out << "  simulated time      " << simulated_time(world) << " s\n";
  out << "  mean compute time   " << compute / n << " s per rank\n";
  out << "  mean MPI time       " << mpi / n << " s per rank (blocked " << blocked / n << " s)\n";
  out << "  bytes sent          " << bytes << "\n";
  return out.str();
}

} // namespace progsim::output
