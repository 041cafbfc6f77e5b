#!/usr/bin/env bash
# Measures this machine's real overlap heatmaps (progsim measure) for every library and transport that
# platforms/local/ calibrates, computation on the sender and on the receiver, into validation/measured/<case>.csv,
# then again, independently, into validation/measured/run-2/ and run-3/ (RUNS): the validation takes their median
# and holds only the cells that every run puts in the same class. Run it on an idle machine: other processes on the
# two cores stretch the computations (about 6 minutes a run).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-validation/measured}
SIZES=${SIZES:-1KiB,4KiB,16KiB,64KiB,256KiB,1MiB,4MiB,16MiB}
COMPUTE=${COMPUTE:-10us,30us,100us,300us,1ms,3ms,10ms,30ms}
REPETITIONS=${REPETITIONS:-40}
RUNS=${RUNS:-3}
measure() {  # folder case library transport [env]
  local folder=$1 case=$2 library=$3 transport=$4; shift 4
  mkdir -p "$folder"
  python3 -m progsim measure --library "$library" --transport "$transport" "$@" --side sender receiver \
    --sizes "$SIZES" --compute "$COMPUTE" --repetitions "$REPETITIONS" --csv "$folder/$case.csv" >/dev/null
  echo "wrote $folder/$case.csv"
}
for run in $(seq 1 "$RUNS"); do
  folder=$OUT
  [ "$run" = 1 ] || folder=$OUT/run-$run
  measure "$folder" openmpi-shm openmpi shm
  measure "$folder" openmpi-tcp openmpi tcp
  measure "$folder" mpich-shm mpich shm
  measure "$folder" mpich-shm-asyncthread mpich shm --env MPIR_CVAR_ASYNC_PROGRESS=1
done
