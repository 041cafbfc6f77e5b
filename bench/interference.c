/*
 * interference.c: memory contention between a computation and a shared-memory transfer on a real MPI library
 * (two ranks of one node, each bound to its core).
 *
 * The set-up of Denis, Jeannot and Swartvagher (ICPP 2021, ../shared/literature/
 * denis-jeannot-swartvagher-2021-interferences.txt, Sec. 2.3 and 4) needs a ping-pong between two nodes and spare
 * cores to compute; on a two-core node the closest is this: rank 0 posts N messages of S bytes to rank 1
 * (MPI_Isend), then runs a STREAM TRIAD (c[i] = a[i] + q b[i]) over arrays far larger than the caches, then waits;
 * rank 1 receives the N messages. Over shared memory a large message is one copy that the receiver's core makes
 * (Open MPI's vader with CMA, MPICH's single copy): both cores stream memory at once, through the same memory bus.
 * Each side is measured alone and beside the other, which runs throughout:
 *   transfer alone    rank 1's receive time of the N messages over N, rank 0 waiting
 *   transfer loaded   the same while rank 0's kernel runs (the kernel is made to outlast the N receives)
 *   kernel alone      rank 0's TRIAD bandwidth (24 bytes per element, STREAM's count), rank 1 waiting
 *   kernel loaded     the same while rank 1 receives (the messages are made to outlast the kernel)
 * An activity that fails to outlast the measured one is doubled and the repetition run again. Each repetition runs
 * the four in turn, then the kernel on both ranks at once (each on its own arrays): with the kernel alone, the two
 * points of the node's STREAM scaling curve that a platform's calibrated contention policy takes. The medians are
 * printed.
 *
 *   interference --size 67108864 --array-bytes 268435456 --repetitions 5
 *
 * Output (rank 0, stdout), one CSV line each, first field the line's kind:
 *   library,TEXT
 *   interference,size_bytes,messages,transfer_alone_s,transfer_loaded_s,kernel_alone_Bps,kernel_loaded_Bps
 *   stream,ranks,total_Bps    (the TRIAD on 1, then 2 ranks at once: the node's bandwidth with that many streams)
 * (transfer times per message). Errors go to stderr, with exit status 2.
 */

#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TAG 0
#define MAX_REPETITIONS 99
#define ATTEMPTS 6

typedef struct {
    long size;
    long array_bytes;
    int repetitions;
} Options;

static int rank;
static double *a, *b, *c;
static long elements;
static char *send_buffer, *receive_buffer;

static void fail(const char *message, const char *detail)
{
    int initialized = 0;
    fprintf(stderr, "interference: %s%s\n", message, detail);
    MPI_Initialized(&initialized);
    if (initialized)
        MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* `passes` TRIAD passes over the arrays; returns the seconds they took. */
static double triad(int passes)
{
    double start = now();
    for (int p = 0; p < passes; p++)
        for (long i = 0; i < elements; i++)
            c[i] = a[i] + 3.0 * b[i];
    return now() - start;
}

static int compare(const void *x, const void *y)
{
    double u = *(const double *)x, v = *(const double *)y;
    return (u > v) - (u < v);
}

static double median(double *values, int count)
{
    qsort(values, (size_t)count, sizeof *values, compare);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/*
 * One run: rank 0 posts `messages` sends, runs `passes` TRIAD passes (none: it only waits), waits; rank 1 receives.
 * Returns, on both ranks, rank 1's receive time and rank 0's kernel time, and when each ended.
 */
typedef struct {
    double receive_s, kernel_s, receive_end, kernel_end;
} Run;

static Run run_once(int messages, int passes, long size)
{
    Run run = {0, 0, 0, 0};
    MPI_Request *requests = malloc((size_t)messages * sizeof *requests);
    if (!requests)
        fail("out of memory", "");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int m = 0; m < messages; m++)
            MPI_Isend(send_buffer, (int)size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, &requests[m]);
        if (passes > 0) {
            run.kernel_s = triad(passes);
            run.kernel_end = now();
        }
        MPI_Waitall(messages, requests, MPI_STATUSES_IGNORE);
    } else {
        double start = now();
        for (int m = 0; m < messages; m++)
            MPI_Recv(receive_buffer, (int)size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        run.receive_end = now();
        run.receive_s = run.receive_end - start;
    }
    free(requests);
    double mine[2] = {rank == 0 ? run.kernel_s : run.receive_s, rank == 0 ? run.kernel_end : run.receive_end};
    double theirs[2];
    MPI_Sendrecv(mine, 2, MPI_DOUBLE, 1 - rank, TAG + 1, theirs, 2, MPI_DOUBLE, 1 - rank, TAG + 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    double *kernel = rank == 0 ? mine : theirs, *receive = rank == 0 ? theirs : mine;
    return (Run){receive[0], kernel[0], receive[1], kernel[1]};
}

/* Runs `*messages` receives beside `*passes` TRIAD passes, doubling the side that must last longer (the kernel's
 * passes when `kernel_outlasts`, else the messages) until it does. */
static Run outlast(int *messages, int *passes, int kernel_outlasts, long size)
{
    Run run = run_once(*messages, *passes, size);
    for (int attempt = 0; attempt <= ATTEMPTS; attempt++) {
        if (kernel_outlasts ? run.kernel_end >= run.receive_end : run.receive_end >= run.kernel_end)
            return run;
        if (attempt == ATTEMPTS)
            break;
        if (kernel_outlasts)
            *passes *= 2;
        else
            *messages *= 2;
        run = run_once(*messages, *passes, size);
    }
    fail(kernel_outlasts ? "the kernel never outlasted the transfers" : "the transfers never outlasted the kernel", "");
    return run;
}

static long parse_long(const char *text, const char *option)
{
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (!end || *end || value <= 0)
        fail("expected a positive integer for ", option);
    return value;
}

static Options parse(int argc, char **argv)
{
    Options options = {64L << 20, 256L << 20, 5};
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            fail("missing value for ", argv[i]);
        if (!strcmp(argv[i], "--size"))
            options.size = parse_long(argv[++i], "--size");
        else if (!strcmp(argv[i], "--array-bytes"))
            options.array_bytes = parse_long(argv[++i], "--array-bytes");
        else if (!strcmp(argv[i], "--repetitions"))
            options.repetitions = (int)parse_long(argv[++i], "--repetitions");
        else
            fail("unknown option ", argv[i]);
    }
    if (options.size > 1L << 30)
        fail("--size above 1 GiB", "");
    if (options.repetitions > MAX_REPETITIONS)
        fail("--repetitions above 99", "");
    return options;
}

int main(int argc, char **argv)
{
    Options options = parse(argc, argv);
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (size != 2)
        fail("runs on exactly two ranks", "");
    elements = options.array_bytes / (long)sizeof(double);
    a = malloc((size_t)elements * sizeof *a);
    b = malloc((size_t)elements * sizeof *b);
    c = malloc((size_t)elements * sizeof *c);
    if (!a || !b || !c)
        fail("out of memory", "");
    for (long i = 0; i < elements; i++) { /* first touch: the pages land in this rank's NUMA domain */
        a[i] = 1.0;
        b[i] = 2.0;
        c[i] = 0.0;
    }
    if (rank == 0) {
        send_buffer = malloc((size_t)options.size);
        if (!send_buffer)
            fail("out of memory", "");
        memset(send_buffer, 1, (size_t)options.size);
    } else {
        receive_buffer = malloc((size_t)options.size);
        if (!receive_buffer)
            fail("out of memory", "");
        memset(receive_buffer, 0, (size_t)options.size);
    }
    if (rank == 0) {
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int length;
        MPI_Get_library_version(version, &length);
        version[strcspn(version, "\n")] = '\0';
        for (char *p = version; *p; p++)
            if (*p == '\t' || *p == ',')
                *p = ' ';
        printf("library,%s\n", version);
    }
    /* Warm up: the path, the pages, the caches' state. */
    run_once(2, 1, options.size);

    const double kernel_bytes = 24.0 * (double)elements; /* per pass, STREAM's count */
    double transfer_alone[MAX_REPETITIONS], transfer_loaded[MAX_REPETITIONS];
    double kernel_alone[MAX_REPETITIONS], kernel_loaded[MAX_REPETITIONS], both[MAX_REPETITIONS];
    int messages = 8, passes = 2;
    for (int r = 0; r < options.repetitions; r++) {
        Run alone = run_once(messages, 0, options.size);
        transfer_alone[r] = alone.receive_s / messages;
        Run loaded = outlast(&messages, &passes, 1, options.size); /* the kernel outlasts the receives */
        transfer_loaded[r] = loaded.receive_s / messages;
        Run kernel = run_once(0, passes, options.size);
        kernel_alone[r] = kernel_bytes * passes / kernel.kernel_s;
        int many = messages;
        Run beside = outlast(&many, &passes, 0, options.size); /* the receives outlast the kernel */
        kernel_loaded[r] = kernel_bytes * passes / beside.kernel_s;
        /* Both ranks stream at once: the node's total. */
        MPI_Barrier(MPI_COMM_WORLD);
        double mine = kernel_bytes * passes / triad(passes), total = 0.0;
        MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        both[r] = total;
    }
    if (rank == 0)
        printf("interference,%ld,%d,%.9g,%.9g,%.9g,%.9g\n", options.size, messages,
               median(transfer_alone, options.repetitions), median(transfer_loaded, options.repetitions),
               median(kernel_alone, options.repetitions), median(kernel_loaded, options.repetitions));
    if (rank == 0) {
        printf("stream,1,%.9g\n", median(kernel_alone, options.repetitions));
        printf("stream,2,%.9g\n", median(both, options.repetitions));
    }
    MPI_Finalize();
    return 0;
}
