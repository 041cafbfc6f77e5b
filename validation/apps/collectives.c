/*
 * collectives.c -- calls every collective that SimGrid 3.32's trace replay
 * knows, with some computation between them:
 *   MPI_Barrier, Bcast, Reduce, Allreduce, Alltoall, Alltoallv, Gather,
 *   Gatherv, Scatter, Scatterv, Allgather, Allgatherv, Reduce_scatter,
 *   Scan, Exscan.
 *
 * Usage: collectives [ROUNDS] [SPLIT]
 *   ROUNDS  repetitions of the whole sequence (default 1)
 *   SPLIT   if 1, also create communicators with MPI_Comm_split and use a
 *           collective on them (default 0, see below)
 *
 * MPI_Comm_dup is always exercised: an MPI_Allreduce runs on a duplicate of
 * MPI_COMM_WORLD (same group, so the traced action replays correctly).
 * SimGrid 3.32 does NOT record MPI_Comm_split/MPI_Comm_dup in TI traces, and
 * the replayer runs every collective on MPI_COMM_WORLD; a collective on a
 * split communicator is therefore traced with sub-communicator counts/roots
 * and would not replay faithfully -- hence SPLIT defaults to 0.
 *
 * Each collective is called with small, rank-dependent (but deterministic)
 * counts, non-zero roots where a root exists, and the v-variants use uneven
 * counts. Deterministic: no randomness, no timer influences the control flow.
 *
 * Compute accounting: see halo2d.c -- real loops run, and their analytic flop
 * count is reported through smpi_execute_flops() when built with smpicc.
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

/* Some real work between collectives: n multiply-adds over buf. */
static double work(double* buf, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    buf[i] = buf[i] * 0.5 + 1.0;
    s += buf[i];
  }
  account_flops(3.0 * n);
  return s;
}

#define BASE 1024 /* base element count */

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rounds    = argc > 1 ? atoi(argv[1]) : 1;
  int use_split = argc > 2 ? atoi(argv[2]) : 0;

  /* Buffers large enough for every call below (size * 4 * BASE elements). */
  size_t big  = (size_t)size * 4 * BASE;
  double* sd  = malloc(sizeof(double) * big);
  double* rd  = malloc(sizeof(double) * big);
  int* si     = malloc(sizeof(int) * big);
  int* ri     = malloc(sizeof(int) * big);
  double* wk  = malloc(sizeof(double) * 8 * BASE);
  int* scnt   = malloc(sizeof(int) * size);
  int* sdisp  = malloc(sizeof(int) * size);
  int* rcnt   = malloc(sizeof(int) * size);
  int* rdisp  = malloc(sizeof(int) * size);
  for (size_t i = 0; i < big; i++) {
    sd[i] = (double)((rank + i) % 17);
    si[i] = (int)((rank * 7 + i) % 23);
  }
  for (int i = 0; i < 8 * BASE; i++)
    wk[i] = (double)(i % 11);
  double chk = 0.0;
  int root   = size > 3 ? 3 : size - 1; /* a non-zero root */

  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);

  for (int r = 0; r < rounds; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    chk += work(wk, BASE);

    MPI_Bcast(sd, 4 * BASE, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(si, BASE, MPI_INT, root, MPI_COMM_WORLD);
    chk += work(wk, 2 * BASE);

    MPI_Reduce(sd, rd, 2 * BASE, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(si, ri, BASE, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD);
    chk += work(wk, BASE);

    MPI_Allreduce(sd, rd, BASE, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(si, ri, 1, MPI_INT, MPI_MIN, dup); /* on the MPI_Comm_dup copy */
    chk += work(wk, 4 * BASE);

    /* Alltoall: 64 doubles per peer. */
    MPI_Alltoall(sd, 64, MPI_DOUBLE, rd, 64, MPI_DOUBLE, MPI_COMM_WORLD);
    chk += work(wk, BASE);

    /* Alltoallv: rank i sends (i + j) % 5 * 16 + 8 ints to rank j. */
    int stot = 0, rtot = 0;
    for (int j = 0; j < size; j++) {
      scnt[j]  = ((rank + j) % 5) * 16 + 8;
      rcnt[j]  = ((j + rank) % 5) * 16 + 8; /* what j sends to me */
      sdisp[j] = stot;
      rdisp[j] = rtot;
      stot += scnt[j];
      rtot += rcnt[j];
    }
    MPI_Alltoallv(si, scnt, sdisp, MPI_INT, ri, rcnt, rdisp, MPI_INT, MPI_COMM_WORLD);
    chk += work(wk, BASE);

    /* Gather / Gatherv to a non-zero root. */
    MPI_Gather(sd, 128, MPI_DOUBLE, rd, 128, MPI_DOUBLE, root, MPI_COMM_WORLD);
    int mine = 32 + 8 * (rank % 4), tot = 0;
    for (int j = 0; j < size; j++) {
      rcnt[j]  = 32 + 8 * (j % 4);
      rdisp[j] = tot;
      tot += rcnt[j];
    }
    MPI_Gatherv(sd, mine, MPI_DOUBLE, rd, rcnt, rdisp, MPI_DOUBLE, root, MPI_COMM_WORLD);
    chk += work(wk, 2 * BASE);

    /* Scatter / Scatterv from root 0. */
    MPI_Scatter(si, 256, MPI_INT, ri, 256, MPI_INT, 0, MPI_COMM_WORLD);
    tot = 0;
    for (int j = 0; j < size; j++) {
      scnt[j]  = 64 + 16 * (j % 3);
      sdisp[j] = tot;
      tot += scnt[j];
    }
    MPI_Scatterv(si, scnt, sdisp, MPI_INT, ri, 64 + 16 * (rank % 3), MPI_INT, 0, MPI_COMM_WORLD);
    chk += work(wk, BASE);

    /* Allgather / Allgatherv. */
    MPI_Allgather(sd, 32, MPI_DOUBLE, rd, 32, MPI_DOUBLE, MPI_COMM_WORLD);
    tot = 0;
    for (int j = 0; j < size; j++) {
      rcnt[j]  = 16 + 4 * (j % 5);
      rdisp[j] = tot;
      tot += rcnt[j];
    }
    MPI_Allgatherv(sd, 16 + 4 * (rank % 5), MPI_DOUBLE, rd, rcnt, rdisp, MPI_DOUBLE, MPI_COMM_WORLD);
    chk += work(wk, 2 * BASE);

    /* Reduce_scatter: rank j gets 48 + 8 * (j % 2) reduced doubles. */
    for (int j = 0; j < size; j++)
      rcnt[j] = 48 + 8 * (j % 2);
    MPI_Reduce_scatter(sd, rd, rcnt, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    chk += work(wk, BASE);

    /* Prefix reductions. */
    MPI_Scan(sd, rd, 512, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(si, ri, 128, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    chk += work(wk, BASE);

    if (use_split) {
      /* Not replay-safe with SimGrid 3.32, see header comment. */
      MPI_Comm half;
      MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
      MPI_Allreduce(sd, rd, 8, MPI_DOUBLE, MPI_SUM, half);
      MPI_Comm_free(&half);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }

  double total = 0.0;
  MPI_Reduce(&chk, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("collectives: %d ranks, %d round(s), checksum %.6e\n", size, rounds, total);

  MPI_Comm_free(&dup);
  free(sd);
  free(rd);
  free(si);
  free(ri);
  free(wk);
  free(scnt);
  free(sdisp);
  free(rcnt);
  free(rdisp);
  MPI_Finalize();
  return 0;
}
