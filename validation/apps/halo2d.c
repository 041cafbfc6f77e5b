/*
 * halo2d.c -- 2-D Jacobi-like halo exchange on a px x py periodic process grid.
 *
 * Usage: halo2d PX PY ITERS HALO_BYTES K [N]
 *   PX, PY      process grid (PX*PY must equal the number of ranks)
 *   ITERS       number of iterations
 *   HALO_BYTES  size of each of the 4 halo messages, in bytes (sent as MPI_DOUBLE)
 *   K           an MPI_Allreduce of the residual is done every K iterations
 *   N           side of the local N x N block swept by the compute loop (default 256)
 *
 * One iteration, per rank:
 *   4 x MPI_Irecv (one per neighbour, one tag per direction)
 *   4 x MPI_Isend (edges of the local block, replicated to HALO_BYTES)
 *   a Jacobi sweep over the local N x N block (real floating-point work)
 *   MPI_Waitall on the 8 requests, then the received halos become ghost cells
 *   every K iterations: MPI_Allreduce(SUM) of the local residual
 *
 * The halo size is decoupled from N on purpose, so that any message size can be
 * exercised (e.g. 32 KiB, below SMPI's 64 KiB eager/detached threshold, and
 * 256 KiB, above it) without a huge local block.
 *
 * Deterministic: no randomness, no timer influences the control flow.
 *
 * Compute accounting: when built with smpicc (SMPI's mpi.h defines
 * SMPI_SAMPLE_FLOPS), the sweep's analytic flop count is handed to
 * smpi_execute_flops(), so the traced "compute" action is the same on every run.
 * The capture script runs with --cfg=smpi/simulate-computation:no so that the
 * wall-clock time of the real loop (which varies from run to run) is NOT injected.
 * Built with any other MPI, account_flops() is a no-op.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Report `flops` of computation to SMPI's tracer (no-op outside SMPI). */
static void account_flops(double flops)
{
#ifdef SMPI_SAMPLE_FLOPS
  smpi_execute_flops(flops);
#else
  (void)flops;
#endif
}

enum { NORTH = 0, SOUTH = 1, WEST = 2, EAST = 3 };

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  if (argc < 6) {
    if (rank == 0)
      fprintf(stderr, "usage: %s PX PY ITERS HALO_BYTES K [N]\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int px = atoi(argv[1]), py = atoi(argv[2]), iters = atoi(argv[3]);
  int halo = atoi(argv[4]) / (int)sizeof(double); /* doubles per halo message */
  int k    = atoi(argv[5]);
  int n    = argc > 6 ? atoi(argv[6]) : 256;
  if (px * py != size || halo < 1 || k < 1 || n < 3) {
    if (rank == 0)
      fprintf(stderr, "bad arguments (PX*PY=%d, ranks=%d)\n", px * py, size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  /* Periodic grid coordinates and the 4 neighbours. */
  int cx = rank % px, cy = rank / px;
  int nb[4];
  nb[NORTH] = ((cy + py - 1) % py) * px + cx;
  nb[SOUTH] = ((cy + 1) % py) * px + cx;
  nb[WEST]  = cy * px + (cx + px - 1) % px;
  nb[EAST]  = cy * px + (cx + 1) % px;
  /* A message sent towards direction d is received as coming from opposite(d). */
  static const int opposite[4] = {SOUTH, NORTH, EAST, WEST};

  /* Local block with a 1-cell ghost ring: (n+2) x (n+2), two copies. */
  int w     = n + 2;
  double* u = malloc(sizeof(double) * w * w);
  double* v = malloc(sizeof(double) * w * w);
  for (int i = 0; i < w * w; i++)
    u[i] = v[i] = (double)((rank * 131 + i) % 97) / 97.0;

  double* sbuf[4];
  double* rbuf[4];
  for (int d = 0; d < 4; d++) {
    sbuf[d] = malloc(sizeof(double) * halo);
    rbuf[d] = malloc(sizeof(double) * halo);
  }

  double global_res = 0.0;
  for (int it = 0; it < iters; it++) {
    MPI_Request req[8];

    /* 1. Post the 4 receives; the tag is the direction the data travels. */
    for (int d = 0; d < 4; d++)
      MPI_Irecv(rbuf[d], halo, MPI_DOUBLE, nb[d], opposite[d], MPI_COMM_WORLD, &req[d]);

    /* 2. Pack the block edges (replicated up to the halo length) and send. */
    for (int i = 0; i < halo; i++) {
      int j           = 1 + i % n;
      sbuf[NORTH][i]  = u[1 * w + j];
      sbuf[SOUTH][i]  = u[n * w + j];
      sbuf[WEST][i]   = u[j * w + 1];
      sbuf[EAST][i]   = u[j * w + n];
    }
    for (int d = 0; d < 4; d++)
      MPI_Isend(sbuf[d], halo, MPI_DOUBLE, nb[d], d, MPI_COMM_WORLD, &req[4 + d]);

    /* 3. Jacobi sweep over the interior (overlaps the communication). */
    double res = 0.0;
    for (int y = 1; y <= n; y++)
      for (int x = 1; x <= n; x++) {
        double nv      = 0.25 * (u[(y - 1) * w + x] + u[(y + 1) * w + x] + u[y * w + x - 1] + u[y * w + x + 1]);
        double diff    = nv - u[y * w + x];
        v[y * w + x]   = nv;
        res           += diff * diff;
      }
    account_flops(7.0 * n * n); /* 3 add + 1 mul + 1 sub + 2 (res) per point */
    double* t = u;
    u         = v;
    v         = t;

    /* 4. Complete the exchange and install the received halos as ghost cells. */
    MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
    for (int j = 1; j <= n; j++) {
      int i           = (j - 1) % halo;
      u[0 * w + j]    = rbuf[NORTH][i];
      u[(n + 1) * w + j] = rbuf[SOUTH][i];
      u[j * w + 0]    = rbuf[WEST][i];
      u[j * w + n + 1] = rbuf[EAST][i];
    }

    /* 5. Global residual every K iterations. */
    if ((it + 1) % k == 0)
      MPI_Allreduce(&res, &global_res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }

  if (rank == 0)
    printf("halo2d: %dx%d ranks, %d iters, halo %d B, residual %.6e\n", px, py, iters,
           halo * (int)sizeof(double), global_res);

  for (int d = 0; d < 4; d++) {
    free(sbuf[d]);
    free(rbuf[d]);
  }
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
