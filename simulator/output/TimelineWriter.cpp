#include "output/TimelineWriter.hpp"

#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace progsim::output {

TimelineWriter::TimelineWriter(const std::string& path, mpi::World& world)
    : path_(path), file_(partial_path(path), std::ios::binary | std::ios::trunc), world_(world)
{
  if (not file_)
    throw std::runtime_error("cannot write the timeline to '" + path + "'");
  world.on_rank_event.connect([this](const mpi::RankEvent& event) { write(event); });
  world.on_step.connect([this](const mpi::StepEvent& event) { write(event); });
  world.on_step_end.connect([this](const mpi::StepEnd& end) { write(end); });
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
  Line line{"{\"t\": " + seconds(event.time) + ", \"rank\": " + std::to_string(event.rank) + ", \"step\": \"" +
                std::string(mpi::step_name(event.step)) + "\", \"by\": \"" + std::string(event.executor) + "\"",
            ", \"agent\": \"" + std::string(event.actor) + "\", \"node\": " +
                std::to_string(world_.node_of(event.rank)) + ", \"cpu\": " + seconds(event.cpu_seconds),
            false};
  if (event.message.id != 0)
    line.tail += ", \"msg\": " + std::to_string(event.message.id) + ", \"peer\": " +
                 std::to_string(event.message.peer) + ", \"bytes\": " + std::to_string(event.message.bytes);
  if (event.origin_time >= 0)
    line.tail += ", \"from_t\": " + seconds(event.origin_time) + ", \"from_agent\": \"" +
                 std::string(event.origin_actor) + "\"";
  if (event.arrival_time >= 0)
    line.tail += ", \"arrived\": " + seconds(event.arrival_time);
  line.tail += "}\n";
  open_.emplace(event.serial, written_ + queue_.size());
  queue_.push_back(std::move(line));
}

void TimelineWriter::write(const mpi::StepEnd& end)
{
  auto it = open_.find(end.serial);
  if (it == open_.end())
    return;
  Line& line = queue_[it->second - written_];
  line.head += ", \"end\": " + seconds(end.time) + ", \"copied\": " + std::to_string(end.copied_bytes);
  line.done = true;
  open_.erase(it);
  flush();
}

void TimelineWriter::write(const mpi::RankEvent& event)
{
  std::string text = "{\"t\": " + seconds(event.time) + ", \"rank\": " + std::to_string(event.rank) +
                     ", \"state\": \"" + std::string(mpi::activity_name(event.activity)) + "\"";
  if (event.action != nullptr)
    text += ", \"action\": \"" + std::string(trace::action_name(event.action->type)) +
            "\", \"line\": " + std::to_string(event.action->line);
  if (static_cast<size_t>(event.rank) >= seen_.size())
    seen_.resize(event.rank + 1, false);
  if (not seen_[event.rank]) { // a rank's first line says where it runs
    seen_[event.rank] = true;
    text += ", \"node\": " + std::to_string(world_.node_of(event.rank));
  }
  text += "}\n";
  if (queue_.empty()) {
    file_ << text;
    written_++;
  } else {
    queue_.push_back(Line{std::move(text), "", true});
  }
}

void TimelineWriter::flush()
{
  while (not queue_.empty() && queue_.front().done) {
    file_ << queue_.front().head << queue_.front().tail;
    queue_.pop_front();
    written_++;
  }
}

void TimelineWriter::finish()
{
  for (auto& line : queue_)
    line.done = true;
  flush();
  file_.close();
  std::filesystem::rename(partial_path(path_), path_);
}

} // namespace progsim::output
