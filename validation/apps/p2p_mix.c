/*
 * p2p_mix.c -- point-to-point only workload (no collectives besides what
 * MPI_Init/MPI_Finalize imply). Needs an even number of ranks (>= 2).
 *
 * Usage: p2p_mix [ROUNDS]     (ROUNDS repetitions of the whole sequence, default 1)
 *
 * Phases (each one uses its own tag range so traces are easy to read):
 *   A. blocking ring, MPI_Send/MPI_Recv: even ranks send right then receive
 *      from the left, odd ranks do the opposite (no deadlock even for
 *      rendezvous-size messages). MPI_BYTE, 1 KiB .. 4 MiB.       tags 100+i
 *   B. MPI_Irecv + MPI_Isend + compute + MPI_Wait(recv) + MPI_Wait(send),
 *      with the pair partner (rank^1) and a distance-8 ring partner.
 *      MPI_DOUBLE, 1 KiB .. 4 MiB.                               tags 200+i, 250+i
 *   C. MPI_Sendrecv shifts by 1, 3, 8, 17, 32 (mod size), MPI_INT,
 *      1 KiB .. 4 MiB.                                           tags 300+i
 *   D. MPI_Test polling: a request is polled with MPI_Test while the rank
 *      computes, in two flavours:
 *        D1 poll the receive until it completes (then MPI_Wait the send),
 *        D2 poll at most 3 times, then MPI_Wait both requests.
 *      MPI_CHAR, 1 KiB and 4 MiB.                              tags 400+i
 *
 * Deterministic: no randomness, no wall-clock timer influences the control
 * flow. The number of MPI_Test calls in D1 depends only on the SIMULATED
 * arrival time, which is itself deterministic for a given platform.
 *
 * Compute accounting: see halo2d.c -- real loops run, and their analytic flop
 * count is reported through smpi_execute_flops() when built with smpicc.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void account_flops(double flops)
{
#ifdef SMPI_SAMPLE_FLOPS
  smpi_execute_flops(flops);
#else
  (void)flops;
#endif
}

/* A little real work: n multiply-adds over buf; returns a checksum. */
static double work(const double* buf, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s = s * 0.999 + buf[i];
  account_flops(2.0 * n);
  return s;
}

#define KiB 1024
#define MiB (1024 * 1024)
#define MAXBYTES (4 * MiB)

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2 || size % 2 != 0) {
    if (rank == 0)
      fprintf(stderr, "p2p_mix needs an even number of ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int rounds = argc > 1 ? atoi(argv[1]) : 1;

  char* sbuf = malloc(MAXBYTES);
  char* rbuf = malloc(MAXBYTES);
  for (int i = 0; i < MAXBYTES; i++)
    sbuf[i] = (char)((rank + i) & 0x7f);
  memset(rbuf, 0, MAXBYTES);
  double* wbuf = malloc(sizeof(double) * 65536); /* operand of the compute loops */
  for (int i = 0; i < 65536; i++)
    wbuf[i] = (double)(i % 13);
  double check = 0.0;

  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  static const int sizes[] = {1 * KiB, 4 * KiB, 32 * KiB, 64 * KiB, 256 * KiB, 1 * MiB, 4 * MiB};
  const int nsizes         = (int)(sizeof sizes / sizeof sizes[0]);

  for (int r = 0; r < rounds; r++) {
    /* ---- A. blocking ring ---- */
    for (int i = 0; i < nsizes; i++) {
      int n = sizes[i];
      if (rank % 2 == 0) {
        MPI_Send(sbuf, n, MPI_BYTE, right, 100 + i, MPI_COMM_WORLD);
        MPI_Recv(rbuf, n, MPI_BYTE, left, 100 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(rbuf, n, MPI_BYTE, left, 100 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(sbuf, n, MPI_BYTE, right, 100 + i, MPI_COMM_WORLD);
      }
      check += work(wbuf, 4096);
    }

    /* ---- B. nonblocking pairs completed with MPI_Wait ---- */
    for (int i = 0; i < nsizes; i++) {
      int cnt = sizes[i] / (int)sizeof(double);
      MPI_Request rr, sr;
      /* B1: exchange with the pair partner rank^1 */
      int partner = rank ^ 1;
      MPI_Irecv(rbuf, cnt, MPI_DOUBLE, partner, 200 + i, MPI_COMM_WORLD, &rr);
      MPI_Isend(sbuf, cnt, MPI_DOUBLE, partner, 200 + i, MPI_COMM_WORLD, &sr);
      check += work(wbuf, 8192);
      MPI_Wait(&rr, MPI_STATUS_IGNORE);
      MPI_Wait(&sr, MPI_STATUS_IGNORE);
      /* B2: distance-8 ring, send first this time, wait for the send first */
      int to = (rank + 8) % size, from = (rank + size - 8 % size) % size;
      MPI_Isend(sbuf, cnt, MPI_DOUBLE, to, 250 + i, MPI_COMM_WORLD, &sr);
      MPI_Irecv(rbuf, cnt, MPI_DOUBLE, from, 250 + i, MPI_COMM_WORLD, &rr);
      check += work(wbuf, 8192);
      MPI_Wait(&sr, MPI_STATUS_IGNORE);
      MPI_Wait(&rr, MPI_STATUS_IGNORE);
    }

    /* ---- C. MPI_Sendrecv shifts ---- */
    static const int shifts[] = {1, 3, 8, 17, 32};
    for (int s = 0; s < 5; s++) {
      for (int i = 0; i < nsizes; i += 2) { /* 1 KiB, 32 KiB, 256 KiB, 4 MiB */
        int cnt = sizes[i] / (int)sizeof(int);
        int to = (rank + shifts[s]) % size, from = (rank + size - shifts[s] % size) % size;
        MPI_Sendrecv(sbuf, cnt, MPI_INT, to, 300 + s, rbuf, cnt, MPI_INT, from, 300 + s, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
      }
      check += work(wbuf, 16384);
    }

    /* ---- D. MPI_Test polling while computing ---- */
    static const int tsizes[] = {1 * KiB, 4 * MiB};
    for (int i = 0; i < 2; i++) {
      int n = tsizes[i];
      MPI_Request rr, sr;
      int flag = 0;
      /* D1: poll the receive until it is done */
      MPI_Irecv(rbuf, n, MPI_CHAR, left, 400 + i, MPI_COMM_WORLD, &rr);
      MPI_Isend(sbuf, n, MPI_CHAR, right, 400 + i, MPI_COMM_WORLD, &sr);
      while (!flag) {
        check += work(wbuf, 2048);
        MPI_Test(&rr, &flag, MPI_STATUS_IGNORE);
      }
      MPI_Wait(&sr, MPI_STATUS_IGNORE);
      /* D2: poll the send at most 3 times, then wait for everything */
      flag = 0;
      MPI_Irecv(rbuf, n, MPI_CHAR, right, 410 + i, MPI_COMM_WORLD, &rr);
      MPI_Isend(sbuf, n, MPI_CHAR, left, 410 + i, MPI_COMM_WORLD, &sr);
      for (int p = 0; p < 3 && !flag; p++) {
        check += work(wbuf, 4096);
        MPI_Test(&sr, &flag, MPI_STATUS_IGNORE);
      }
      if (!flag)
        MPI_Wait(&sr, MPI_STATUS_IGNORE);
      MPI_Wait(&rr, MPI_STATUS_IGNORE);
    }
  }

  if (rank == 0)
    printf("p2p_mix: %d ranks, %d round(s), checksum %.6e, last byte %d\n", size, rounds, check,
           (int)rbuf[MAXBYTES - 1]);
  free(sbuf);
  free(rbuf);
  free(wbuf);
  MPI_Finalize();
  return 0;
}
