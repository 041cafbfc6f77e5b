/*
 * overlap.c: the point-to-point overlap benchmark on a real MPI library (two ranks).
 *
 * What it measures follows Reynier's thesis (2022, section 4.1; ../shared/literature/
 * reynier-2022-thesis-progression-dedicated-resources.txt): rank 0 sends S bytes to rank 1 with MPI_Isend /
 * MPI_Irecv while the side that computes runs a fixed amount of work, then both wait. Per rank it reports:
 *   t_comm_ref  the communication alone: from the post to the end of MPI_Wait
 *   t_comp_ref  the computation alone
 *   t_measured  both overlapped: from the post to the end of MPI_Wait
 *   t_comp      the time inside the computation parts of the overlapped run
 *   t_mpi       the time inside MPI calls of the overlapped run (post + tests + wait)
 * from which the overhead ratio r = (t_measured - max(refs)) / min(refs) (eq. 4.1), the computation slowdown
 * t_comp / t_comp_ref (eq. 4.3) and the communication ratio t_mpi / t_comm_ref (eq. 4.4) follow. Each repetition
 * runs the three in turn, a barrier before each, so that a drift of the machine's speed affects them alike; one
 * transfer per size warms the path up first.
 *
 * The ping-pong mode measures, per size, the half round trip of blocking MPI_Send / MPI_Recv, the time of the
 * MPI_Isend and MPI_Irecv calls alone (the post), and the cost of an MPI_Test that finds nothing.
 *
 * The computation is a number of iterations of a dependent floating-point loop that stays in registers, so that it
 * neither touches memory (no contention with the copies) nor ends early when the library steals cycles: its
 * iterations per second are calibrated before MPI_Init, before any progress thread exists, and both ranks run the
 * iterations of the faster calibration (the cores are alike; the launch of one rank may disturb the other's).
 *
 *   overlap overlap  --sizes 4096,1048576 --times 1e-5,1e-3 --side receiver --tests 0 --repetitions 20
 *   overlap pingpong --sizes 4096,1048576 --repetitions 100
 *
 * Output (rank 0, stdout), one CSV line each, first field the line's kind:
 *   library,TEXT              (the first line of MPI_Get_library_version, tabs as spaces)
 *   calibration,rank,iterations_per_s
 *   threads,rank,count        (threads of the rank's process at the end: shows a library's progress thread)
 *   overlap,rank,side,size_bytes,compute_s,tests,computes,iterations,t_comm_ref,t_comp_ref,t_measured,t_comp,t_mpi
 *   pingpong,size_bytes,half_rtt_s,isend_post_s,irecv_post_s,test_s
 * Times are per-rank medians over the repetitions, in seconds. Errors go to stderr, with exit status 2.
 */

#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_VALUES 64
#define TAG 0
#define TESTS_PER_SAMPLE 16 /* MPI_Test calls timed together: one call is close to the clock's resolution */

typedef struct {
    const char *mode;
    long sizes[MAX_VALUES];
    int n_sizes;
    double times[MAX_VALUES];
    int n_times;
    const char *side;
    int tests;
    int repetitions;
} Options;

static volatile double sink; /* keeps the computation from being optimized away */

static void fail(const char *message, const char *detail)
{
    int initialized = 0;
    fprintf(stderr, "overlap: %s%s\n", message, detail);
    MPI_Initialized(&initialized);
    if (initialized)
        MPI_Abort(MPI_COMM_WORLD, 2); /* the other rank must not wait for this one */
    exit(2);
}

/* ---- the computation: a dependent multiply-add chain, in registers ---- */

static void compute(long iterations)
{
    double x = sink;
    for (long i = 0; i < iterations; i++)
        x = x * 0.999999999 + 1e-9; /* each iteration waits for the previous one: no vectorization */
    sink = x;
}

/* One clock for every library (MPI_Wtime's resolution differs between them). */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Iterations per second of `compute`: the best of many short windows over 0.3 s. A window is short enough (5 ms)
 * that some run without being preempted, even when other processes (the launcher, the other rank starting) share
 * the cores; the best one is the core's own speed. */
static double calibrate(void)
{
    long iterations = 1 << 12;
    double elapsed = 0.0;
    while (elapsed < 0.005) {
        iterations *= 2;
        double start = now();
        compute(iterations);
        elapsed = now() - start;
    }
    double best = (double)iterations / elapsed, began = now();
    while (now() - began < 0.3) {
        double start = now();
        compute(iterations);
        double rate = (double)iterations / (now() - start);
        if (rate > best)
            best = rate;
    }
    return best;
}

/* Threads of this process (Linux: /proc/self/status), or -1 when unknown. */
static int thread_count(void)
{
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    int count = -1;
    if (!status)
        return -1;
    while (fgets(line, sizeof line, status))
        if (sscanf(line, "Threads: %d", &count) == 1)
            break;
    fclose(status);
    return count;
}

static void print_library_version(void)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length;
    MPI_Get_library_version(version, &length);
    version[strcspn(version, "\n")] = '\0';
    for (char *c = version; *c; c++)
        if (*c == '\t')
            *c = ' ';
    printf("library,%s\n", version);
}

/* ---- statistics ---- */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count)
{
    qsort(values, (size_t)count, sizeof *values, by_value);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/* ---- command line ---- */

static int parse_list(const char *text, double *values)
{
    int count = 0;
    const char *cursor = text;
    while (*cursor) {
        char *end;
        double value = strtod(cursor, &end);
        if (end == cursor || value <= 0 || count == MAX_VALUES || (*end && *end != ','))
            fail("expected a comma-separated list of positive numbers, not ", text);
        values[count++] = value;
        cursor = *end ? end + 1 : end;
    }
    if (count == 0)
        fail("expected at least one value in ", text);
    return count;
}

static Options parse_options(int argc, char **argv)
{
    Options options = {.side = "receiver", .tests = 0, .repetitions = 20};
    double sizes[MAX_VALUES];
    if (argc < 2 || (strcmp(argv[1], "overlap") && strcmp(argv[1], "pingpong")))
        fail("usage: overlap overlap|pingpong --sizes B,... [--times S,...] [--side sender|receiver|both] "
             "[--tests K] [--repetitions R]", "");
    options.mode = argv[1];
    for (int i = 2; i < argc; i += 2) {
        if (i + 1 >= argc)
            fail("missing value after ", argv[i]);
        const char *name = argv[i], *value = argv[i + 1];
        if (!strcmp(name, "--sizes")) {
            options.n_sizes = parse_list(value, sizes);
            for (int s = 0; s < options.n_sizes; s++)
                options.sizes[s] = (long)sizes[s];
        } else if (!strcmp(name, "--times")) {
            options.n_times = parse_list(value, options.times);
        } else if (!strcmp(name, "--side")) {
            if (strcmp(value, "sender") && strcmp(value, "receiver") && strcmp(value, "both"))
                fail("--side expects sender, receiver or both, not ", value);
            options.side = value;
        } else if (!strcmp(name, "--tests")) {
            options.tests = atoi(value);
        } else if (!strcmp(name, "--repetitions")) {
            options.repetitions = atoi(value);
        } else {
            fail("unknown option ", name);
        }
    }
    if (options.n_sizes == 0 || (!strcmp(options.mode, "overlap") && options.n_times == 0))
        fail("missing --sizes (and, for overlap, --times)", "");
    if (options.tests < 0 || options.repetitions < 1)
        fail("--tests must be >= 0 and --repetitions >= 1", "");
    return options;
}

/* ---- the overlap benchmark ---- */

typedef struct {
    double measured, comp, mpi;
} Overlapped;

static int computes(const char *side, int rank)
{
    return !strcmp(side, "both") || (!strcmp(side, "sender") == (rank == 0));
}

static MPI_Request post(int rank, char *buffer, long size)
{
    MPI_Request request;
    if (rank == 0)
        MPI_Isend(buffer, (int)size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, &request);
    else
        MPI_Irecv(buffer, (int)size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &request);
    return request;
}

static double communication_alone(int rank, char *buffer, long size)
{
    double start = now();
    MPI_Request request = post(rank, buffer, size);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    return now() - start;
}

static double computation_alone(long iterations)
{
    double start = now();
    compute(iterations);
    return now() - start;
}

/* Post, compute in tests + 1 parts with an MPI_Test between two parts, wait. */
static Overlapped overlapped(int rank, char *buffer, long size, long iterations, int tests)
{
    Overlapped times = {0.0, 0.0, 0.0};
    double start = now();
    MPI_Request request = post(rank, buffer, size);
    double mark = now();
    times.mpi += mark - start;
    long part = iterations / (tests + 1);
    for (int k = 0; k <= tests && iterations > 0; k++) {
        compute(k == tests ? iterations - part * tests : part);
        double computed = now();
        times.comp += computed - mark;
        mark = computed;
        if (k < tests) {
            int done;
            MPI_Test(&request, &done, MPI_STATUS_IGNORE);
            double tested = now();
            times.mpi += tested - mark;
            mark = tested;
        }
    }
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    double end = now();
    times.mpi += end - mark;
    times.measured = end - start;
    return times;
}

/* Medians of rank 1 are sent to rank 0, which prints both ranks' lines. */
static void print_cell(int rank, const Options *o, long size, double seconds, long iterations, const double *medians)
{
    double all[2][6];
    double mine[6] = {(double)iterations, medians[0], medians[1], medians[2], medians[3], medians[4]};
    MPI_Gather(mine, 6, MPI_DOUBLE, all, 6, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    for (int r = 0; r < 2; r++)
        printf("overlap,%d,%s,%ld,%.9g,%d,%d,%.0f,%.9g,%.9g,%.9g,%.9g,%.9g\n", r, o->side, size, seconds, o->tests,
               computes(o->side, r), all[r][0], all[r][1], all[r][2], all[r][3], all[r][4], all[r][5]);
    fflush(stdout);
}

/* One repetition runs the three parts in turn (each after a barrier), so that a drift of the machine's speed
 * during the run affects the references and the overlapped run alike. */
static void run_cell(int rank, const Options *o, char *buffer, long size, long iterations, double *samples)
{
    int reps = o->repetitions;
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        samples[r] = communication_alone(rank, buffer, size);
        MPI_Barrier(MPI_COMM_WORLD);
        samples[reps + r] = computation_alone(iterations);
        MPI_Barrier(MPI_COMM_WORLD);
        Overlapped times = overlapped(rank, buffer, size, iterations, o->tests);
        samples[2 * reps + r] = times.measured;
        samples[3 * reps + r] = times.comp;
        samples[4 * reps + r] = times.mpi;
    }
}

static void run_overlap(int rank, const Options *o, double rate, char *buffer)
{
    int reps = o->repetitions;
    double *samples = malloc(sizeof(double) * (size_t)reps * 5);
    if (!samples)
        fail("out of memory", "");
    for (int s = 0; s < o->n_sizes; s++) {
        long size = o->sizes[s];
        MPI_Barrier(MPI_COMM_WORLD);
        communication_alone(rank, buffer, size); /* warm-up: connections, registration, first touch */
        for (int t = 0; t < o->n_times; t++) {
            long iterations = computes(o->side, rank) ? (long)(o->times[t] * rate + 0.5) : 0;
            run_cell(rank, o, buffer, size, iterations, samples);
            double medians[5];
            for (int m = 0; m < 5; m++)
                medians[m] = median(samples + m * reps, reps);
            print_cell(rank, o, size, o->times[t], iterations, medians);
        }
    }
    free(samples);
}

/* ---- the ping-pong: latency and bandwidth, and the cost of posting and testing ---- */

static double half_round_trip(int rank, char *buffer, long size)
{
    double start = now();
    if (rank == 0) {
        MPI_Send(buffer, (int)size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
        MPI_Recv(buffer, (int)size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(buffer, (int)size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buffer, (int)size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
    }
    return 0.5 * (now() - start);
}

typedef struct {
    double isend, irecv, test;
} PostTimes;

/* Rank 1 posts its receive and tests it while rank 0 has not sent yet (it waits at the barrier); then rank 0
 * posts its send. Each side times only its own calls. */
static PostTimes post_and_test(int rank, char *buffer, long size)
{
    PostTimes times = {0.0, 0.0, 0.0};
    MPI_Request request;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        double start = now();
        MPI_Irecv(buffer, (int)size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &request);
        double posted = now();
        int done = 0;
        for (int k = 0; k < TESTS_PER_SAMPLE; k++)
            MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (done)
            fail("an MPI_Test found a message that was not sent yet", "");
        times.irecv = posted - start;
        times.test = (now() - posted) / TESTS_PER_SAMPLE;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        double start = now();
        MPI_Isend(buffer, (int)size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, &request);
        times.isend = now() - start;
    }
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    return times;
}

static void run_pingpong(int rank, const Options *o, char *buffer)
{
    int reps = o->repetitions;
    double *samples = malloc(sizeof(double) * (size_t)reps * 4);
    if (!samples)
        fail("out of memory", "");
    for (int s = 0; s < o->n_sizes; s++) {
        long size = o->sizes[s];
        MPI_Barrier(MPI_COMM_WORLD);
        half_round_trip(rank, buffer, size); /* warm-up */
        for (int r = 0; r < reps; r++)
            samples[r] = half_round_trip(rank, buffer, size);
        for (int r = 0; r < reps; r++) {
            PostTimes times = post_and_test(rank, buffer, size);
            samples[reps + r] = times.isend;
            samples[2 * reps + r] = times.irecv;
            samples[3 * reps + r] = times.test;
        }
        double mine[4] = {median(samples, reps), median(samples + reps, reps), median(samples + 2 * reps, reps),
                          median(samples + 3 * reps, reps)};
        double all[2][4];
        MPI_Gather(mine, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0) { /* the round trip as rank 0 saw it, each post time from the rank that made it */
            printf("pingpong,%ld,%.9g,%.9g,%.9g,%.9g\n", size, all[0][0], all[0][1], all[1][2], all[1][3]);
            fflush(stdout);
        }
    }
    free(samples);
}

int main(int argc, char **argv)
{
    Options options = parse_options(argc, argv);
    double rate = calibrate(); /* before MPI_Init: no progress thread takes cycles from it */
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (ranks != 2)
        fail("run on exactly 2 ranks (mpirun -n 2)", "");
    long largest = 1;
    for (int s = 0; s < options.n_sizes; s++)
        if (options.sizes[s] > largest)
            largest = options.sizes[s];
    char *buffer = malloc((size_t)largest);
    if (!buffer)
        fail("cannot allocate the message buffer", "");
    memset(buffer, 1, (size_t)largest); /* first-touch outside the timed region */
    double rates[2], fastest;
    MPI_Gather(&rate, 1, MPI_DOUBLE, rates, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    /* The same work on both ranks, from the less disturbed calibration (the launch of the other rank may slow one) */
    MPI_Allreduce(&rate, &fastest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        print_library_version();
        for (int r = 0; r < 2; r++)
            printf("calibration,%d,%.6g\n", r, rates[r]);
    }
    if (!strcmp(options.mode, "overlap"))
        run_overlap(rank, &options, fastest, buffer);
    else
        run_pingpong(rank, &options, buffer);
    int threads[2], mine = thread_count(); /* after the runs: libraries may start threads on first use */
    MPI_Gather(&mine, 1, MPI_INT, threads, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < 2; r++)
            printf("threads,%d,%d\n", r, threads[r]);
    free(buffer);
    MPI_Finalize();
    return 0;
}
