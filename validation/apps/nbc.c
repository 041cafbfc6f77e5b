/*
 * nbc.c -- calls every non-blocking collective that SimGrid 3.32's tracer writes into time-independent traces, each
 * overlapped with some computation and completed the ways applications do:
 *   MPI_Ibarrier, Ibcast, Ireduce, Iallreduce, Ialltoall, Ialltoallv, Igather, Igatherv, Iscatter, Iscatterv,
 *   Iallgather, Iallgatherv, Ireduce_scatter, Iscan, Iexscan;
 * completed by MPI_Wait, by MPI_Test until done (with computation between tests), by MPI_Waitall over two
 * collectives in flight at once, and one mixed with point-to-point requests.
 *
 * Usage: nbc [ROUNDS] [ELEMENTS] [TESTS]
 *   ROUNDS    repetitions of the whole sequence (default 1)
 *   ELEMENTS  doubles per rank and peer in the large collectives (default 16384: 128 KiB, past the eager limits)
 *   TESTS     1 (default): two collectives are completed by MPI_Test loops; 0: by MPI_Wait after the same
 *             computation (SMPI charges each MPI_Test a sleep that grows with a counter shared by all ranks, so
 *             a run with tests depends on the order in which the simulator runs ranks at equal times)
 *
 * Deterministic: no randomness, no timer influences the control flow (the number of tests of a collective
 * depends only on the simulated completion, which SMPI computes deterministically). Computation is real loops
 * whose analytic flop count is reported through smpi_execute_flops() when built with smpicc.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void account_flops(double flops)
{
#ifdef SMPI_SAMPLE_FLOPS
  smpi_execute_flops(flops);
#else
  (void)flops;
#endif
}

/* Computation overlapping a collective: n multiply-adds over buf. */
static double overlap(double* buf, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    buf[i] = buf[i] * 0.5 + 1.0;
    s += buf[i];
  }
  account_flops(3.0 * n);
  return s;
}

/* Tests `request` until it completes, computing between two tests (or computes once and waits). */
static double test_until_done(MPI_Request* request, double* work, int n, int tests_allowed)
{
  if (!tests_allowed) {
    double s = overlap(work, n);
    MPI_Wait(request, MPI_STATUS_IGNORE);
    return s;
  }
  double s  = 0.0;
  int done  = 0;
  int tests = 0;
  while (!done && tests < 1000) {
    s += overlap(work, n);
    MPI_Test(request, &done, MPI_STATUS_IGNORE);
    tests++;
  }
  if (!done)
    MPI_Wait(request, MPI_STATUS_IGNORE);
  return s;
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rounds   = argc > 1 ? atoi(argv[1]) : 1;
  int elements = argc > 2 ? atoi(argv[2]) : 16384;
  int tests    = argc > 3 ? atoi(argv[3]) : 1;
  if (rounds < 1 || elements < size) {
    if (rank == 0)
      fprintf(stderr, "usage: nbc [ROUNDS >= 1] [ELEMENTS >= ranks]\n");
    MPI_Finalize();
    return 1;
  }
  const int small  = 16;                  /* doubles: eager everywhere */
  const int chunk  = elements / size;     /* per peer in the all-to-all patterns */
  double* send     = calloc((size_t)elements * size, sizeof(double));
  double* recv     = calloc((size_t)elements * size, sizeof(double));
  double* recv2    = calloc((size_t)elements * size, sizeof(double));
  double* work     = calloc(4096, sizeof(double));
  int* counts      = malloc(size * sizeof(int));
  int* displs      = malloc(size * sizeof(int));
  int* rcounts     = malloc(size * sizeof(int));
  int* rdispls     = malloc(size * sizeof(int));
  int* scatter     = malloc(size * sizeof(int));
  for (int i = 0; i < size; i++) {
    counts[i]  = 1 + (i + rank) % 4;      /* uneven send counts */
    rcounts[i] = 1 + (rank + i) % 4;      /* what rank i sends here: (i + rank) % 4 + 1 */
    scatter[i] = 1 + i % 3;
  }
  for (int i = 0, d = 0, r = 0; i < size; i++) {
    displs[i]  = d;
    rdispls[i] = r;
    d += counts[i];
    r += rcounts[i];
  }
  int* gcounts = malloc(size * sizeof(int)); /* gatherv / allgatherv: rank i contributes 1 + i % 3 */
  int* gdispls = malloc(size * sizeof(int));
  for (int i = 0, d = 0; i < size; i++) {
    gcounts[i] = 1 + i % 3;
    gdispls[i] = d;
    d += gcounts[i];
  }
  int* rscounts = malloc(size * sizeof(int));
  for (int i = 0; i < size; i++)
    rscounts[i] = chunk;

  double sink = 0.0;
  MPI_Request r[4];
  for (int round = 0; round < rounds; round++) {
    /* One at a time, completed by MPI_Wait after some computation. */
    MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
    sink += overlap(work, 1000);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);

    MPI_Ibcast(send, elements, MPI_DOUBLE, 1 % size, MPI_COMM_WORLD, &r[0]);
    sink += overlap(work, 4000);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);

    MPI_Ireduce(send, recv, small, MPI_DOUBLE, MPI_SUM, 2 % size, MPI_COMM_WORLD, &r[0]);
    sink += overlap(work, 1000);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);

    /* Completed by tests, computing in between. */
    MPI_Iallreduce(send, recv, elements, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    sink += test_until_done(&r[0], work, 2000, tests);

    MPI_Ialltoall(send, chunk, MPI_DOUBLE, recv, chunk, MPI_DOUBLE, MPI_COMM_WORLD, &r[0]);
    sink += test_until_done(&r[0], work, 2000, tests);

    /* Two in flight at once, completed together. */
    MPI_Ialltoallv(send, counts, displs, MPI_DOUBLE, recv, rcounts, rdispls, MPI_DOUBLE, MPI_COMM_WORLD, &r[0]);
    MPI_Igather(send, small, MPI_DOUBLE, recv2, small, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[1]);
    sink += overlap(work, 3000);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);

    MPI_Igatherv(send, gcounts[rank], MPI_DOUBLE, recv, gcounts, gdispls, MPI_DOUBLE, 3 % size, MPI_COMM_WORLD,
                 &r[0]);
    MPI_Iscatter(send, small, MPI_DOUBLE, recv2, small, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[1]);
    sink += overlap(work, 1000);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE); /* the later one first */
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);

    int displ = 0;
    int* sdispls = malloc(size * sizeof(int));
    for (int i = 0; i < size; i++) {
      sdispls[i] = displ;
      displ += scatter[i];
    }
    MPI_Iscatterv(send, scatter, sdispls, MPI_DOUBLE, recv, scatter[rank], MPI_DOUBLE, 1 % size, MPI_COMM_WORLD,
                  &r[0]);
    sink += overlap(work, 1000);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    free(sdispls);

    MPI_Iallgather(send, chunk, MPI_DOUBLE, recv, chunk, MPI_DOUBLE, MPI_COMM_WORLD, &r[0]);
    sink += overlap(work, 4000);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);

    MPI_Iallgatherv(send, gcounts[rank], MPI_DOUBLE, recv, gcounts, gdispls, MPI_DOUBLE, MPI_COMM_WORLD, &r[0]);
    sink += overlap(work, 1000);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);

    MPI_Ireduce_scatter(send, recv, rscounts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    sink += overlap(work, 2000);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);

    /* Scans, and a collective mixed with point-to-point requests in one waitall. */
    MPI_Iscan(send, recv, small, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    MPI_Iexscan(send, recv2, small, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(send, small, MPI_DOUBLE, (rank + 1) % size, 7, MPI_COMM_WORLD, &r[2]);
    MPI_Irecv(recv, small, MPI_DOUBLE, (rank + size - 1) % size, 7, MPI_COMM_WORLD, &r[3]);
    sink += overlap(work, 1000);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
  }
  if (rank == 0 && sink < 0) /* keep the computation */
    printf("%g\n", sink);
  free(send);
  free(recv);
  free(recv2);
  free(work);
  free(counts);
  free(displs);
  free(rcounts);
  free(rdispls);
  free(scatter);
  free(gcounts);
  free(gdispls);
  free(rscounts);
  MPI_Finalize();
  return 0;
}
