#!/usr/bin/env bash
# Fuzzes the trace reader (libFuzzer, tests/fuzz) and then the platform loader (Hypothesis, tests/test_fuzz_platform.py)
# for SECONDS each. Run scripts/fuzz.sh --help for the details.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

usage() {
  cat <<EOF
usage: scripts/fuzz.sh [SECONDS] [--trace-only | --platform-only]

Fuzzes for SECONDS (default 600) each, one after the other:
  1. the trace reader (simulator/trace) with libFuzzer, ASan and UBSan: builds tests/fuzz into build-fuzz/ with
     clang++-14, replays tests/fuzz/regressions, then fuzzes from tests/fuzz/corpus. New interesting inputs go to
     build-fuzz/corpus (kept between runs), crashing inputs to build-fuzz/crashes/ (after a crash it goes on
     until the time is spent), the log to build-fuzz/libfuzzer.log.
  2. the platform loader (progsim/platform load_platform) with Hypothesis: rounds of
     tests/test_fuzz_platform.py under its profile progsim-fuzz until the time is spent; the report (documents
     loaded, failures by kind with their falsifying example) goes to
     build-fuzz/hypothesis-report.txt.

Prints what each found and where. Exit status: 0 when nothing new was found, 1 otherwise, 2 on bad usage.
Needs clang-14 and libclang-rt-14-dev (apt) and hypothesis (pip): make setup installs them.
Reproduce a crash: build-fuzz/fuzz_trace \$PWD/build-fuzz/crashes/crash-... (absolute path: the harness works in
a folder of its own).
EOF
}

budget=600
run_trace=1
run_platform=1
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --trace-only) run_platform=0 ;;
    --platform-only) run_trace=0 ;;
    ''|*[!0-9]*) echo "fuzz.sh: unknown argument '$arg'" >&2; usage >&2; exit 2 ;;
    *) budget=$arg ;;
  esac
done
if [ "$budget" -lt 1 ]; then
  echo "fuzz.sh: SECONDS must be at least 1" >&2
  exit 2
fi

OUT="$ROOT/build-fuzz"
found=0

if [ "$run_trace" -eq 1 ]; then
  if ! command -v clang++-14 >/dev/null; then
    echo "fuzz.sh: clang++-14 is missing: run make setup" >&2
    exit 1
  fi
  cmake -S tests/fuzz -B "$OUT" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 >/dev/null
  cmake --build "$OUT" >/dev/null
  mkdir -p "$OUT/corpus" "$OUT/crashes"
  : > "$OUT/libfuzzer.log"

  echo "== trace reader: replaying tests/fuzz/regressions"
  if ! "$OUT/fuzz_trace" "$ROOT"/tests/fuzz/regressions/* >>"$OUT/libfuzzer.log" 2>&1; then
    echo "fuzz.sh: a regression input crashes the trace reader again (see $OUT/libfuzzer.log)"
    found=1
  fi

  echo "== trace reader: libFuzzer for $budget s"
  before=$(ls "$OUT/crashes" | wc -l)
  start=$(date +%s)
  executions=0
  runs=0
  # libFuzzer stops at its first crash: start it again (the corpus is kept) until the time is spent.
  while :; do
    left=$((budget - ($(date +%s) - start)))
    [ "$left" -ge 1 ] && [ "$runs" -lt 50 ] || break
    runs=$((runs + 1))
    status=0
    "$OUT/fuzz_trace" -max_total_time="$left" -max_len=4096 -len_control=0 -dict="$ROOT/tests/fuzz/trace.dict" \
      -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$OUT/crashes/" \
      "$OUT/corpus" "$ROOT/tests/fuzz/corpus" >"$OUT/libfuzzer-run.log" 2>&1 || status=$?
    cat "$OUT/libfuzzer-run.log" >>"$OUT/libfuzzer.log"
    done_units=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$OUT/libfuzzer-run.log" | grep -o '[0-9]*$' || true)
    if [ -z "$done_units" ]; then # a crash: no final stats, the last status line counts
      done_units=$(grep -o '^#[0-9]*' "$OUT/libfuzzer-run.log" | tail -1 | tr -d '#' || true)
    fi
    executions=$((executions + ${done_units:-0}))
    [ "$status" -eq 0 ] && break
    grep -m1 -E 'ERROR: (AddressSanitizer|libFuzzer|UndefinedBehaviorSanitizer)|runtime error|fuzz_trace:|what\(\)' \
      "$OUT/libfuzzer-run.log" | sed 's/^/  crash: /' || true
  done
  rm -f "$OUT/libfuzzer-run.log"
  new_crashes=$(($(ls "$OUT/crashes" | wc -l) - before))
  echo "trace reader: $(($(date +%s) - start)) s, $executions executions in $runs libFuzzer run(s), corpus of" \
       "$(ls "$OUT/corpus" | wc -l) inputs, $new_crashes new crashing input(s)"
  if [ "$new_crashes" -gt 0 ]; then
    found=1
    echo "  crashing inputs (replay: $OUT/fuzz_trace FILE):"
    ls -t "$OUT/crashes" | head -n "$new_crashes" | sed "s|^|    $OUT/crashes/|"
  fi
  echo "  log: $OUT/libfuzzer.log"
fi

if [ "$run_platform" -eq 1 ]; then
  echo "== platform loader: Hypothesis for $budget s"
  mkdir -p "$OUT"
  status=0
  PROGSIM_HYPOTHESIS_PROFILE=progsim-fuzz PROGSIM_FUZZ_SECONDS="$budget" \
    PROGSIM_FUZZ_REPORT="$OUT/hypothesis-report.txt" \
    "${PYTHON:-python3}" -m pytest -q -p no:cacheprovider tests/test_fuzz_platform.py -k fuzz_until \
    >"$OUT/hypothesis.log" 2>&1 || status=$?
  if [ -f "$OUT/hypothesis-report.txt" ]; then
    grep -v '^ ' "$OUT/hypothesis-report.txt" | grep -E '^(Hypothesis fuzzing|failures|failure )' | sed 's/^/platform loader: /'
  fi
  if [ "$status" -ne 0 ]; then
    found=1
    echo "  failures: $OUT/hypothesis-report.txt (pytest log: $OUT/hypothesis.log)"
  fi
fi

exit "$found"
