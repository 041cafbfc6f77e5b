#include "InputCheck.hpp"

#include <cerrno>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <sstream>

#include <csignal>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace progsim {

namespace {

/** Writes all of `text` to `fd` (a pipe the parent reads only at its verdict). */
void write_all(int fd, const std::string& text)
{
  size_t done = 0;
  while (done < text.size()) {
    ssize_t wrote = ::write(fd, text.data() + done, text.size() - done);
    if (wrote <= 0)
      return; // the parent is gone
    done += static_cast<size_t>(wrote);
  }
}

/** Everything the child wrote, to its end. */
std::string read_all(int fd)
{
  std::string text;
  char buffer[65536];
  for (ssize_t got; (got = ::read(fd, buffer, sizeof buffer)) != 0;)
    if (got > 0)
      text.append(buffer, static_cast<size_t>(got));
    else if (errno != EINTR)
      break;
  return text;
}

} // namespace

InputCheck::InputCheck(const trace::TraceSource& traces, Inputs inputs) : inputs_(std::move(inputs))
{
  void* page = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page != MAP_FAILED)
    shared_ = new (page) Shared;
  int ends[2];
  if (shared_ != &own_ && pipe(ends) == 0) {
    std::cout.flush(); // nothing buffered may be written twice
    std::fflush(nullptr);
    child_ = fork();
    if (child_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL); // a run killed takes its check along
      ::close(ends[0]);
      std::string answer;
      char verdict = 'G';
      try {
        answer = run(traces, inputs_);
      } catch (const std::exception& error) {
        shared_->failed.store(true, std::memory_order_relaxed);
        answer  = error.what();
        verdict = 'B';
      }
      write_all(ends[1], verdict + answer);
      _exit(0); // none of the parent's exit handlers: its SimGrid is not ours to finish
    }
    ::close(ends[1]);
    if (child_ > 0) {
      answer_fd_ = ends[0];
      return;
    }
    ::close(ends[0]);
  }
  // No child: the check in this process, before anything runs.
  try {
    conclude(true, run(traces, inputs_));
  } catch (const std::exception& error) {
    shared_->failed.store(true, std::memory_order_relaxed);
    conclude(false, error.what());
  }
}

InputCheck::~InputCheck()
{
  if (child_ > 0 && not concluded_) {
    kill(child_, SIGKILL);
    waitpid(child_, nullptr, 0);
  }
  if (answer_fd_ >= 0)
    ::close(answer_fd_);
  if (shared_ != &own_)
    munmap(shared_, sizeof(Shared));
}

std::string InputCheck::run(const trace::TraceSource& traces, const Inputs& inputs)
{
  traces.check();
  std::string sums;
  for (auto const& input : output::hash_inputs(inputs))
    sums += input.sha1 + "\n";
  return sums;
}

void InputCheck::conclude(bool good, const std::string& answer)
{
  concluded_ = true;
  if (not good) {
    error_ = answer;
    return;
  }
  std::istringstream sums(answer);
  std::string sum;
  for (auto const& [role, path] : inputs_)
    if (std::getline(sums, sum))
      hashed_.push_back({role, path, sum});
}

const std::string& InputCheck::verdict()
{
  if (not concluded_ && child_ > 0) {
    std::string answer = read_all(answer_fd_);
    int status         = 0;
    waitpid(child_, &status, 0);
    if (answer.empty() || not WIFEXITED(status))
      conclude(false, "the inputs' check ended without a verdict (process status " + std::to_string(status) + ")");
    else
      conclude(answer.front() == 'G', answer.substr(1));
  }
  return error_;
}

} // namespace progsim
