#!/usr/bin/env bash
# Builds SimGrid 3.32 from its source release, with twelve changes that leave simulated times as they are (the
# twelfth, an option that stock SMPI runs without, but for the solver's precision), into a cache folder, once; prints
# the installation prefix. progsim builds its engine on it, and runs stock SMPI from it (smpirun, smpicc), so that the
# reference and the engine are the same SimGrid.
#
# Why: in SimGrid 3.32 every actor keeps its pending activities in a std::list, and every detached communication is
# also listed in the maestro's; completing a communication removes it with std::list::remove, a scan of every
# activity in flight. With thousands of ranks that scan dominates (34 % of a 4 096-rank replay). SimGrid 3.34 made
# that container a std::set (commit 5f8fc2c2); Debian 12 packages 3.32 only. The change is applied here by renaming
# the container's type and its three calls (emplace_back/remove become insert/erase). SMPI's simulated times stay
# those of 3.32 with this change and each one below (checked on every real capture); the engine's too, but for
# rounding in the max-min solver under dedicated-core (the README's Speed section gives the figures).
#
# A second change makes a direct host-to-host transfer (Comm::sendto_init) keep the rate bound set on it
# (Comm::set_rate), which 3.32 (and 4.1) apply to mailbox transfers only. progsim's memory flows are paced at a
# core's copy speed: without it, each needs a mailbox and an actor on the memory to receive it, a third of the cost of
# a 1 KiB message under explicit progression. The engine relies on it (CMake checks the stamp): the bound, route and
# therefore simulated times are those a mailbox transfer would have.
#
# A third change lets an actor set up an execution it has not started yet (amount, host, bound, priority) in place.
# 3.32 passes each setter to the maestro as a simcall, and every simcall is a round trip through the maestro: so an
# execution costs four or five of them where only its start and its wait need the maestro. An unstarted execution is
# known to its creator only (3.32 already creates it, and lists it in its actor's activities, in the actor's own
# context), so no other actor can observe the difference. Settings on a started execution still go to the maestro.
#
# A fourth change is the one SimGrid made in 3.36 (commit dd0338aac5): a wait with no timeout creates no timeout
# detector. 3.32 gives every blocking wait on an activity a sleep action on the waiter's CPU (an lmm variable, and for
# an execution a synchronisation object around it), only so that switching the waiter's host off would wake it. No
# host is ever switched off in a replay (progsim's platforms have no availability profiles, nor does SMPI's replay
# switch hosts), and waits with a timeout keep their detector.
#
# A fifth change skips the virtual machine model's bookkeeping when there is no virtual machine. 3.32 always installs
# it, and it casts the host of every execution that starts, ends, is suspended or resumed (and of every other activity
# that ends) to a virtual machine, which it never is in progsim or SMPI.
#
# A sixth change connects no host-failure slot per execution. 3.32's Exec::init connects a callback to
# Host::on_state_change for every execution (a std::map insert, a std::function holding the execution) and
# ExecImpl::post disconnects it, only so that an execution fails if one of its hosts is switched off; for the same
# reason as the fourth change, that never happens in a replay. 4 to 5 % of the instructions of a 256-rank replay under
# thread progression, 1 to 2 % under the other mechanisms.
#
# A seventh change gives actors a way to hear of a communication's end from the kernel, as it ends:
# Comm::on_kernel_completion_cb connects a callback to the signal CommImpl::on_completion, which 3.32 fires in the
# maestro for every communication that ends but which only SimGrid's own plugins can reach (its class is not in the
# installed headers). A waiting rank or progress agent then sleeps on a semaphore that its transfers' ends release,
# instead of on a list of every transfer it follows plus an execution that other actors resume to wake it: no
# activity list to register at each wait, and no execution for the CPU solver (progsim's sched/TransferWatch). No
# released SimGrid has such a hook, so the engine needs this build.
#
# An eighth change cuts unguarded actor stacks (contexts/guard-size:0, which the engine and the benchmark's SMPI runs
# set past a few thousand actors, so as to stay under Linux's cap on memory mappings) from large mappings, side by side
# and page-aligned, and reuses them, where 3.32 takes each from the heap (xbt_malloc0). There, a stack is a large
# allocation of its own, which jemalloc (the engine's allocator) starts at a random cache line of an extra page, so
# that the few frames an actor uses straddle one page more; every actor switch touches them. 16 384 ranks under
# `thread` with 1 MiB messages: 26 000 fewer page faults, peak memory 374 MB to 304 MB (measured with the same
# allocation made outside SimGrid). Guarded stacks are unchanged; a stack's memory stays mapped for the next actor.
#
# A ninth change stops the max-min solver from rescanning a FATPIPE link's every flow each time one of them is set.
# Such a link's usage is the largest weight/penalty among its flows still unset; 3.32 recomputes it by a scan of all of
# them whenever a flow crossing it gets its value, so that a solve costs the square of the flows there. The engine's
# compiled platforms put a FATPIPE link (the memory's latency and bandwidth) on every route out of a NUMA domain, and
# a burst of messages (an alltoall of 64 ranks: 768 flows per domain) then spent 90 % of its time there. The change
# counts the flows at the largest value and rescans only when the last of them is set: the same usage to the bit.
#
# A tenth change finds a host or a link by name through one index of the zone that holds each, where 3.32 walks the
# zone tree from its root, and seals a zone's hosts from its own map, where 3.32 filters every host of the platform
# for each zone. Loading a platform of Z zones and H hosts cost Z x (H + links of routes): at 131 072 ranks (41 058
# zones) 63 % of a ring's replay. The same hosts and links are found, in the same order.
#
# An eleventh change walks the max-min system's modified constraints with a stack of its own past 1 024 calls of the
# recursion that 3.32 makes as deep as the component a change reaches: a ring of 1 048 576 ranks, whose nodes' NIC
# links chain all of its flows into one component, overflowed the maestro's stack there. The same constraints in the
# same order; the recursion stays where it is shallow (the vector all the way cost 6 % of a 64-rank replay).
#
# A twelfth change, behind an option of its own (network/carry-flows, off by default: stock smpirun runs without it,
# the engine sets it), lets the flows of one route that have paid their latency ride one max-min variable, their
# carrier, where 3.32 gives each flow its own. A burst of messages (an alltoall of 64 ranks on 4 nodes: 3 072 flows
# between nodes at once) put every flow in one component of the max-min system, which each start and end re-solved
# whole; with carriers it holds one variable per route. The carrier consumes on each link what its n flows would (n on
# a shared link, 0.05 n on the links back, one flow's weight on a FATPIPE link), so that the water-filling gives it the
# value each flow would get; its flows share its rate equally and keep their own actions (ends, remains, latencies).
# The same sharing, but for the solver's precision: its clamps (maxmin/precision) act on one sum where 3.32 has n
# terms; with maxmin/precision:1e-9 and surf/precision:1e-12 a 64-rank HPL replays to the same bit either way.
#
# A thirteenth change, behind an option of its own (network/route-cache, off by default, set by the engine), keeps the
# route between two hosts once computed: 3.32 walks the zone tree at every transfer (and the carriers once more for
# each new carrier), 11 % of HPCC's suite under `none`. The same links in the same order, the same latency.
#
# The build takes about 10 minutes on 2 cores.
set -euo pipefail

VERSION=3.32
SDIST_URL=https://files.pythonhosted.org/packages/a0/72/a42e5172ae0ef7633a97487cb99021901cf42931340cbb8c37605f608221/simgrid-3.32.tar.gz
SDIST_SHA256=3cc752a28deb2ae42cd51cc835a572f13201702dc94545ced0e77c657231cd76
# The changes below, as the stamp lists them for CMake (and results name them).
CHANGES="activity-set paced-sendto exec-setters untimed-waits no-vm-bookkeeping no-exec-failure-slots completion-hook stack-pool fatpipe-usage name-index deep-modified-set carry-flows route-cache"
FLAVOUR=$VERSION-${CHANGES// /-} # a new list of changes builds into a new folder
CACHE=${PROGSIM_SIMGRID_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/progsim/simgrid}
PREFIX=$CACHE/$FLAVOUR
STAMP=$PREFIX/.progsim-complete

if [ -f "$STAMP" ]; then
  echo "$PREFIX"
  exit 0
fi

say() { echo "build_simgrid: $*" >&2; }
say "building SimGrid $VERSION with changes ($CHANGES) into $PREFIX (once, about 10 minutes; log in $CACHE/$FLAVOUR.log)"
mkdir -p "$CACHE"
WORK=$(mktemp -d "$CACHE/build-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
LOG=$CACHE/$FLAVOUR.log
: >"$LOG"

# The source release on PyPI (SimGrid's own sdist: the whole C++ tree, with CMake files), checked byte for byte;
# through pip's configured index when the file's address is not reachable.
ARCHIVE=$WORK/simgrid-$VERSION.tar.gz
if ! curl -fsSL --retry 3 -o "$ARCHIVE" "$SDIST_URL" >>"$LOG" 2>&1; then
  "${PYTHON:-python3}" -m pip download --quiet --no-deps --no-binary :all: "simgrid==$VERSION" -d "$WORK" >>"$LOG" 2>&1 \
    || { say "could not download simgrid==$VERSION from PyPI (see $LOG)"; exit 1; }
fi
echo "$SDIST_SHA256  $ARCHIVE" | sha256sum --check --quiet - \
  || { say "$ARCHIVE does not have the expected SHA-256 $SDIST_SHA256"; exit 1; }
tar -xzf "$ARCHIVE" -C "$WORK"
SOURCE=$WORK/simgrid-$VERSION

# The container change: ActorImpl::activities_ becomes a std::set, its insertions and removals follow.
HEADER=$SOURCE/src/kernel/actor/ActorImpl.hpp
sed -i -E 's/std::list<activity::ActivityImplPtr> activities_;/std::set<activity::ActivityImplPtr> activities_;/' "$HEADER"
grep -q '^#include <set>' "$HEADER" || sed -i -E '0,/^#include <list>/s//#include <list>\n#include <set>/' "$HEADER"
mapfile -t CALLERS < <(grep -rlE 'activities_\.(emplace_back|remove)\(' "$SOURCE/src/kernel")
[ ${#CALLERS[@]} -gt 0 ] || { say "SimGrid $VERSION's kernel does not call activities_ as expected"; exit 1; }
sed -i -E 's/activities_\.emplace_back\(/activities_.insert(/g; s/activities_\.remove\(/activities_.erase(/g' \
  "${CALLERS[@]}"
# Check the edit before spending ten minutes on it: the declaration changed and no list call is left.
grep -q 'std::set<activity::ActivityImplPtr> activities_;' "$HEADER" \
  || { say "SimGrid $VERSION's ActorImpl.hpp does not declare activities_ as expected"; exit 1; }
if grep -rqE 'activities_\.(emplace_back|push_back|remove|pop_front|front)\(' "$SOURCE/src"; then
  say "a std::list call on activities_ is left in SimGrid $VERSION's source"; exit 1
fi

# The paced host-to-host transfer: the s4u Comm gives its rate to the kernel's before starting it.
COMM=$SOURCE/src/s4u/s4u_Comm.cpp
START_H2H='boost::static_pointer_cast<kernel::activity::CommImpl>(pimpl_)->start();'
[ "$(grep -cF "$START_H2H" "$COMM")" = 1 ] \
  || { say "SimGrid $VERSION's Comm::start does not start host-to-host transfers as expected"; exit 1; }
sed -i 's/boost::static_pointer_cast<kernel::activity::CommImpl>(pimpl_)->start();/boost::static_pointer_cast<kernel::activity::CommImpl>(pimpl_)->set_rate(rate_).start();/' "$COMM"
grep -qF 'CommImpl>(pimpl_)->set_rate(rate_).start();' "$COMM" \
  || { say "the paced host-to-host change did not apply to $COMM"; exit 1; }

# The in-place setters: in s4u_Exec.cpp, each setter of an execution calls a helper in place of simcall_answered;
# the helper runs the setting directly while the execution is not started, through the maestro otherwise.
EXEC=$SOURCE/src/s4u/s4u_Exec.cpp
perl -0pi -e '
  s{^namespace simgrid::s4u \{\n}{namespace simgrid::s4u \{
// progsim: an execution that is not started yet is known to its creator only, so setting it needs no simcall.
template <class F> static void unstarted_or_simcall(Activity::State state, F&& code)
\{
  if (state == Activity::State::INITED \|\| state == Activity::State::STARTING)
    std::forward<F>(code)();
  else
    kernel::actor::simcall_answered(std::forward<F>(code));
\}
}m;
  s{(ExecPtr Exec::set_(?:bound|priority|flops_amounts?|bytes_amounts|thread_count|hosts?)\(.*?\n\}\n)}{
    my $f = $1; $f =~ s/kernel::actor::simcall_answered\(/unstarted_or_simcall(state_, /g; $f }gse;
' "$EXEC"
[ "$(grep -c 'unstarted_or_simcall(state_, ' "$EXEC")" = 8 ] \
  || { say "the in-place exec setters did not apply to $EXEC as expected"; exit 1; }

# The untimed waits: ActivityImpl::wait_for sets up its timeout detector only for a timeout (as 3.36 does).
ACTIVITY=$SOURCE/src/kernel/activity/ActivityImpl.cpp
perl -0pi -e 's{(    finish\(\);\n  \}) else \{\n(    /\* we need a sleep action \(even when the timeout is infinite\))}{$1 else if (timeout >= 0.) \{ // progsim: as SimGrid 3.36\n$2}' "$ACTIVITY"
[ "$(grep -c 'else if (timeout >= 0.) { // progsim: as SimGrid 3.36' "$ACTIVITY")" = 1 ] \
  || { say "the untimed waits change did not apply to $ACTIVITY as expected"; exit 1; }

# No virtual machine bookkeeping without virtual machines: each of the VM model's four activity callbacks returns at
# once while no virtual machine exists.
VMS=$SOURCE/src/kernel/resource/VirtualMachineImpl.cpp
perl -0pi -e 's{^(static void (?:add_active_exec\(s4u::Exec const& task\)|remove_active_exec\(s4u::Activity const& task\)|add_active_activity\(s4u::Activity const& act\)|remove_active_activity\(s4u::Activity const& act\))\n\{\n)}{$1  if (VirtualMachineImpl::allVms_.empty()) // progsim: nothing to account without virtual machines\n    return;\n}gm' "$VMS"
[ "$(grep -c 'if (VirtualMachineImpl::allVms_.empty()) // progsim' "$VMS")" = 4 ] \
  || { say "the virtual machine change did not apply to $VMS as expected"; exit 1; }

# No host-failure slot per execution: Exec::init creates the execution and nothing else.
perl -0pi -e 's{(  auto pimpl = kernel::activity::ExecImplPtr\(new kernel::activity::ExecImpl\(\)\);\n)  unsigned int cb_id = Host::on_state_change\.connect\(.*?\n  \}\);\n  pimpl->set_cb_id\(cb_id\);\n}{$1  // progsim: no host is switched off in a replay, so no execution needs to watch its hosts\n}s' "$EXEC"
[ "$(grep -c 'progsim: no host is switched off in a replay' "$EXEC")" = 1 ] && ! grep -q 'on_state_change' "$EXEC" \
  || { say "the host-failure slot change did not apply to $EXEC as expected"; exit 1; }

# The completion hook: s4u::Comm::on_kernel_completion_cb connects a callback to the signal 3.32 already fires in the
# maestro for every communication that ends (CommImpl::on_completion, which only SimGrid's own plugins can reach, its
# class being out of the installed headers). The callback gets the kernel object, as Activity::get_impl() gives it.
COMM_HPP=$SOURCE/include/simgrid/s4u/Comm.hpp
perl -0pi -e 's{(  static void on_start_cb\(const std::function<void\(Comm const&\)>& cb\) \{ on_start\.connect\(cb\); \}\n)}{$1  /** progsim: calls cb in the maestro when any communication ends, with its get_impl(), before its waiters resume */\n  static void on_kernel_completion_cb(const std::function<void(const kernel::activity::ActivityImpl*)>& cb);\n}' "$COMM_HPP"
perl -0pi -e 's{(xbt::signal<void\(Comm const&\)> Comm::on_recv;\n)}{$1\nvoid Comm::on_kernel_completion_cb(const std::function<void(const kernel::activity::ActivityImpl*)>& cb) // progsim\n\{\n  kernel::activity::CommImpl::on_completion.connect([cb](kernel::activity::CommImpl const& comm) \{ cb(&comm); \});\n\}\n}' "$COMM"
[ "$(grep -c 'on_kernel_completion_cb' "$COMM_HPP")" = 1 ] && [ "$(grep -c 'on_kernel_completion_cb' "$COMM")" = 1 ] \
  || { say "the completion hook did not apply to $COMM_HPP and $COMM as expected"; exit 1; }

# The stack pool: unguarded stacks come from StackPool (mappings of about 32 MiB, hugepages off: a huge page would
# hold a dozen stacks whose actors use a few of its pages each), and go back to it.
SWAPPED=$SOURCE/src/kernel/context/ContextSwapped.cpp
STACK_POOL=$(cat <<'CPP'
#include <algorithm>
#include <iterator>
#include <map>
#include <mutex>
#include <vector>

namespace {
// progsim: unguarded actor stacks, side by side and page-aligned in large mappings, reused once their actor ended.
class StackPool {
public:
  unsigned char* take(size_t size)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<unsigned char*>& reusable = free_[size];
    if (not reusable.empty()) {
      unsigned char* stack = reusable.back();
      reusable.pop_back();
      return stack;
    }
    Cut& cut = cuts_[size];
    if (cut.next == cut.end) {
      const size_t bytes = size * std::max<size_t>(1, kMappingBytes / size);
      void* mapping = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      xbt_assert(mapping != MAP_FAILED, "Failed to map actor stacks: %s", strerror(errno));
      madvise(mapping, bytes, MADV_NOHUGEPAGE);
      cut.next = static_cast<unsigned char*>(mapping);
      cut.end  = cut.next + bytes;
      mappings_[cut.next] = Mapping{cut.end, size};
    }
    unsigned char* stack = cut.next;
    cut.next += size;
    return stack;
  }
  /** Takes back a stack of the pool's; false for any other memory. */
  bool give(unsigned char* stack)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto after = mappings_.upper_bound(stack);
    if (after == mappings_.begin())
      return false;
    const Mapping& mapping = std::prev(after)->second;
    if (stack >= mapping.end)
      return false;
    free_[mapping.stack_size].push_back(stack);
    return true;
  }

private:
  static constexpr size_t kMappingBytes = size_t{32} << 20;
  struct Cut {
    unsigned char* next = nullptr;
    unsigned char* end  = nullptr;
  };
  struct Mapping {
    unsigned char* end;
    size_t stack_size;
  };
  std::mutex mutex_;
  std::map<size_t, Cut> cuts_;                          // by stack size: where the next new stack begins
  std::map<size_t, std::vector<unsigned char*>> free_;  // by stack size
  std::map<unsigned char*, Mapping> mappings_;          // by start
};
StackPool& stack_pool()
{
  static auto* pool = new StackPool(); // never destroyed: contexts may outlive static destruction
  return *pool;
}
} // namespace
CPP
)
STACK_POOL=$STACK_POOL perl -0pi -e 's{\nnamespace simgrid::kernel::context \{\n}{\n$ENV{STACK_POOL}\nnamespace simgrid::kernel::context \{\n}' "$SWAPPED"
perl -0pi -e 's{this->stack_ = static_cast<unsigned char\*>\(xbt_malloc0\(actor->get_stacksize\(\)\)\);}{this->stack_ = stack_pool().take(actor->get_stacksize()); // progsim: the stack pool}' "$SWAPPED"
perl -0pi -e 's{\n  xbt_free\(stack_\);\n\}}{\n  if (not stack_pool().give(stack_)) // progsim: the stack pool\n    xbt_free(stack_);\n\}}' "$SWAPPED"
[ "$(grep -c 'progsim: the stack pool' "$SWAPPED")" = 2 ] && [ "$(grep -c 'class StackPool' "$SWAPPED")" = 1 ] \
  || { say "the stack pool change did not apply to $SWAPPED as expected"; exit 1; }

# The FATPIPE usage: each constraint counts its unset flows at the largest weight/penalty (set where that usage is
# computed); setting a flow below it, or one of several at it, leaves the usage as it is.
LMM_HPP=$SOURCE/src/kernel/lmm/System.hpp
MAXMIN=$SOURCE/src/kernel/lmm/maxmin.cpp
perl -0pi -e 's{(\n  double usage_     = 0\.0;\n)}{$1  int fatpipe_max_count_ = 0; // progsim: FATPIPE only: unset flows at usage_ (0: unknown, rescan)\n}' "$LMM_HPP"
perl -0pi -e 's{(    cnst\.remaining_ = cnst\.dynamic_bound_;\n)}{$1    cnst.fatpipe_max_count_ = 0; // progsim: the FATPIPE usage\n}' "$MAXMIN"
perl -0pi -e 's{        else if \(cnst\.usage_ < elem\.consumption_weight / elem\.variable->sharing_penalty_\)\n          cnst\.usage_ = elem\.consumption_weight / elem\.variable->sharing_penalty_;\n}{        else if (cnst.usage_ < elem.consumption_weight / elem.variable->sharing_penalty_) \{\n          cnst.usage_             = elem.consumption_weight / elem.variable->sharing_penalty_;\n          cnst.fatpipe_max_count_ = 1; // progsim: the FATPIPE usage\n        \} else if (cnst.usage_ == elem.consumption_weight / elem.variable->sharing_penalty_)\n          cnst.fatpipe_max_count_++;\n}' "$MAXMIN"
perl -0pi -e 's{          cnst->usage_ = 0\.0;\n          elem\.make_inactive\(\);\n          for \(const Element& elem2 : cnst->enabled_element_set_\) \{\n            xbt_assert\(elem2\.variable->sharing_penalty_ > 0\);\n            if \(elem2\.variable->value_ > 0\)\n              continue;\n            if \(elem2\.consumption_weight > 0\)\n              cnst->usage_ = std::max\(cnst->usage_, elem2\.consumption_weight / elem2\.variable->sharing_penalty_\);\n          \}\n}{          elem.make_inactive();\n          // progsim: the FATPIPE usage, the largest weight/penalty of the unset flows, moves only when the last flow\n          // at it is set: rescan then (or when the count is unknown)\n          const double set_usage = elem.consumption_weight / var.sharing_penalty_;\n          if (var.value_ > 0 && elem.consumption_weight > 0 && cnst->fatpipe_max_count_ > 0 &&\n              (set_usage < cnst->usage_ \|\| (set_usage == cnst->usage_ && cnst->fatpipe_max_count_ > 1))) \{\n            if (set_usage == cnst->usage_)\n              cnst->fatpipe_max_count_--;\n          \} else \{\n            cnst->usage_             = 0.0;\n            cnst->fatpipe_max_count_ = 0;\n            for (const Element& elem2 : cnst->enabled_element_set_) \{\n              xbt_assert(elem2.variable->sharing_penalty_ > 0);\n              if (elem2.variable->value_ > 0 \|\| elem2.consumption_weight <= 0)\n                continue;\n              const double usage = elem2.consumption_weight / elem2.variable->sharing_penalty_;\n              if (cnst->usage_ < usage) \{\n                cnst->usage_             = usage;\n                cnst->fatpipe_max_count_ = 1;\n              \} else if (cnst->usage_ == usage)\n                cnst->fatpipe_max_count_++;\n            \}\n          \}\n}' "$MAXMIN"
[ "$(grep -c 'progsim: FATPIPE only' "$LMM_HPP")" = 1 ] && [ "$(grep -c 'progsim: the FATPIPE usage' "$MAXMIN")" = 3 ] \
  && [ "$(grep -c 'fatpipe_max_count_' "$MAXMIN")" = 9 ] \
  || { say "the FATPIPE usage change did not apply to $LMM_HPP and $MAXMIN as expected"; exit 1; }

# The name index: the zone that holds each named host, link and split-duplex link, so that finding one from the root
# (the XML parser does it for every link of every route, and for every host and link it creates) reads one hash map
# instead of walking every zone; and a zone seals the hosts of its own map instead of filtering every host of the
# platform (while there is no virtual machine, which could be held elsewhere). Both were quadratic in the zones.
ZONES=$SOURCE/src/kernel/routing/NetZoneImpl.cpp
NAME_INDEX=$(cat <<'CPP'
namespace simgrid::kernel::routing {
namespace {
// progsim: the zone of each named resource, kept as zones create and destroy them
struct ZonesByName {
  using Index = std::unordered_map<std::string, NetZoneImpl*>;
  Index hosts;
  Index links;
  Index split_duplex_links;

  template <class Map> static void forget(Index& index, const Map& names, const NetZoneImpl* zone)
  {
    for (auto const& [name, _] : names)
      if (auto it = index.find(name); it != index.end() && it->second == zone)
        index.erase(it);
  }
};
ZonesByName& zones_by_name()
{
  static auto* index = new ZonesByName(); // never destroyed: zones may outlive static destruction
  return *index;
}
/** The zone that the index gives for name, if it is top or below top; nullptr otherwise. */
const NetZoneImpl* zone_below(const ZonesByName::Index& index, const std::string& name, const NetZoneImpl* top)
{
  auto it = index.find(name);
  if (it == index.end())
    return nullptr;
  for (const NetZoneImpl* zone = it->second; zone != nullptr; zone = zone->get_parent())
    if (zone == top)
      return it->second;
  return nullptr;
}
} // namespace
CPP
)
NAME_INDEX=$NAME_INDEX perl -0pi -e 's{^namespace simgrid::kernel::routing \{\n}{$ENV{NAME_INDEX}\n}m' "$ZONES"
perl -0pi -e 's{^(#include <simgrid/kernel/routing/NetPoint\.hpp>\n)}{#include <unordered_map>\n$1}m' "$ZONES"
perl -0pi -e 's{(\n  hosts_\[name\] = host;\n)}{$1  zones_by_name().hosts[name] = this; // progsim: the name index\n}' "$ZONES"
perl -0pi -e 's{(\n  links_\[name\] = do_create_link\(name, bandwidths\)->set_englobing_zone\(this\);\n)}{$1  zones_by_name().links[name] = this; // progsim: the name index\n}' "$ZONES"
perl -0pi -e 's{(\n  split_duplex_links_\[name\] = std::make_unique<resource::SplitDuplexLinkImpl>\(name, link_up, link_down\);\n)}{$1  zones_by_name().split_duplex_links[name] = this; // progsim: the name index\n}' "$ZONES"
perl -0pi -e 's{(NetZoneImpl::~NetZoneImpl\(\)\n\{\n)}{$1  ZonesByName::forget(zones_by_name().hosts, hosts_, this); // progsim: the name index\n  ZonesByName::forget(zones_by_name().links, links_, this);\n  ZonesByName::forget(zones_by_name().split_duplex_links, split_duplex_links_, this);\n}' "$ZONES"
perl -0pi -e 's{(resource::StandardLinkImpl\* NetZoneImpl::get_link_by_name_or_null\(const std::string& name\) const\n\{\n).*?\n\}\n}{$1  // progsim: the name index gives the one zone that may hold it\n  const NetZoneImpl* zone = zone_below(zones_by_name().links, name, this);\n  if (zone == nullptr)\n    return nullptr;\n  auto link_it = zone->links_.find(name);\n  return link_it == zone->links_.end() ? nullptr : link_it->second;\n\}\n}s' "$ZONES"
perl -0pi -e 's{(resource::SplitDuplexLinkImpl\* NetZoneImpl::get_split_duplex_link_by_name_or_null\(const std::string& name\) const\n\{\n).*?\n\}\n}{$1  // progsim: the name index gives the one zone that may hold it\n  const NetZoneImpl* zone = zone_below(zones_by_name().split_duplex_links, name, this);\n  if (zone == nullptr)\n    return nullptr;\n  auto link_it = zone->split_duplex_links_.find(name);\n  return link_it == zone->split_duplex_links_.end() ? nullptr : link_it->second.get();\n\}\n}s' "$ZONES"
perl -0pi -e 's{(resource::HostImpl\* NetZoneImpl::get_host_by_name_or_null\(const std::string& name\) const\n\{\n).*?\n\}\n}{$1  // progsim: the name index gives the one zone that may hold it\n  const NetZoneImpl* zone = zone_below(zones_by_name().hosts, name, this);\n  if (zone == nullptr)\n    return nullptr;\n  auto host_it = zone->hosts_.find(name);\n  return host_it == zone->hosts_.end() ? nullptr : host_it->second;\n\}\n}s' "$ZONES"
perl -0pi -e 's{  for \(auto\* host : get_all_hosts\(\)\) \{\n    host->seal\(\);\n  \}\n}{  if (resource::VirtualMachineImpl::allVms_.empty()) \{ // progsim: then this zone\x27s hosts are those of its map\n    for (auto const& [_, host] : hosts_)\n      host->get_iface()->seal();\n  \} else \{\n    for (auto* host : get_all_hosts())\n      host->seal();\n  \}\n}' "$ZONES"
[ "$(grep -c 'progsim: the name index' "$ZONES")" = 7 ] && [ "$(grep -c 'struct ZonesByName' "$ZONES")" = 1 ] \
  && [ "$(grep -c 'progsim: then this zone' "$ZONES")" = 1 ] \
  || { say "the name index change did not apply to $ZONES as expected"; exit 1; }

# The modified set past a depth: the solver collects the constraints that a change reaches by a recursion one call
# deep per constraint of the component, and a component of a million flows (a ring of 1 048 576 ranks, whose nodes'
# NIC links chain every flow to the next) is deeper than the maestro's 8 MiB stack: 3.32 crashed there. Past 1 024
# calls deep, the same walk goes on depth first, in the same order, with its frames in a vector.
LMM_SYSTEM=$SOURCE/src/kernel/lmm/System.cpp
DEEP_WALK=$(cat <<'CPP'
void System::update_modified_cnst_set_rec(const Constraint* cnst)
{
  // progsim: past kDeepest calls, the same depth-first walk with its frames in a vector (a component may be a
  // million constraints deep, where the maestro's stack is not)
  constexpr int kDeepest = 1024;
  static int depth       = 0;
  if (depth >= kDeepest) {
    struct Frame {
      const Constraint* cnst;
      decltype(cnst->enabled_element_set_.begin()) elem;
      size_t next_cnst; // in elem's variable's constraints
    };
    static std::vector<Frame> frames; // the maestro alone solves
    const size_t bottom = frames.size();
    frames.push_back(Frame{cnst, cnst->enabled_element_set_.begin(), 0});
    while (frames.size() > bottom) {
      Frame& frame = frames.back();
      if (frame.elem == frame.cnst->enabled_element_set_.end()) {
        frames.pop_back();
        continue;
      }
      Variable* var            = frame.elem->variable;
      const Constraint* deeper = nullptr;
      while (frame.next_cnst < var->cnsts_.size() && var->visited_ != visited_counter_) {
        const Element& elem2 = var->cnsts_[frame.next_cnst++];
        if (elem2.constraint != frame.cnst && not elem2.constraint->modified_constraint_set_hook_.is_linked()) {
          modified_constraint_set.push_back(*elem2.constraint);
          deeper = elem2.constraint;
          break;
        }
      }
      if (deeper != nullptr) { // frame is not used past this push
        frames.push_back(Frame{deeper, deeper->enabled_element_set_.begin(), 0});
        continue;
      }
      var->visited_ = visited_counter_;
      ++frame.elem;
      frame.next_cnst = 0;
    }
    return;
  }
  ++depth;
CPP
)
DEEP_WALK=$DEEP_WALK perl -0pi -e 's{^void System::update_modified_cnst_set_rec\(const Constraint\* cnst\)\n\{\n}{$ENV{DEEP_WALK}\n}m' "$LMM_SYSTEM"
perl -0pi -e 's{(    // var will be ignored in later visits as long as sys->visited_counter does not move\n    var->visited_ = visited_counter_;\n  \}\n)\}\n}{$1  --depth; // progsim: the depth of the recursion\n\}\n}' "$LMM_SYSTEM"
[ "$(grep -c 'progsim: past kDeepest calls' "$LMM_SYSTEM")" = 1 ] \
  && [ "$(grep -c 'progsim: the depth of the recursion' "$LMM_SYSTEM")" = 1 ] \
  || { say "the deep modified set change did not apply to $LMM_SYSTEM as expected"; exit 1; }

# The carriers of flows (network/carry-flows, off unless set): in the network model, the flows of one route, bandwidth
# factor, bound and sharing penalty that have paid their latency share one max-min variable, which consumes what all
# of them would; the flows keep their own actions, ends and remains.
NET_HPP=$SOURCE/src/surf/network_cm02.hpp
NET_CPP=$SOURCE/src/surf/network_cm02.cpp
CARRIER_TYPES=$(cat <<'CPP'
/* progsim: the flows of one route, bandwidth factor, bound and sharing penalty whose latency is paid share one
 * max-min variable, their carrier (network/carry-flows). It consumes on each link what all of them would (their count
 * on a shared link and 0.05 of it on the links back, one flow's weight on a FATPIPE link), so that the water-filling
 * gives it the value that each of them would get; its flows share its rate equally, and it is due when the first of
 * them ends. A burst of thousands of flows between a few nodes solves a few variables per event. */
struct FlowCarrier {
  using Key = std::tuple<const s4u::Host*, const s4u::Host*, double, double, double>;
  Key key;
  NetworkCm02Action* action = nullptr; // the carrier's own action, which owns the variable
  std::vector<StandardLinkImpl*> route;
  std::vector<StandardLinkImpl*> back_route;
  double moved    = 0; // bytes that each flow has moved since the carrier started
  uint64_t joined = 0; // flows that ever joined: those that end together end in the order they joined
  std::map<std::pair<double, uint64_t>, NetworkCm02Action*> flows; // by the bytes moved at which each ends
};

CPP
)
CARRIER_TYPES=$CARRIER_TYPES perl -0pi -e 's{(/\*\*\*\*\*\*\*\*\*\n \* Model \*\n \*\*\*\*\*\*\*\*\*/\n)}{$ENV{CARRIER_TYPES}\n$1}' "$NET_HPP"
perl -0pi -e 's{(#include "xbt/string.hpp"\n)}{$1\n#include <map>\n#include <tuple>\n}' "$NET_HPP"
perl -0pi -e 's{(class XBT_PRIVATE NetworkSmpiModel;\n)}{$1struct FlowCarrier;\n}' "$NET_HPP"
perl -0pi -e 's{(                                const std::vector<StandardLinkImpl\*>& back_route\);\n)}{$1  // progsim: the carriers of flows, by their key (FlowCarrier)\n  std::map<FlowCarrier::Key, FlowCarrier> carriers_;\n  void carry(NetworkCm02Action* flow);\n  void carrier_due(FlowCarrier& carrier);\n  void carrier_release(FlowCarrier& carrier, int flows);\n  void carrier_weigh(FlowCarrier& carrier, int flows); // n flows more (or fewer) on its links, its first end\n}' "$NET_HPP"
perl -0pi -e 's{(  explicit NetworkCm02Model\(const std::string& name\);\n)}{$1  ~NetworkCm02Model() override;\n  void carrier_leave(NetworkCm02Action* flow); // progsim: a carried flow destroyed before its end\n}' "$NET_HPP"
perl -0pi -e 's{(  using NetworkAction::NetworkAction;\n  void update_remains_lazy\(double now\) override;\n)}{$1  ~NetworkCm02Action() override;\n  // progsim: carriers (FlowCarrier)\n  double bw_factor_           = 1.0;     // the bandwidth factor that its rate has\n  bool carried_               = false;   // joins a carrier once its latency is paid\n  bool is_carrier_            = false;   // this action is a carrier\n  FlowCarrier* carrier_       = nullptr; // the carrier it joined (a carrier: its own)\n  std::pair<double, uint64_t> carried_end_; // its key among its carrier\x27s flows\n}' "$NET_HPP"

# The option, the factor kept, and the carried flows left out of the links in communicate.
perl -0pi -e 's{(double sg_latency_factor     = 1\.0;)}{static simgrid::config::Flag<bool> cfg_carry_flows( // progsim\n    "network/carry-flows", "Whether the flows of one route, factor, bound and penalty share one max-min variable", false);\n\n$1}' "$NET_CPP"
perl -0pi -e 's{(  action->set_rate_factor\(bw_factor\);\n)}{$1  action->bw_factor_ = bw_factor; // progsim: a carrier\x27s key\n}' "$NET_CPP"
CARRIED_CHOICE=$(cat <<'CPP'
  /* progsim: a flow that a carrier will carry takes no part in the links' sharing itself, and its variable holds no
   * link; only linear sharing is carried (a non-linear link's capacity follows its count of flows, which a carrier
   * would hide) */
  auto linear = [](const StandardLinkImpl* link) {
    return link->get_sharing_policy() == s4u::Link::SharingPolicy::SHARED ||
           link->get_sharing_policy() == s4u::Link::SharingPolicy::FATPIPE;
  };
  action->carried_ = cfg_carry_flows && is_update_lazy() && not failed && not route.empty() &&
                     std::all_of(route.begin(), route.end(), linear) &&
                     std::all_of(back_route.begin(), back_route.end(), linear);
CPP
)
CARRIED=$(cat <<'CPP'
  if (action->carried_) { // progsim
    if (action->latency_ <= 0) { // no latency to pay: it joins now
      get_maxmin_system()->update_variable_penalty(action->get_variable(), 0);
      carry(action);
    }
    XBT_OUT();
    return action;
  }
CPP
)
CARRIED_CHOICE=$CARRIED_CHOICE perl -0pi -e 's{(\n  comm_action_set_variable\(action, route, back_route\);\n)}{\n$ENV{CARRIED_CHOICE}$1}' "$NET_CPP"
CARRIED=$CARRIED perl -0pi -e 's{(  comm_action_set_variable\(action, route, back_route\);\n\n)}{$1$ENV{CARRIED}\n\n}' "$NET_CPP"
perl -0pi -e 's{  size_t constraints_per_variable = route\.size\(\);\n  constraints_per_variable \+= back_route\.size\(\);\n}{  // progsim: a carried flow\x27s variable holds no link (its carrier does)\n  size_t constraints_per_variable = action->carried_ ? 0 : route.size() + back_route.size();\n}' "$NET_CPP"

# The latency paid: a carried flow joins its carrier; a carrier due: its first flows end.
perl -0pi -e 's{(      XBT_DEBUG\("Latency paid for action %p\. Activating", action\);\n)(      get_maxmin_system\(\)->update_variable_penalty\(action->get_variable\(\), action->sharing_penalty_\);\n)}{$1      if (action->carried_) // progsim\n        carry(action);\n      else\n  $2}' "$NET_CPP"
perl -0pi -e 's{(      // no need to communicate anymore\n)}{      if (action->is_carrier_) { // progsim: the first of its flows end\n        carrier_due(*action->carrier_);\n        continue;\n      }\n$1}' "$NET_CPP"
CARRIER_REMAINS=$(cat <<'CPP'
  if (is_carrier_) { // progsim: a carrier counts the bytes that each of its flows moved
    carrier_->moved += get_last_value() * (now - get_last_update());
    set_remains(carrier_->flows.empty() ? 0.0
                                        : std::max(0.0, carrier_->flows.begin()->first.first - carrier_->moved));
    set_last_update();
    set_last_value(get_rate());
    return;
  }
  if (carrier_ != nullptr) { // progsim: a carried flow moved what its carrier moved since it joined
    carrier_->action->update_remains_lazy(now);
    set_remains(std::max(0.0, carried_end_.first - carrier_->moved));
    return;
  }
CPP
)
CARRIER_REMAINS=$CARRIER_REMAINS perl -0pi -e 's{(void NetworkCm02Action::update_remains_lazy\(double now\)\n\{\n)}{$1$ENV{CARRIER_REMAINS}\n}' "$NET_CPP"
CARRIERS=$(cat <<'CPP'

/* progsim: carriers of flows (FlowCarrier, network/carry-flows) */
NetworkCm02Model::~NetworkCm02Model()
{
  for (auto& [_, carrier] : carriers_) // flows left at the end of a simulation no longer leave a carrier
    for (auto const& [_, flow] : carrier.flows)
      flow->carrier_ = nullptr;
}

void NetworkCm02Model::carry(NetworkCm02Action* flow)
{
  const double bound   = flow->get_variable()->get_bound();
  const double penalty = flow->latency_ > 0 ? flow->sharing_penalty_ : 1.0; // as its own variable would have
  FlowCarrier::Key key{&flow->get_src(), &flow->get_dst(), flow->bw_factor_, bound, penalty};
  auto [it, created]   = carriers_.try_emplace(key);
  FlowCarrier& carrier = it->second;
  if (created) {
    double latency = 0.0;
    std::unordered_set<kernel::routing::NetZoneImpl*> netzones;
    comm_get_route_info(&flow->get_src(), &flow->get_dst(), latency, carrier.route, carrier.back_route, netzones);
    auto* action             = new NetworkCm02Action(this, flow->get_src(), flow->get_dst(), 0.0, false);
    action->set_last_update();
    action->is_carrier_      = true;
    action->carrier_         = &carrier;
    action->sharing_penalty_ = penalty;
    action->set_rate_factor(flow->bw_factor_);
    action->set_variable(get_maxmin_system()->variable_new(action, penalty, bound,
                                                           carrier.route.size() + carrier.back_route.size()));
    carrier.key    = key;
    carrier.action = action;
  } else {
    carrier.action->update_remains_lazy(EngineImpl::get_clock());
  }
  flow->carrier_     = &carrier;
  flow->carried_end_ = {carrier.moved + flow->get_remains_no_update(), carrier.joined++};
  carrier.flows.emplace(flow->carried_end_, flow);
  carrier_weigh(carrier, 1);
}

void NetworkCm02Model::carrier_weigh(FlowCarrier& carrier, int flows)
{
  for (auto const* link : carrier.route)
    get_maxmin_system()->expand(link->get_constraint(), carrier.action->get_variable(), 1.0 * flows);
  for (auto const* link : carrier.back_route)
    get_maxmin_system()->expand(link->get_constraint(), carrier.action->get_variable(), .05 * flows);
  carrier.action->set_remains(carrier.flows.begin()->first.first - carrier.moved);
  get_action_heap().remove(carrier.action); // its constraints changed: the next solve dates it
}

void NetworkCm02Model::carrier_due(FlowCarrier& carrier)
{
  carrier.action->update_remains_lazy(EngineImpl::get_clock());
  // the flows that end within the date's precision end now, as their own actions would
  const double close = std::max(sg_maxmin_precision * sg_surf_precision, carrier.action->get_rate() * sg_surf_precision);
  int ended = 0;
  while (not carrier.flows.empty()) {
    auto first = carrier.flows.begin();
    if (ended > 0 && first->first.first - carrier.moved > close)
      break;
    NetworkCm02Action* flow = first->second;
    carrier.flows.erase(first);
    flow->carrier_ = nullptr;
    flow->finish(Action::State::FINISHED);
    ++ended;
  }
  carrier_release(carrier, ended);
}

void NetworkCm02Model::carrier_leave(NetworkCm02Action* flow)
{
  FlowCarrier& carrier = *flow->carrier_;
  carrier.action->update_remains_lazy(EngineImpl::get_clock());
  carrier.flows.erase(flow->carried_end_);
  flow->carrier_ = nullptr;
  carrier_release(carrier, 1);
}

void NetworkCm02Model::carrier_release(FlowCarrier& carrier, int flows)
{
  if (carrier.flows.empty()) { // its variable leaves the links with it
    delete carrier.action;
    carriers_.erase(carrier.key);
    return;
  }
  carrier_weigh(carrier, -flows);
}

NetworkCm02Action::~NetworkCm02Action()
{
  if (carrier_ != nullptr && not is_carrier_)
    static_cast<NetworkCm02Model*>(get_model())->carrier_leave(this);
}
CPP
)
CARRIERS=$CARRIERS perl -0pi -e 's{(\} // namespace simgrid::kernel::resource\n)\z}{$ENV{CARRIERS}\n$1}' "$NET_CPP"
[ "$(grep -c progsim "$NET_CPP")" -ge 8 ] && [ "$(grep -c 'progsim' "$NET_HPP")" -ge 4 ] \
  && grep -q 'carrier_due(\*action->carrier_);' "$NET_CPP" && grep -q 'NetworkCm02Action::~NetworkCm02Action' "$NET_CPP" \
  && grep -q 'if (action->carried_) // progsim' "$NET_CPP" && grep -q '  action->carried_ = cfg_carry_flows' "$NET_CPP" \
  && grep -q 'size_t constraints_per_variable = action->carried_ ? 0' "$NET_CPP" && grep -q 'if (action->carried_) { // progsim' "$NET_CPP" \
  && grep -q 'action->bw_factor_ = bw_factor;' "$NET_CPP" && grep -q 'std::map<FlowCarrier::Key, FlowCarrier> carriers_;' "$NET_HPP" \
  || { say "the carriers change did not apply to $NET_CPP and $NET_HPP as expected"; exit 1; }

# The route cache (network/route-cache, off unless set): the network model keeps the route between two hosts, its
# latency and the route back, computed once, where 3.32 walks the zone tree for every transfer (and the carriers for
# each new carrier). Routes do not change once the platform is sealed; whether their links are on is read anew at
# each transfer. It holds at most 262 144 pairs of hosts, and starts again empty when full.
ROUTE_CACHE_TYPES=$(cat <<'CPP'
/* progsim: a route between two hosts, its latency and the route back, as comm_get_route_info computes them */
struct KnownRoute {
  std::vector<StandardLinkImpl*> route;
  std::vector<StandardLinkImpl*> back_route;
  double latency = 0.0;
};

CPP
)
ROUTE_CACHE_TYPES=$ROUTE_CACHE_TYPES perl -0pi -e 's{(/\*\*\*\*\*\*\*\*\*\n \* Model \*\n \*\*\*\*\*\*\*\*\*/\n)}{$ENV{ROUTE_CACHE_TYPES}\n$1}' "$NET_HPP"
perl -0pi -e 's{(#include "xbt/string.hpp"\n)}{$1#include <boost/functional/hash.hpp>\n#include <unordered_map>\n}' "$NET_HPP"
perl -0pi -e 's{(                           std::unordered_set<kernel::routing::NetZoneImpl\*>& netzones\) const;\n)}{$1  // progsim: the routes computed so far, by pair of hosts (network/route-cache)\n  using HostPair = std::pair<const s4u::Host*, const s4u::Host*>;\n  mutable std::unordered_map<HostPair, KnownRoute, boost::hash<HostPair>> known_routes_;\n}' "$NET_HPP"
perl -0pi -e 's{(static simgrid::config::Flag<bool> cfg_carry_flows\()}{static simgrid::config::Flag<bool> cfg_route_cache( // progsim\n    "network/route-cache", "Whether the network model keeps the routes it computed, by pair of hosts", false);\n$1}' "$NET_CPP"
ROUTE_CACHE=$(cat <<'CPP'
  if (cfg_route_cache && not lat_factor_cb_ && not bw_factor_cb_ && route.empty() && back_route.empty() &&
      latency == 0.0) { // progsim: the route as computed the first time (the callbacks would want its zones)
    constexpr size_t kMostRoutes = size_t{1} << 18;
    auto known = known_routes_.find({src, dst});
    if (known == known_routes_.end()) {
      if (known_routes_.size() >= kMostRoutes)
        known_routes_.clear();
      KnownRoute computed;
      std::unordered_set<kernel::routing::NetZoneImpl*> zones;
      kernel::routing::NetZoneImpl::get_global_route_with_netzones(src->get_netpoint(), dst->get_netpoint(),
                                                                   computed.route, &computed.latency, zones);
      if (cfg_crosstraffic)
        dst->route_to(src, computed.back_route, nullptr);
      known = known_routes_.emplace(HostPair{src, dst}, std::move(computed)).first;
    }
    latency = known->second.latency;
    route   = known->second.route;
    xbt_assert(not route.empty() || latency > 0,
               "You're trying to send data from %s to %s but there is no connecting path between these two hosts.",
               src->get_cname(), dst->get_cname());
    bool failed = std::any_of(route.begin(), route.end(), [](const StandardLinkImpl* link) { return not link->is_on(); });
    if (not failed && cfg_crosstraffic) {
      back_route = known->second.back_route;
      failed     = std::any_of(back_route.begin(), back_route.end(),
                               [](const StandardLinkImpl* link) { return not link->is_on(); });
    }
    return failed;
  }
CPP
)
ROUTE_CACHE=$ROUTE_CACHE perl -0pi -e 's{(                                           std::unordered_set<kernel::routing::NetZoneImpl\*>& netzones\) const\n\{\n)}{$1$ENV{ROUTE_CACHE}\n}' "$NET_CPP"
[ "$(grep -c 'progsim: the route as computed the first time' "$NET_CPP")" = 1 ] \
  && [ "$(grep -c 'cfg_route_cache' "$NET_CPP")" = 2 ] && [ "$(grep -c 'known_routes_;' "$NET_HPP")" = 1 ] \
  && [ "$(grep -c 'struct KnownRoute' "$NET_HPP")" = 1 ] \
  || { say "the route cache change did not apply to $NET_CPP and $NET_HPP as expected"; exit 1; }

# SMPI's C tools are built (smpirun, smpicc, the replay), not Fortran, Java, Python or the documentation.
rm -rf "$PREFIX"
cd "$WORK" # SimGrid's configure test leaves a test_stackgrowth binary in the current folder
cmake -S "$SOURCE" -B "$WORK/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" \
  -Denable_smpi=ON -Denable_fortran=OFF -Denable_java=OFF -Denable_python=OFF -Denable_documentation=OFF \
  -Denable_model-checking=OFF -Denable_ns3=OFF -Denable_msg=OFF -Denable_compile_warnings=OFF >>"$LOG" 2>&1 \
  || { say "configuring SimGrid failed (see $LOG)"; exit 1; }
cmake --build "$WORK/build" >>"$LOG" 2>&1 || { say "building SimGrid failed (see $LOG)"; exit 1; }
cmake --install "$WORK/build" --strip >>"$LOG" 2>&1 || { say "installing SimGrid failed (see $LOG)"; exit 1; }
echo "$CHANGES" >"$STAMP"
say "done"
echo "$PREFIX"
