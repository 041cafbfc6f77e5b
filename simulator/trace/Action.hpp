/* One parsed line of an SMPI time-independent trace. */
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace progsim::trace {

/** Every action that SimGrid 3.32's replayer registers (src/smpi/internals/smpi_replay.cpp). */
enum class ActionType : uint8_t {
  Init,
  Finalize,
  CommSize,
  CommSplit,
  CommDup,
  Send,
  Isend,
  Recv,
  Irecv,
  Test,
  Wait,
  WaitAll,
  SendRecv,
  Barrier,
  Bcast,
  Reduce,
  AllReduce,
  AllToAll,
  AllToAllV,
  Gather,
  GatherV,
  Scatter,
  ScatterV,
  AllGather,
  AllGatherV,
  ReduceScatter,
  Scan,
  ExScan,
  Compute,
  Sleep,
  Location,
};

/** The trace spelling of an action ("allreduce", "sendRecv", ...). */
std::string_view action_name(ActionType type);
/** Looks an action up by its trace spelling; returns false when the name is unknown. */
bool action_from_name(std::string_view name, ActionType& type);
/** A non-blocking collective as SMPI 3.32's tracer spells it ("ibcast", "iallreduce", ...: "i" and the blocking
 * form's name, with its arguments): its blocking type; returns false for any other name. */
bool nonblocking_collective_from_name(std::string_view name, ActionType& type);
/** Whether `type` is a collective operation. */
bool is_collective(ActionType type);
/** SMPI's internal tag for the messages of a blocking collective of `type` (SMPI 3.32, src/smpi/include/private.hpp;
 * 0 for other actions). */
int collective_tag(ActionType type);
/** The tag of the request of a non-blocking collective of `type`, which the trace's `wait` and `test` lines name:
 * SMPI's internal tag of the collective minus one (SMPI 3.32, src/smpi/colls/smpi_nbc_impl.cpp; its messages carry
 * it too). Their `src` and `dst` are whatever SMPI's request held, not ranks to rely on. */
int nonblocking_request_tag(ActionType type);
/** Whether a wait or test's `tag` names a non-blocking collective's request. */
bool is_nonblocking_request_tag(int tag);

/**
 * A trace action with its sizes already converted to bytes.
 *
 * Field use by action (counts are in bytes once parsed):
 *  - send/isend/recv/irecv: peer = partner, tag, bytes (negative: "probe for the size", recv only)
 *  - wait/test: peer = src, peer2 = dst, tag
 *  - sendRecv: peer = dst, peer2 = src, bytes = sent, bytes2 = received
 *  - bcast: bytes, root; reduce: bytes, flops (comp_size), root; allreduce/scan/exscan: bytes, flops; all four:
 *    bytes2 = element size
 *  - alltoall/gather/allgather/scatter: bytes = per-peer send size, bytes2 = per-peer receive size, root
 *  - gatherv/allgatherv: bytes = send size, vector = receive counts; scatterv: vector = send counts, bytes2 = recv
 *  - alltoallv: vector = send counts, vector2 = receive counts
 *  - reducescatter: vector = receive counts, bytes2 = element size, flops
 *  - compute: flops; sleep: seconds (in flops)
 */
struct Action {
  ActionType type = ActionType::Init;
  int32_t peer    = 0;
  int32_t peer2   = 0;
  int32_t tag     = 0;
  int32_t root    = 0;
  uint32_t line   = 0;     // line number in the source file, for messages
  int64_t bytes   = 0;     // of a message; of a compute, the bytes it moves through memory (-1: not given)
  int64_t bytes2  = 0;
  double flops    = 0.0;
  uint32_t vector  = 0;    // offset of a per-rank byte vector in the CountPool of the action's reader
  uint32_t vector2 = 0;
  bool nonblocking = false; // a collective's non-blocking form (ibcast, ...): a wait or test completes it
};

/** The per-peer byte vectors of v-collectives, which actions address by offset (Action::vector, vector2). */
using CountPool = std::vector<int64_t>;

} // namespace progsim::trace
