#!/usr/bin/env bash
# Installs what progsim needs on Debian (only what is missing), then builds the engine. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

# curl: SimGrid's source release (scripts/build_simgrid.sh); libjemalloc-dev: the engine's allocator; nettle-dev:
# the inputs' SHA-1 (Nettle);
# clang-14 and libclang-rt-14-dev: the trace reader's fuzz harness (libFuzzer and sanitizers, tests/fuzz);
# pajeng, vite, xvfb: PajeNG's pj_dump and ViTE (under a virtual X server) read the Paje timelines; chromium: the
# gallery's browser test
APT_PACKAGES=(libsimgrid-dev curl cmake ninja-build g++ gcc pkg-config libgtest-dev libboost-dev zlib1g-dev
              libjemalloc-dev nettle-dev python3 python3-pip clang-14 libclang-rt-14-dev openmpi-bin libopenmpi-dev mpich
              libmpich-dev pajeng vite xvfb xauth chromium)
missing=()
for package in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PYTHON=${PYTHON:-python3}
# pandas and pyarrow: sweep tables (CSV, Parquet); dask[distributed]: sweeps on a cluster; tqdm: progress bars;
# scipy: the calibration's least squares
PY_PACKAGES=("PyYAML>=5.4" "pytest>=7" "mypy>=1.0" "types-PyYAML" "hypothesis>=6.62" "matplotlib>=3.6"
             "pandas>=2.0" "pyarrow>=12" "dask[distributed]>=2023.1" "tqdm>=4.60" "scipy>=1.10")
if ! "$PYTHON" -c "import yaml, pytest, mypy, hypothesis, matplotlib, pandas, pyarrow, distributed, tqdm, scipy
assert hypothesis.__version_info__ >= (6, 62)" 2>/dev/null; then
  echo "setup: installing Python packages (${PY_PACKAGES[*]})"
  "$PYTHON" -m pip install --quiet "${PY_PACKAGES[@]}" 2>/dev/null \
    || "$PYTHON" -m pip install --quiet --break-system-packages "${PY_PACKAGES[@]}"
fi

# SimGrid 3.32 as Debian has it, with the changes scripts/build_simgrid.sh lists (speed at scale, and the kernel hook
# the engine needs): built once into ~/.cache/progsim/simgrid (about 10 minutes).
SIMGRID_PREFIX=$(scripts/build_simgrid.sh)
# CMake keeps what pkg-config found: a build configured on another SimGrid starts afresh.
if [ -f build/CMakeCache.txt ] && [ "$(cat build/simgrid-prefix.txt 2>/dev/null)" != "$SIMGRID_PREFIX" ]; then
  rm -f build/CMakeCache.txt
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROGSIM_SIMGRID_PREFIX="$SIMGRID_PREFIX" >/dev/null
cmake --build build

# The engine also goes on the PATH, so that a `progsim` installed with `pip install .` (which holds no build)
# finds it from any folder; the build in this tree still comes first when progsim runs from here.
BIN_DIR=/usr/local/bin
[ -w "$BIN_DIR" ] || BIN_DIR="$HOME/.local/bin"
mkdir -p "$BIN_DIR"
install -m 755 build/progsim-engine "$BIN_DIR/progsim-engine"
