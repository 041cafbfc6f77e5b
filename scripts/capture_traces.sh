#!/usr/bin/env bash
# capture_traces.sh -- build the validation MPI apps with smpicc (SimGrid SMPI,
# tested with Debian 12's libsimgrid-dev 3.32) and capture their
# time-independent (TI) traces into validation/traces/<app>-<variant>-<nranks>/.
#
# Usage: scripts/capture_traces.sh [--check] [--replay] [--emit-platform DIR]
#   (no option)          (re)capture every trace, overwriting the old ones
#   --check              capture everything into a temp dir instead and fail
#                        unless it is byte-identical to the traces shipped here
#   --replay             afterwards, replay every captured trace with stock
#                        SMPI (smpirun -replay) and print its "Simulation time"
#   --emit-platform DIR  only write the platform XML and hostfile used here
#                        into DIR (handy to replay by hand), then exit
#
# Output layout, per trace directory D = validation/traces/<app>-<variant>-<n>:
#   D/rank-<r>.txt    the actions of MPI rank r (r = 0..n-1, the rank written
#                     as first field of every line of that file)
#   D/trace_list.txt  n lines; line r is the path of rank r's file RELATIVE TO
#                     THE REPOSITORY ROOT (e.g. validation/traces/halo2d-32k-64/rank-0.txt).
#                     SMPI opens these entries relative to the current working
#                     directory, so replay from the repository root:
#                       smpirun -np 64 -platform P -hostfile H \
#                         -replay validation/traces/halo2d-32k-64/trace_list.txt
#
# Determinism: SMPI names its per-rank files "<wall-clock time>_rank-<pid>.txt"
# (pid = rank + 1), so they are renamed here. Computation is NOT benchmarked
# (--cfg=smpi/simulate-computation:no, which would record wall-clock time as
# flops); the apps instead report the analytic flop count of their real
# compute loops with smpi_execute_flops(). Everything else in a TI trace
# depends only on the program and the (fixed) simulated platform below.
set -euo pipefail
export LC_ALL=C

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# smpicc and smpirun of the SimGrid the engine was built on (build/simgrid-prefix.txt), when `make setup` built one.
SIMGRID_PREFIX="$(cat "$ROOT/build/simgrid-prefix.txt" 2>/dev/null || true)"
[ -n "$SIMGRID_PREFIX" ] && PATH="$SIMGRID_PREFIX/bin:$PATH"
APPS=validation/apps
TRACES=validation/traces

# ---- simulated platform: any simple cluster works, the trace is time independent.
write_platform() { # $1 = directory
  cat >"$1/platform.xml" <<'EOF'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- progsim capture platform: 64 hosts of 1 Gflop/s, 10 GB/s / 1 us private
     links into a 100 GB/s backbone. -->
<platform version="4.1">
  <cluster id="capture" prefix="node-" suffix="" radical="0-63" speed="1Gf"
           bw="10GBps" lat="1us" bb_bw="100GBps" bb_lat="0us"/>
</platform>
EOF
  for i in $(seq 0 63); do echo "node-$i"; done >"$1/hostfile"
}

# ---- the traces: name, number of ranks, app, app arguments.
# halo2d args: PX PY ITERS HALO_BYTES K N
CAPTURES=(
  "halo2d-32k-64       64 halo2d      8 8 10 32768 5 256"
  "halo2d-256k-64      64 halo2d      8 8 10 262144 5 512"
  "p2p_mix-base-64     64 p2p_mix     1"
  "collectives-base-16 16 collectives 1 0"
  "collectives-base-64 64 collectives 1 0"
  "nbc-base-16         16 nbc         1"
)

CHECK=0
REPLAY=0
while [ $# -gt 0 ]; do
  case "$1" in
  --check) CHECK=1 ;;
  --replay) REPLAY=1 ;;
  --emit-platform)
    mkdir -p "$2"
    write_platform "$2"
    echo "wrote $2/platform.xml and $2/hostfile"
    exit 0
    ;;
  *)
    echo "unknown option: $1" >&2
    exit 2
    ;;
  esac
  shift
done

command -v smpicc >/dev/null && command -v smpirun >/dev/null || {
  echo "smpicc/smpirun not found (apt-get install libsimgrid-dev)" >&2
  exit 1
}

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
write_platform "$TMP"
mkdir -p "$TMP/bin"
for app in halo2d p2p_mix collectives nbc; do
  smpicc -O2 -Wall "$APPS/$app.c" -o "$TMP/bin/$app"
done

# capture DEST_ROOT NAME NP APP ARGS... : run the app under smpirun with TI
# tracing, then copy the per-rank files to DEST_ROOT/NAME/rank-<r>.txt and write
# DEST_ROOT/NAME/trace_list.txt (paths relative to the repository root).
capture() {
  local dest_root="$1" name="$2" np="$3" app="$4"
  shift 4
  local work="$TMP/run/$name" dest="$dest_root/$name"
  rm -rf "$work" "$dest"
  mkdir -p "$work" "$dest"
  if ! smpirun -np "$np" -platform "$TMP/platform.xml" -hostfile "$TMP/hostfile" \
    -trace-ti -trace-file "$work/smpi_ti" \
    "$TMP/bin/$app" "$@" \
    --cfg=smpi/simulate-computation:no --cfg=smpi/host-speed:1Gf \
    --cfg=smpi/display-timing:yes >"$work/log" 2>&1; then
    cat "$work/log" >&2
    echo "capture of $name failed" >&2
    return 1
  fi
  # SMPI's list file names "<dir>/<time>_rank-<pid>.txt"; take the MPI rank
  # from the first field of each file rather than trusting pid - 1.
  local f r n=0
  while IFS= read -r f; do
    [ -n "$f" ] || continue
    r="$(head -n 1 "$f" | cut -d' ' -f1)"
    [ ! -e "$dest/rank-$r.txt" ] || { echo "$name: rank $r twice" >&2; return 1; }
    cp "$f" "$dest/rank-$r.txt"
    n=$((n + 1))
  done <"$work/smpi_ti"
  [ "$n" -eq "$np" ] || { echo "$name: $n rank files, expected $np" >&2; return 1; }
  for ((r = 0; r < np; r++)); do
    [ -e "$dest/rank-$r.txt" ] || { echo "$name: rank $r missing" >&2; return 1; }
    echo "$TRACES/$name/rank-$r.txt"
  done >"$dest/trace_list.txt"
  echo "captured $dest ($np ranks, $(cat "$dest"/rank-*.txt | wc -l) actions)"
}

if [ "$CHECK" = 0 ]; then
  for c in "${CAPTURES[@]}"; do
    # shellcheck disable=SC2086
    capture "$TRACES" $c
  done
fi

# --check captures again into a scratch folder and compares with the traces in the repository (left untouched).
if [ "$CHECK" = 1 ]; then
  mkdir -p "$TMP/again"
  for c in "${CAPTURES[@]}"; do
    # shellcheck disable=SC2086
    capture "$TMP/again" $c >/dev/null
    name="${c%% *}"
    if diff -r "$TRACES/$name" "$TMP/again/$name" >/dev/null; then
      echo "check: $name byte-identical to a fresh capture"
    else
      echo "check: $name DIFFERS from the traces in the repository" >&2
      exit 1
    fi
  done
fi

if [ "$REPLAY" = 1 ]; then
  # Prints, per trace: the replay's "Simulation time" line (%f, as stock SMPI
  # prints it), the same replay time in %g from smpi/display-timing, and the
  # simulated time of the original capture run, on the same platform.
  for c in "${CAPTURES[@]}"; do
    read -r name np _ <<<"$c"
    log="$TMP/replay-$name.log"
    smpirun -np "$np" -platform "$TMP/platform.xml" -hostfile "$TMP/hostfile" \
      -replay "$TRACES/$name/trace_list.txt" --log=smpi_replay.thres:info \
      --cfg=smpi/host-speed:1Gf --cfg=smpi/display-timing:yes >"$log" 2>&1 || true
    t="$(sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' "$log")"
    [ -n "$t" ] || { cat "$log" >&2; echo "replay of $name failed" >&2; exit 1; }
    tg="$(sed -n 's/.*Simulated time: \([0-9.e+-]*\) seconds.*/\1/p' "$log")"
    tc="$(sed -n 's/.*Simulated time: \([0-9.e+-]*\) seconds.*/\1/p' "$TMP/run/$name/log")"
    echo "replay: $name Simulation time $t s (display-timing $tg s; capture run $tc s)"
  done
fi
