#include "output/TimelineWriter.hpp"

#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace progsim::output {

TimelineWriter::TimelineWriter(const std::string& path, mpi::World& world)
    : path_(path), file_(path + ".partial", std::ios::binary | std::ios::trunc), world_(world)
{
  if (not file_)
    throw std::runtime_error("cannot write the timeline to '" + path + "'");
  world.on_rank_event.connect([this](const mpi::RankEvent& event) { write(event); });
  world.on_step.connect([this](const mpi::StepEvent& event) { write(event); });
}

namespace {
std::string seconds(double value)
{
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}
} // namespace

void TimelineWriter::write(const mpi::StepEvent& event)
{
  file_ << "{\"t\": " << seconds(event.time) << ", \"rank\": " << event.rank << ", \"step\": \""
        << mpi::step_name(event.step) << "\", \"by\": \"" << event.executor << "\", \"end\": " << seconds(event.end)
        << ", \"agent\": \"" << event.actor << "\", \"node\": " << world_.node_of(event.rank)
        << ", \"cpu\": " << seconds(event.cpu_seconds) << ", \"copied\": " << event.copied_bytes;
  if (event.message.id != 0)
    file_ << ", \"msg\": " << event.message.id << ", \"peer\": " << event.message.peer
          << ", \"bytes\": " << event.message.bytes;
  if (event.origin_time >= 0)
    file_ << ", \"from_t\": " << seconds(event.origin_time) << ", \"from_agent\": \"" << event.origin_actor << "\"";
  file_ << "}\n";
}

void TimelineWriter::write(const mpi::RankEvent& event)
{
  file_ << "{\"t\": " << seconds(event.time) << ", \"rank\": " << event.rank << ", \"state\": \""
        << mpi::activity_name(event.activity) << "\"";
  if (event.action != nullptr)
    file_ << ", \"action\": \"" << trace::action_name(event.action->type) << "\", \"line\": " << event.action->line;
  if (static_cast<size_t>(event.rank) >= seen_.size())
    seen_.resize(event.rank + 1, false);
  if (not seen_[event.rank]) { // a rank's first line says where it runs
    seen_[event.rank] = true;
    file_ << ", \"node\": " << world_.node_of(event.rank);
  }
  file_ << "}\n";
}

void TimelineWriter::finish()
{
  file_.close();
  std::filesystem::rename(path_ + ".partial", path_);
}

} // namespace progsim::output
