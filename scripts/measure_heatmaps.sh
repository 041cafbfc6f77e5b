#!/usr/bin/env bash
# Measures this machine's real overlap heatmaps (progsim measure) for every library and transport that
# platforms/local/ calibrates, computation on the sender and on the receiver, into validation/measured/<case>.csv.
# Run it on an idle machine: other processes on the two cores stretch the computations (about 6 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-validation/measured}
SIZES=${SIZES:-1KiB,4KiB,16KiB,64KiB,256KiB,1MiB,4MiB,16MiB}
COMPUTE=${COMPUTE:-10us,30us,100us,300us,1ms,3ms,10ms,30ms}
REPETITIONS=${REPETITIONS:-40}
mkdir -p "$OUT"
measure() {  # case library transport [env]
  local case=$1 library=$2 transport=$3; shift 3
  python3 -m progsim measure --library "$library" --transport "$transport" "$@" --side sender receiver \
    --sizes "$SIZES" --compute "$COMPUTE" --repetitions "$REPETITIONS" --csv "$OUT/$case.csv" >/dev/null
  echo "wrote $OUT/$case.csv"
}
measure openmpi-shm openmpi shm
measure openmpi-tcp openmpi tcp
measure mpich-shm mpich shm
measure mpich-shm-asyncthread mpich shm --env MPIR_CVAR_ASYNC_PROGRESS=1
