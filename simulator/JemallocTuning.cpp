/* The engine's settings for jemalloc, read by jemalloc when the process starts (its `malloc_conf` symbol; the
 * MALLOC_CONF environment variable still overrides them). Linked only with jemalloc (CMakeLists.txt).
 *
 * A replay allocates in bursts: when thousands of ranks start or end an activity at the same date, SimGrid and the
 * engine allocate, then free, thousands of small objects (activities, actions, lmm variables, simcall closures).
 * jemalloc's per-thread cache refills an empty size class from the arena, and its incremental garbage collection
 * (every tcache_gc_incr_bytes allocated, 64 KiB by default) halves a class's next refills whenever the class kept
 * unused objects all along since the previous one (a low-water mark above zero), as the other half of a burst does.
 * With 4 096 ranks under `thread` (1 KiB ring; jemalloc 5.3's stats_print), 7.9 M refills of 2.3 objects each took
 * 18 % of the engine's instructions (valgrind's callgrind); 1 024 ranks made 0.37 M refills of 12. Collecting once
 * per GiB allocated, and caching up to 16 slabs' worth per class (at most 2 048 objects, jemalloc's cap), left
 * 41 thousand refills for the same 25.9 M requests: with the smaller stacks of main.cpp, 26.2 G instructions to
 * 22.0 G (-16 %; -6.5 % at 1 024 ranks).
 * The cache keeps jemalloc's default size (at most 200 objects per class), not 2 048: a full cache is flushed with
 * an array of its objects on the stack of whichever actor frees then (16 to 20 KiB for 2 048 objects), and those
 * pages stay in memory, actor after actor: 16 384 ranks under `thread` peak at 539 MB with the default cache and 594
 * MB with the larger one, which saves 1.6 % of the instructions (4 096 ranks, 1 KiB: 8.81 G against 8.67 G). The
 * collection stays rare (docs/speed.md has each measurement).
 *
 * Freed pages go back to the system within a second (dirty_decay_ms) instead of ten: jemalloc keeps what it frees
 * for a decay window, and a replay frees at the pace it simulates, so the faster the engine the more it kept. 16 384
 * ranks, 1 KiB ring: `none` peaks at 323 MB instead of 383 MB, `thread` at 503 MB instead of 522 MB, in the same time.
 */
extern "C" {
// NOLINTNEXTLINE: the name jemalloc looks for
const char* malloc_conf = "tcache_gc_incr_bytes:1073741824,dirty_decay_ms:1000";
}
