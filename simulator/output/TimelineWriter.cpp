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

void TimelineWriter::write(const mpi::StepEvent& event)
{
  char time[64];
  std::snprintf(time, sizeof time, "%.17g", event.time);
  file_ << "{\"t\": " << time << ", \"rank\": " << event.rank << ", \"step\": \"" << mpi::step_name(event.step)
        << "\", \"by\": \"" << event.executor << "\"}\n";
}

void TimelineWriter::write(const mpi::RankEvent& event)
{
  char time[64];
  std::snprintf(time, sizeof time, "%.17g", event.time);
  file_ << "{\"t\": " << time << ", \"rank\": " << event.rank << ", \"state\": \""
        << mpi::activity_name(event.activity) << "\"";
  if (event.action != nullptr)
    file_ << ", \"action\": \"" << trace::action_name(event.action->type) << "\", \"line\": " << event.action->line;
  file_ << "}\n";
}

void TimelineWriter::finish()
{
  file_.close();
  std::filesystem::rename(path_ + ".partial", path_);
}

} // namespace progsim::output
