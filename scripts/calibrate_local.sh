#!/usr/bin/env bash
# Calibrates platforms/local/<library>-<transport>.yaml on this machine (progsim calibrate): the real library's
# ping-pongs and protocol probes, then the platform fitted through the simulator. Run it on an idle machine
# (about 2 minutes); each file records its date, the command and the residual per size.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-platforms/local}
mkdir -p "$OUT"
calibrate() {  # name library transport [--env ...]
  local name=$1 library=$2 transport=$3; shift 3
  python3 -m progsim calibrate --library "$library" --transport "$transport" "$@" --out "$OUT/$name.yaml"
}
calibrate openmpi-shm openmpi shm
calibrate openmpi-tcp openmpi tcp
calibrate mpich-shm mpich shm
calibrate mpich-shm-asyncthread mpich shm --env MPIR_CVAR_ASYNC_PROGRESS=1
