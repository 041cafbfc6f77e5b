/* The rank's waits and tests: it runs its own ready steps, then, while its request is pending, sleeps (polling its
 * core, where the mechanism says it polls) until a step is ready; or the kernel runs all of it (WaitInKernel). */
#include "mpi/Endpoint.hpp"
#include "mpi/WaitInKernel.hpp"
#include "mpi/World.hpp"

namespace progsim::mpi {

void Endpoint::finish()
{
  world_.set_polling(*this, false);
}

void Endpoint::start_polling()
{
  if (world_.set_polling(*this, true))
    take_poll_load();
}

void Endpoint::stop_polling()
{
  drop_poll_load();
  world_.set_polling(*this, false);
}

void Endpoint::pause_polling(bool paused)
{
  if (paused)
    drop_poll_load();
  else if (not poll_load_)
    take_poll_load();
}

void Endpoint::take_poll_load()
{
  // A polling rank keeps its core busy: a load of one core, at the priority of any execution.
  poll_load_ = world_.cores_of(host_).start_load(host_->get_speed(), 1);
}

void Endpoint::drop_poll_load()
{
  if (poll_load_)
    world_.cores_of(host_).stop_load(*poll_load_);
  poll_load_.reset();
}

void Endpoint::notify_rank()
{
  if (rank_waiting_)
    wakeup_.ring();
}

void Endpoint::rank_expects(double date)
{
  if (rank_waiting_)
    wakeup_.wake_by(date);
}

bool Endpoint::waits_in_kernel()
{
  // Where the rank's CPU work is a pause (a core nobody shares, a clock running ahead) its steps cost no park.
  if (shares_cores_ < 0) // the host's sharing is known once the run started: looked up once (a cold read at scale)
    shares_cores_ = world_.parameters().steps_in_kernel && not world_.never_shared(host_) ? 1 : 0;
  return shares_cores_ == 1 && not runs_ahead_ && collectives_.empty();
}

void Endpoint::call_and_wait(const RequestPtr& request, double call_seconds, std::function<void()> blocked)
{
  if (not wait_in_kernel_)
    wait_in_kernel_ = std::make_unique<WaitInKernel>(*this);
  if (wait_in_kernel_->run(request, call_seconds, std::move(blocked)))
    return;
  do // a step the rank must run itself is ready
    progress(own_runner_);
  while (not wait_in_kernel_->run(request));
}

void Endpoint::wait(const RequestPtr& request)
{
  if (waits_in_kernel()) {
    call_and_wait(request, 0, nullptr);
    return;
  }
  progress(own_runner_);
  while (not request->complete()) {
    double next = next_ready(own_runner_);
    if (next > clock()) {
      if (clock_.ahead()) { // a round posted by advance_collectives: its CPU work passes, then the rank looks again
        catch_up();
        progress(own_runner_);
        continue;
      }
      // From here to the wait nothing yields: work made ready later finds the rank waiting and rings.
      rank_waiting_ = true;
      start_polling();
      wakeup_.wait_until(next);
      rank_waiting_ = false;
      stop_polling();
    }
    progress(own_runner_);
  }
}

bool Endpoint::test(const RequestPtr& request)
{
  auto& mechanism = world_.progress();
  mechanism.test_entered(*this);
  progress(own_runner_);
  bool done = request->complete();
  CollectiveRequest* collective = request->collective;
  if (collective != nullptr && collective->handle() == request) {
    // As SMPI's MPI_Test of a non-blocking collective (smpi_request.cpp, Request::test and testall): it tests each
    // of the collective's requests, each test a call of its own (with its own cost), and succeeds once all are.
    done = true;
    std::vector<RequestPtr> parts = collective->round_requests(); // progress may start the next round
    for (auto const& part : parts) {
      mechanism.test_entered(*this);
      progress(own_runner_);
      if (collective->found_complete(part))
        continue;
      bool part_done = part->complete();
      if (part_done)
        collective->set_found_complete(part);
      done = done && part_done;
      mechanism.test_returned(part_done);
    }
    done = done && request->complete();
  }
  mechanism.test_returned(done);
  return done;
}
} // namespace progsim::mpi
