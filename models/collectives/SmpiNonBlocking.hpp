/*
 * The non-blocking collectives of SimGrid 3.32's SMPI (src/smpi/colls/smpi_nbc_impl.cpp) as schedules: each posts
 * all its messages at once, in one round, under its request's tag (trace::nonblocking_request_tag: what SMPI's tracer
 * writes in the `wait` and `test` lines that complete it). Sizes are in bytes.
 */
#pragma once

#include "mpi/Schedule.hpp"

namespace progsim::models::collectives::smpi_nonblocking {

/** `rank`'s schedule of the non-blocking form of `action` (one round). */
mpi::Schedule schedule(const trace::Action& action, int rank, int size, const trace::CountPool& counts);

} // namespace progsim::models::collectives::smpi_nonblocking
