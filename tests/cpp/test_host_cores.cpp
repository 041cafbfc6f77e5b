/*
 * HostCores against SimGrid's own CPU model: the same CPU users (executions of given flops, endless loads with a
 * bound and a priority, started and stopped at given dates) run on two identical hosts, as SimGrid executions on one
 * and through HostCores on the other, in one simulation; every execution must end at the same date on both. SimGrid's
 * engine is global, so each simulation runs in a child process of its own.
 */
#include "resources/HostCores.hpp"
#include "sched/ActorParking.hpp"
#include "ChildEngine.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

constexpr double kSpeed = 1e9; // flop/s per core
constexpr int kCores    = 4;

/** Work of one actor: `flops` from `start` (an execution), or a load of `bound` and `priority` from `start` to
 * `stop`; with `then`, a second execution of that many flops right after the first (HostCores::start: one
 * execution in two parts). */
struct CpuUser {
  double start;
  double flops; // 0: a load
  double bound    = 0;
  double priority = 1;
  double stop     = 0;
  double then     = 0;
};

/** Two identical 4-core hosts: SimGrid's executions run on one, HostCores' on the other. */
const std::string kPlatform = progsim::testing::full_routing_platform(R"(
    <host id="simgrid" speed="1Gf" core="4"/>
    <host id="progsim" speed="1Gf" core="4"/>
)");

/** Runs `users` on both hosts in a child process; the child exits 0 when every execution ended at the same date on
 * both (within `tolerance` s), and prints the ones that did not. */
int same_ends(const std::vector<CpuUser>& users, double tolerance = 1e-9)
{
  std::vector<double> simgrid_end(users.size(), -1), progsim_end(users.size(), -1);
  std::vector<double> simgrid_between(users.size(), -1), progsim_between(users.size(), -1);
  std::optional<progsim::resources::HostCores> cores; // made in the child, once its platform is
  auto setup = [&](progsim::testing::Failures&) {
    sg4::Host* reference = sg4::Host::by_name("simgrid");
    sg4::Host* ours      = sg4::Host::by_name("progsim");
    cores.emplace(ours);
    for (size_t i = 0; i < users.size(); i++) {
      const CpuUser user = users[i];
      sg4::Actor::create("simgrid-" + std::to_string(i), reference, [user, i, &simgrid_end, &simgrid_between]() {
        sg4::this_actor::sleep_until(user.start);
        if (user.flops > 0) {
          sg4::this_actor::exec_init(user.flops)->start()->wait();
          if (user.then > 0) {
            simgrid_between[i] = sg4::Engine::get_clock();
            sg4::this_actor::exec_init(user.then)->start()->wait();
          }
          simgrid_end[i] = sg4::Engine::get_clock();
          return;
        }
        sg4::ExecPtr load = sg4::this_actor::exec_init(1e300);
        load->set_bound(user.bound);
        load->set_priority(user.priority);
        load->start();
        sg4::this_actor::sleep_until(user.stop);
        load->cancel();
      });
      sg4::Actor::create("progsim-" + std::to_string(i), ours, [user, i, &progsim_end, &progsim_between, &cores]() {
        sg4::this_actor::sleep_until(user.start);
        if (user.flops > 0 && user.then > 0) { // one execution in two parts; the actor parks once
          sg4::Actor* self                  = progsim::sched::parking::caller();
          const std::function<void()> mark = [i, &progsim_between]() {
            progsim_between[i] = sg4::Engine::get_clock();
          };
          const std::function<void()> done = [self]() { progsim::sched::parking::resume(self); };
          cores->start(user.flops, mark, user.then, done);
          progsim::sched::parking::park();
          progsim_end[i] = sg4::Engine::get_clock();
          return;
        }
        if (user.flops > 0) {
          cores->run(user.flops);
          progsim_end[i] = sg4::Engine::get_clock();
          return;
        }
        uint64_t load = cores->start_load(user.bound, user.priority);
        sg4::this_actor::sleep_until(user.stop);
        cores->stop_load(load);
      });
    }
  };
  auto check = [&](progsim::testing::Failures& failures) {
    for (size_t i = 0; i < users.size(); i++) {
      if (users[i].flops > 0)
        progsim::testing::expect_near(failures, "execution " + std::to_string(i) + " under HostCores (SimGrid's end)",
                                      progsim_end[i], simgrid_end[i], tolerance);
      if (users[i].then > 0)
        progsim::testing::expect_near(failures, "execution " + std::to_string(i) + "'s first part (SimGrid's end)",
                                      progsim_between[i], simgrid_between[i], tolerance);
    }
  };
  return progsim::testing::simulate_in_child(kPlatform, {"--cfg=surf/precision:1e-9"}, setup, check);
}

} // namespace

TEST(HostCores, AnExecutionAloneRunsAtOneCoresSpeed)
{
  EXPECT_EQ(same_ends({{0, 2e6}}), 0);
}

TEST(HostCores, MoreExecutionsThanCoresShareTheCoresEqually)
{
  // Six executions on four cores, begun at different dates: 2/3 of a core each while all six run.
  EXPECT_EQ(same_ends({{0, 3e6}, {0, 1e6}, {1e-4, 2e6}, {2e-4, 5e5}, {2e-4, 4e6}, {1e-3, 1e6}}), 0);
}

TEST(HostCores, LoadsTakeTheirShareByPriorityUpToTheirBound)
{
  // A reserved core (a load ahead of everything, one core), the idle polling of five threads as one load (priority
  // 5, bound 5 x 0.13 core), a rank polling in its wait (one core, priority 1), and executions around them.
  std::vector<CpuUser> users = {
      {0, 0, kSpeed, 1e6, 4e-3},   {0, 0, 5 * 0.13 * kSpeed, 5, 3e-3}, {5e-4, 0, kSpeed, 1, 1.5e-3},
      {0, 2e6},                    {0, 1e6},                           {1e-4, 3e6},
      {2e-4, 1e6},                 {2e-3, 2e6},                        {3.5e-3, 5e5},
  };
  EXPECT_EQ(same_ends(users), 0);
}

TEST(HostCores, ManyUsersAtRandomDatesEndWhenSimgridEndsThem)
{
  std::mt19937 random(20261127); // fixed: the same users at every run
  std::uniform_real_distribution<double> date(0, 5e-3), flops(1e4, 3e6), share(0.05, 1.0);
  std::vector<CpuUser> users;
  for (int i = 0; i < 60; i++)
    users.push_back({date(random), flops(random)});
  for (int i = 0; i < 6; i++) {
    double start = date(random);
    double bound = share(random) * kSpeed * (i % 3 == 0 ? 3 : 1);
    users.push_back({start, 0, bound, i % 3 == 0 ? 3.0 : 1.0, start + date(random)});
  }
  EXPECT_EQ(same_ends(users), 0);
}

TEST(HostCores, AnExecutionInTwoPartsEndsAsTwoExecutionsInARow)
{
  // Alone: 1 ms, then 2 ms. Shared: three executions on four cores with a two-part one among six users, so that the
  // rate changes during both parts; the first part's end comes when SimGrid's first execution ends.
  EXPECT_EQ(same_ends({{0, 1e6, 0, 1, 0, 2e6}}), 0);
  EXPECT_EQ(same_ends({{0, 2e6, 0, 1, 0, 1e6}, {0, 3e6}, {1e-4, 2e6}, {2e-4, 5e5, 0, 1, 0, 2e6}, {5e-4, 4e6},
                       {0, 0, 0.8 * kSpeed, 2, 2e-3}}),
            0);
}

TEST(HostCores, ManyTwoPartExecutionsAtRandomDatesEndWhenSimgridEndsThem)
{
  std::mt19937 random(20261128); // fixed: the same users at every run
  std::uniform_real_distribution<double> date(0, 5e-3), flops(1e4, 3e6);
  std::vector<CpuUser> users;
  for (int i = 0; i < 40; i++)
    users.push_back({date(random), flops(random), 0, 1, 0, i % 2 == 0 ? flops(random) : 0});
  EXPECT_EQ(same_ends(users), 0);
}
