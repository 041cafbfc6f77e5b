/* The point-to-point calls a collective algorithm is written with. */
#pragma once

#include "mpi/Request.hpp"

#include <cstdint>
#include <vector>

namespace progsim::models::collectives {

/** The view of one rank that collective algorithms use; messages travel in the collective context. */
class PointToPoint {
public:
  virtual ~PointToPoint() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual mpi::RequestPtr isend(int destination, int tag, int64_t bytes) = 0;
  virtual mpi::RequestPtr irecv(int source, int tag, int64_t bytes) = 0;
  virtual void wait(const mpi::RequestPtr& request) = 0;

  void wait_all(const std::vector<mpi::RequestPtr>& requests)
  {
    for (auto const& request : requests)
      wait(request);
  }
  void send(int destination, int tag, int64_t bytes) { wait(isend(destination, tag, bytes)); }
  void recv(int source, int tag, int64_t bytes) { wait(irecv(source, tag, bytes)); }
  /** MPI_Sendrecv: both posted (send first), then both waited. A message to oneself is a local copy. */
  void sendrecv(int destination, int64_t send_bytes, int source, int64_t recv_bytes, int tag)
  {
    if (destination == rank() && source == rank())
      return;
    auto s = isend(destination, tag, send_bytes);
    auto r = irecv(source, tag, recv_bytes);
    wait(s);
    wait(r);
  }
};

} // namespace progsim::models::collectives
