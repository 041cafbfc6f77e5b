#!/usr/bin/env bash
# capture_apps.sh -- capture SMPI time-independent (TI) traces of real MPI
# applications taken from Debian 12 (bookworm) SOURCE packages, with their
# provenance, into validation/real/<app>-<nranks>/ (hpcc-ra, which stock SMPI
# 3.32 cannot replay, into validation/real/unreplayable/hpcc-ra-<nranks>/).
#
# Usage: scripts/capture_apps.sh [--only APP]... [--ranks N]... [--out DIR]
#                                [--work DIR] [--no-replay] [--inspect ENGINE]
#   --only APP        capture only APP (repeatable). APP is one of
#                     hpcc-hpl hpcc-ra hpcc-suite examl hmmsearch mrbayes,
#                     or a Debian package name (hpcc = hpcc-hpl + hpcc-ra,
#                     hmmer = hmmsearch). Default: all but hpcc-suite.
#   --ranks N         capture at N ranks only (repeatable). Default: 16 and 64;
#                     captures above 64 ranks go into large/ (out of the tests' replays).
#   --out DIR         write the capture folders into DIR instead of
#                     validation/real (handy to compare with the shipped ones)
#   --work DIR        build and run in DIR and keep it (default: a temp dir,
#                     removed at exit)
#   --no-replay       skip the check that stock SMPI replays each capture
#   --inspect ENGINE  also run `ENGINE --inspect-trace` on each capture
#   -h, --help        print this help
#
# What it does, per Debian source package (versions pinned below):
#   1. installs missing build dependencies with apt-get (needs root or sudo);
#   2. `apt-get source --download-only PKG=VERSION` into the work dir (needs a
#      bookworm deb-src entry). The .debian.tar.xz may 404 on some mirrors:
#      only the .dsc and the upstream orig tarball are used. The tarball's
#      SHA-256 must match both the .dsc and the value pinned in this script;
#   3. builds the application with SMPI's compiler wrappers (smpicc);
#   4. runs it under `smpirun -trace-ti` on a 64-host cluster platform
#      (written by this script), renames SMPI's per-rank files to
#      rank-<r>.txt (r = first field of the file's lines), compresses them
#      with `gzip -9 -n`, writes trace_list.txt (names relative to the list's
#      folder) and provenance.json;
#   5. replays each capture with stock SMPI (`smpirun -replay`) from a temp
#      dir and records its "Simulation time" (or its error) in provenance.json.
#
# Source changes (sed or compiler flags only; each is recorded in
# provenance.json with its reason):
#   hpcc  : src/io.c turns on every sub-benchmark at once and has no run-time
#           switch; a sed keeps only HPL (hpcc-hpl) or only MPIRandomAccess
#           (hpcc-ra), or every sub-benchmark a trace can replay (hpcc-suite,
#           into validation/real/large/: not PTRANS, Single*, MPIRandomAccess;
#           its FFT transpose sends MPI_DOUBLE instead of a derived type). hpcc-ra is also compiled with -include of a header
#           written here that works around SimGrid 3.32's MPI_Test, which
#           leaves *flag unset for MPI_REQUEST_NULL with MPI_STATUS_IGNORE
#           (MPIRandomAccess then spins for ever).
#   examl : -DSMPI_NO_OVERRIDE_MALLOC (an SMPI switch): SMPI's forced header
#           defines malloc/realloc as macros, which breaks ExaML's <malloc.h>.
#   hmmer : Debian's +dfsg tarball has no configure script and no bundled
#           libdivsufsort; a sed drops the two libdivsufsort lines from
#           configure.ac (as Debian's own patch does), autoconf regenerates
#           configure, and the system libdivsufsort is linked.
#
# Computation amounts are SMPI's wall-clock benchmark of the real code
# (--cfg=smpi/host-speed:1Gf: one second of host CPU = 1e9 flops). A recapture,
# on this machine or another, differs in its `compute` amounts and, for the
# apps whose receive order is decided at run time (hpcc-ra, hmmsearch, HPL's
# MPI_Iprobe), possibly in the order of their messages. Not byte-reproducible.
#
# The test suite never needs this script; it only produces data.
set -euo pipefail
export LC_ALL=C

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# smpicc and smpirun of the SimGrid the engine was built on (build/simgrid-prefix.txt), when `make setup` built one.
SIMGRID_PREFIX="$(cat "$ROOT/build/simgrid-prefix.txt" 2>/dev/null || true)"
[ -n "$SIMGRID_PREFIX" ] && PATH="$SIMGRID_PREFIX/bin:$PATH"

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; }

ALL_APPS=(hpcc-hpl hpcc-ra examl hmmsearch mrbayes)
APPS=()
RANKS=()
OUT="$ROOT/validation/real"
WORK=""
REPLAY=1
ENGINE=""
while [ $# -gt 0 ]; do
  case "$1" in
  --only)
    [ $# -ge 2 ] || { echo "--only needs an app" >&2; exit 2; }
    case "$2" in
    hpcc) APPS+=(hpcc-hpl hpcc-ra) ;;
    hmmer) APPS+=(hmmsearch) ;;
    hpcc-hpl | hpcc-ra | hpcc-suite | examl | hmmsearch | mrbayes) APPS+=("$2") ;;
    *) echo "unknown app '$2' (one of: ${ALL_APPS[*]} hpcc-suite hpcc hmmer)" >&2; exit 2 ;;
    esac
    shift ;;
  --ranks)
    [[ "${2:-}" =~ ^[0-9]+$ ]] && [ "$2" -ge 2 ] || { echo "--ranks needs an integer >= 2" >&2; exit 2; }
    RANKS+=("$2"); shift ;;
  --out) [ $# -ge 2 ] || { echo "--out needs a dir" >&2; exit 2; }; OUT="$2"; shift ;;
  --work) [ $# -ge 2 ] || { echo "--work needs a dir" >&2; exit 2; }; WORK="$2"; shift ;;
  --no-replay) REPLAY=0 ;;
  --inspect) [ $# -ge 2 ] || { echo "--inspect needs an engine" >&2; exit 2; }; ENGINE="$(realpath "$2")"; shift ;;
  -h | --help) usage; exit 0 ;;
  *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ ${#APPS[@]} -gt 0 ] || APPS=("${ALL_APPS[@]}")
[ ${#RANKS[@]} -gt 0 ] || RANKS=(16 64)
mapfile -t APPS < <(printf '%s\n' "${APPS[@]}" | awk '!seen[$0]++')

# ---------------------------------------------------------------- pinned sources
declare -A PKG_OF=([hpcc-hpl]=hpcc [hpcc-ra]=hpcc [hpcc-suite]=hpcc [examl]=examl [hmmsearch]=hmmer [mrbayes]=mrbayes)
declare -A DEB_VERSION=([hpcc]=1.5.0-3 [examl]=3.0.22-3 [hmmer]=3.3.2+dfsg-1 [mrbayes]=3.2.7a-6)
declare -A DEB_ORIG=([hpcc]=hpcc_1.5.0.orig.tar.gz [examl]=examl_3.0.22.orig.tar.gz
                     [hmmer]=hmmer_3.3.2+dfsg.orig.tar.xz [mrbayes]=mrbayes_3.2.7a.orig.tar.gz)
declare -A DEB_ORIG_SHA256=(
  [hpcc]=0a6fef7ab9f3347e549fed65ebb98234feea9ee18aea0c8f59baefbe3cf7ffb8
  [examl]=802e673b0c2ea83fdbe6b060048d83f22b6978933a04be64fb9b4334fe318ca3
  [hmmer]=32913d564890c0eac5a95af9cc0a4284e612138be4754212db316fff1d379803
  [mrbayes]=3eed2e3b1d9e46f265b6067a502a89732b6f430585d258b886e008e846ecc5c6)
declare -A SRC_TOP=([hpcc]=hpcc-1.5.0 [examl]=ExaML-3.0.22 [hmmer]=hmmer-3.3.2 [mrbayes]=MrBayes-3.2.7a)
# Captures that stock SMPI 3.32 cannot replay go one folder down, out of the replay checks' way
# (they glob validation/real/*/trace_list.txt).
declare -A OUT_SUBDIR=([hpcc-hpl]="" [hpcc-ra]="unreplayable/" [hpcc-suite]="large/" [examl]="" [hmmsearch]="" [mrbayes]="")
declare -A APP_VERSION=([hpcc-hpl]="HPC Challenge 1.5.0 (HPL 2.0 inside)"
                        [hpcc-suite]="HPC Challenge 1.5.0 (every sub-benchmark but MPIRandomAccess)"
                        [hpcc-ra]="HPC Challenge 1.5.0 (MPIRandomAccess)"
                        [examl]="ExaML 3.0.22" [hmmsearch]="HMMER 3.3.2" [mrbayes]="MrBayes 3.2.7a")

# ---------------------------------------------------------------- dependencies
APT_PACKAGES=(libsimgrid-dev gcc make python3 time gzip xz-utils libblas-dev autoconf libdivsufsort-dev)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "capture_apps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
PY="$(command -v python3)"
SIMGRID_VERSION="$(smpirun -version 2>&1 | head -n 1)"
SIMGRID_DEB="$(dpkg-query -W -f='libsimgrid-dev ${Version}' libsimgrid-dev)"

if [ -z "$WORK" ]; then
  WORK="$(mktemp -d /tmp/capture_apps.XXXXXX)"
  trap 'rm -rf "$WORK"' EXIT
else
  mkdir -p "$WORK"; WORK="$(cd "$WORK" && pwd)"
fi
mkdir -p "$WORK"/{src,build,meta,runs,inputs} "$OUT"
OUT="$(cd "$OUT" && pwd)"
echo "capture_apps: work dir $WORK, output $OUT"

die() { echo "capture_apps: $*" >&2; exit 1; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
now() { date -u +%Y-%m-%dT%H:%M:%SZ; }

# meta APP-or-CAPTURE KEY VALUE... : append a tab-separated record for provenance.json
meta() { local f="$WORK/meta/$1"; shift; (IFS=$'\t'; echo "$*") >>"$f"; }

# bstep APP DIR CMD... : run a build command in DIR (relative to the build
# root of APP), log its output, record it (as typed) for provenance.json.
# shquote ARG... : the args as one might type them (single quotes where needed)
shquote() {
  local a out=()
  for a in "$@"; do
    if [[ "$a" =~ ^[A-Za-z0-9_./=+:,@%-]+$ ]]; then out+=("$a"); else out+=("'${a//\'/\'\\\'\'}'"); fi
  done
  echo "${out[*]}"
}
bstep() {
  local app="$1" dir="$2"; shift 2
  local root="$WORK/build/$app" q
  q="$(shquote "$@")"
  if [ "$dir" = . ]; then meta "$app.build" cmd "$q"; else meta "$app.build" cmd "cd ${dir} && ${q}"; fi
  if ! (cd "$root/$dir" && "$@") >>"$WORK/build/$app.log" 2>&1; then
    tail -n 40 "$WORK/build/$app.log" >&2
    die "build step failed for $app: cd $dir && $q"
  fi
}
# bshell APP DIR 'shell text' : the same for a step that needs a shell (env vars, redirections)
bshell() {
  local app="$1" dir="$2" text="$3"
  if [ "$dir" = . ]; then meta "$app.build" cmd "$text"; else meta "$app.build" cmd "cd ${dir} && ${text}"; fi
  if ! (cd "$WORK/build/$app/$dir" && bash -c "$text") >>"$WORK/build/$app.log" 2>&1; then
    tail -n 40 "$WORK/build/$app.log" >&2
    die "build step failed for $app: cd $dir && $text"
  fi
}
patch_note() { meta "$1.build" patch "$2" "$3"; } # APP WHAT WHY

# ---------------------------------------------------------------- Debian sources
declare -A FETCHED=()
fetch_source() { # PKG -> unpacked in $WORK/src/PKG/
  local pkg="$1" ver="${DEB_VERSION[$1]}" orig="${DEB_ORIG[$1]}"
  [ -z "${FETCHED[$pkg]:-}" ] || return 0
  local d="$WORK/src/$pkg" dsc="${pkg}_${ver#*:}.dsc"
  mkdir -p "$d"
  echo "capture_apps: apt-get source --download-only $pkg=$ver"
  # apt-get exits non-zero when the .debian.tar.xz is missing from the mirror; the checks below decide.
  (cd "$d" && apt-get source --download-only "$pkg=$ver" >"$d/apt-get.log" 2>&1) || true
  [ -s "$d/$dsc" ] || { cat "$d/apt-get.log" >&2; die "no $dsc: is a bookworm deb-src entry configured (apt-get update)?"; }
  [ -s "$d/$orig" ] || { cat "$d/apt-get.log" >&2; die "no $orig downloaded"; }
  local want_dsc got
  want_dsc="$(awk -v n="$orig" '/^Checksums-Sha256:/{f=1;next} /^[^ ]/{f=0} f && $3==n {print $1}' "$d/$dsc")"
  got="$(sha "$d/$orig")"
  [ "$got" = "$want_dsc" ] || die "$orig: SHA-256 $got does not match the .dsc ($want_dsc)"
  [ "$got" = "${DEB_ORIG_SHA256[$pkg]}" ] || die "$orig: SHA-256 $got is not the pinned ${DEB_ORIG_SHA256[$pkg]}"
  echo "capture_apps: $orig SHA-256 $got matches the .dsc and the pinned value"
  mkdir -p "$d/unpacked"
  tar -xf "$d/$orig" -C "$d/unpacked"
  {
    printf 'dsc\t%s\t%s\norig\t%s\t%s\n' "$dsc" "$(sha "$d/$dsc")" "$orig" "$got"
    printf 'fetch\tapt-get source --download-only %s=%s (bookworm deb-src; SHA-256 checked against the .dsc)\n' "$pkg" "$ver"
  } >"$WORK/meta/$pkg.source"
  FETCHED[$pkg]=1
}

# fresh_tree APP : a private copy of the unpacked upstream tree in $WORK/build/APP
fresh_tree() {
  local app="$1" pkg="${PKG_OF[$1]}"
  rm -rf "$WORK/build/$app" "$WORK/build/$app.log" "$WORK/meta/$app.build"
  mkdir -p "$WORK/build"
  cp -a "$WORK/src/$pkg/unpacked/${SRC_TOP[$pkg]}" "$WORK/build/$app"
  meta "$app.build" cmd "tar -xf ${DEB_ORIG[$pkg]} && cd ${SRC_TOP[$pkg]}"
}

# ---------------------------------------------------------------- builds
write_hpcc_make() { # DIR EXTRA_CFLAGS : HPL's make include for SMPI, written by us
  cat >"$1/hpl/Make.smpi" <<EOF
# HPL/HPCC build settings for SimGrid SMPI (written by progsim's scripts/capture_apps.sh)
SHELL        = /bin/sh
CD           = cd
CP           = cp
LN_S         = ln -s
MKDIR        = mkdir -p
RM           = /bin/rm -f
TOUCH        = touch
ARCH         = \$(arch)
TOPdir       = ../../..
INCdir       = \$(TOPdir)/include
BINdir       = \$(TOPdir)/bin/\$(ARCH)
LIBdir       = \$(TOPdir)/lib/\$(ARCH)
HPLlib       = \$(LIBdir)/libhpl.a
MPinc        =
MPlib        =
LAinc        =
LAlib        = -lblas
F2CDEFS      =
HPL_INCLUDES = -I\$(INCdir) -I\$(INCdir)/\$(ARCH) \$(LAinc) \$(MPinc)
HPL_LIBS     = \$(HPLlib) \$(LAlib) \$(MPlib) -lm
HPL_OPTS     = -DHPL_CALL_CBLAS -DHPL_NO_MPI_DATATYPE $2
HPL_DEFS     = \$(F2CDEFS) \$(HPL_OPTS) \$(HPL_INCLUDES)
CC           = smpicc
CCNOOPT      = \$(HPL_DEFS)
CCFLAGS      = \$(HPL_DEFS) -O2
LINKER       = smpicc
LINKFLAGS    = \$(CCFLAGS) -Wl,-u,main
ARCHIVER     = ar
ARFLAGS      = r
RANLIB       = echo
EOF
}

build_hpcc() { # APP (hpcc-hpl | hpcc-ra | hpcc-suite)
  local app="$1" run keep extra=""
  fetch_source hpcc
  fresh_tree "$app"
  local b="$WORK/build/$app"
  case "$app" in
  hpcc-hpl) run="params->RunLatencyBandwidth = 0; params->RunHPL = 1;" keep="only RunHPL" ;;
  hpcc-suite) # the chain still sets every switch to 1, then the unreplayable ones go back to 0
    run="params->RunLatencyBandwidth = 1; params->RunPTRANS = 0; params->RunMPIRandomAccess = 0;"
    run+=" params->RunMPIRandomAccess_LCG = 0; params->RunSingleDGEMM = 0; params->RunSingleStream = 0;"
    run+=" params->RunSingleRandomAccess = 0; params->RunSingleRandomAccess_LCG = 0; params->RunSingleFFT = 0;"
    keep="HPL, StarDGEMM, StarSTREAM, StarRandomAccess (both), StarFFT, MPIFFT and the latency-bandwidth rings: not PTRANS nor the Single* variants, whose collectives on sub-communicators a time-independent trace writes as collectives of the world (it names no communicator: the replay then finds the ranks calling different collectives), nor MPIRandomAccess (MPI_Testany, ANY_SOURCE receives)"
    local fft='s/MPI_Alltoall( a, nn2, p->cmplx, b, nn2, p->cmplx, p->comm );/MPI_Alltoall( a, 2 * nn2, MPI_DOUBLE, b, 2 * nn2, MPI_DOUBLE, p->comm );/'
    grep -qF 'MPI_Alltoall( a, nn2, p->cmplx, b, nn2, p->cmplx, p->comm );' "$b/FFT/pzfft1d.c" || die "hpcc: FFT/pzfft1d.c is not as expected"
    bstep "$app" . sed -i "$fft" FFT/pzfft1d.c
    patch_note "$app" "sed -i '$fft' FFT/pzfft1d.c" \
      "MPIFFT's transpose sends complex numbers as a derived datatype, which SMPI 3.32 traces as type -1 (replayed as 0 bytes); two MPI_DOUBLE per number are the same bytes"
    ;;
  hpcc-ra)
    run="params->RunLatencyBandwidth = 0; params->RunMPIRandomAccess = 1;" keep="only RunMPIRandomAccess"
    cat >"$b/smpi_test_null_fix.h" <<'EOF'
/* Written by progsim's scripts/capture_apps.sh. SimGrid 3.32's MPI_Test leaves *flag unset when the request is
 * MPI_REQUEST_NULL and status is MPI_STATUS_IGNORE (the MPI standard says flag = true). HPCC's MPIRandomAccess
 * tests its null send request that way and then spins for ever. A null request is not traced by SMPI anyway. */
#include <mpi.h>
static inline int progsim_mpi_test_null_fix(MPI_Request *request, int *flag, MPI_Status *status)
{
  if (request != NULL && flag != NULL && *request == MPI_REQUEST_NULL && status == MPI_STATUS_IGNORE) {
    *flag = 1;
    return MPI_SUCCESS;
  }
  return MPI_Test(request, flag, status);
}
#define MPI_Test progsim_mpi_test_null_fix
EOF
    extra="-DRA_TIME_BOUND_DISABLE -include $b/smpi_test_null_fix.h"
    meta "$app.build" cmd "write smpi_test_null_fix.h (text in scripts/capture_apps.sh)"
    patch_note "$app" "-include smpi_test_null_fix.h (defines MPI_Test as a wrapper)" \
      "SimGrid 3.32 PMPI_Test leaves *flag unset for MPI_REQUEST_NULL with MPI_STATUS_IGNORE; MPIRandomAccess then loops for ever"
    patch_note "$app" "-DRA_TIME_BOUND_DISABLE" \
      "hpcc's own compile-time switch: no sampling pre-run that sizes the update count to a 60 s time bound"
    ;;
  esac
  local expr="s/^  params->RunLatencyBandwidth = 1;\$/  $run/"
  grep -q '^  params->RunLatencyBandwidth = 1;$' "$b/src/io.c" || die "hpcc: src/io.c is not as expected"
  bstep "$app" . sed -i "$expr" src/io.c
  patch_note "$app" "sed -i '$expr' src/io.c" \
    "HPCC_Init switches every sub-benchmark on (a chain of assignments ending in this line) and has no run-time switch; this keeps $keep"
  write_hpcc_make "$b" "$extra"
  meta "$app.build" cmd "write hpl/Make.smpi (CC=LINKER=smpicc, CCFLAGS=-DHPL_CALL_CBLAS -DHPL_NO_MPI_DATATYPE${extra:+ $extra} -O2, LAlib=-lblas, LINKFLAGS+=-Wl,-u,main)"
  meta "$app.build" flags "CC=smpicc CCFLAGS='-DHPL_CALL_CBLAS -DHPL_NO_MPI_DATATYPE${extra:+ $extra} -O2' LIBS='-lblas -lm' LINKFLAGS+='-Wl,-u,main'"
  patch_note "$app" "LINKFLAGS += -Wl,-u,main" \
    "smpicc links a shared object, so nothing pulls hpcc's main() out of libhpl.a without it"
  patch_note "$app" "-DHPL_NO_MPI_DATATYPE (and SWAP=0 in hpccinf.txt)" \
    "HPL's own switch to send MPI_DOUBLE buffers instead of derived datatypes, which SMPI 3.32 traces as type -1 (replayed as 0 bytes)"
  bstep "$app" . make arch=smpi -j2
  [ -x "$b/hpcc" ] || die "hpcc: no binary"
  mkdir -p "$WORK/bin/$app"; cp "$b/hpcc" "$b/_hpccinf.txt" "$WORK/bin/$app/"
}

build_examl() {
  fetch_source examl
  fresh_tree examl
  bstep examl parser make -f Makefile.SSE3.gcc
  bstep examl examl make -f Makefile.SSE3.gcc "CC=smpicc -DSMPI_NO_OVERRIDE_MALLOC" -j2
  meta examl.build flags "examl: CC='smpicc -DSMPI_NO_OVERRIDE_MALLOC' with Makefile.SSE3.gcc's own flags (-D_GNU_SOURCE -D__SIM_SSE3 -msse3 -fomit-frame-pointer -funroll-loops -D_OPTIMIZED_FUNCTIONS -D_USE_ALLREDUCE -O2); parse-examl: gcc, Makefile.SSE3.gcc"
  patch_note examl "-DSMPI_NO_OVERRIDE_MALLOC" \
    "SMPI's forced header defines malloc/realloc/free as macros, which breaks ExaML's #include <malloc.h>; this SMPI switch turns those macros off"
  mkdir -p "$WORK/bin/examl"
  cp "$WORK/build/examl/examl/examl" "$WORK/build/examl/parser/parse-examl" "$WORK/bin/examl/"
}

build_hmmsearch() {
  fetch_source hmmer
  fresh_tree hmmsearch
  local e1='/^  libdivsufsort\/Makefile  *\\$/d' e2='/^AC_CONFIG_HEADERS(\[libdivsufsort\/divsufsort.h\])$/d'
  bstep hmmsearch . sed -i -e "$e1" -e "$e2" configure.ac
  patch_note hmmsearch "sed -i -e '$e1' -e '$e2' configure.ac" \
    "Debian's +dfsg tarball removed the bundled libdivsufsort (and configure); the system libdivsufsort-dev is linked instead, as Debian's use_debian_packaged_libdivsufsort.patch does"
  bstep hmmsearch . autoconf
  patch_note hmmsearch "autoconf" "the +dfsg tarball has no configure script (Files-Excluded in debian/copyright)"
  bshell hmmsearch . "SMPI_PRETEND_CC=1 ./configure --enable-mpi --disable-threads CC=smpicc MPICC=smpicc"
  bstep hmmsearch easel make -j2
  bstep hmmsearch src make -j2 hmmsearch
  meta hmmsearch.build flags "configure --enable-mpi --disable-threads CC=smpicc MPICC=smpicc (configure's own CFLAGS: -O3, SSE implementation); LIBS: -lhmmer -leasel -ldivsufsort -lm"
  grep -q '^#define HMMER_MPI 1' "$WORK/build/hmmsearch/src/p7_config.h" || die "hmmer: configured without MPI"
  mkdir -p "$WORK/bin/hmmsearch"
  cp "$WORK/build/hmmsearch/src/hmmsearch" "$WORK/build/hmmsearch/tutorial/globins4.hmm" \
    "$WORK/build/hmmsearch/tutorial/globins45.fa" "$WORK/bin/hmmsearch/"
}

build_mrbayes() {
  fetch_source mrbayes
  fresh_tree mrbayes
  bshell mrbayes . "SMPI_PRETEND_CC=1 ./configure --with-mpi --without-beagle --without-readline CC=smpicc MPICC=smpicc"
  bstep mrbayes . make -j2
  meta mrbayes.build flags "configure --with-mpi --without-beagle --without-readline CC=smpicc MPICC=smpicc (configure's own CFLAGS: $(sed -n 's/^CFLAGS = //p' "$WORK/build/mrbayes/src/Makefile"))"
  grep -q '^#define MPI_ENABLED 1' "$WORK/build/mrbayes/src/config.h" || die "mrbayes: configured without MPI"
  mkdir -p "$WORK/bin/mrbayes"
  cp "$WORK/build/mrbayes/src/mb" "$WORK/build/mrbayes/examples/primates.nex" "$WORK/bin/mrbayes/"
}

# ---------------------------------------------------------------- helpers written by us
cat >"$WORK/prune_examl.py" <<'EOF'
# Keep the first K taxa of a sequential PHYLIP alignment and prune a Newick tree to them
# (written by progsim's scripts/capture_apps.sh). Usage: prune_examl.py PHYLIP TREE K OUT_PHYLIP OUT_TREE
import sys
def parse(s):
    s = s.strip().rstrip(';')
    pos = 0
    def node():
        nonlocal pos
        if s[pos] == '(':
            pos += 1
            kids = [node()]
            while s[pos] == ',':
                pos += 1
                kids.append(node())
            assert s[pos] == ')'
            pos += 1
            while pos < len(s) and s[pos] not in ',)':   # drop inner labels and branch lengths
                pos += 1
            return kids
        start = pos
        while s[pos] not in ',):':
            pos += 1
        name = s[start:pos]
        while pos < len(s) and s[pos] not in ',)':
            pos += 1
        return name
    return node()
def prune(t, keep):
    if isinstance(t, str):
        return t if t in keep else None
    kids = [k for k in (prune(c, keep) for c in t) if k is not None]
    if not kids:
        return None
    return kids[0] if len(kids) == 1 else kids
def newick(t):
    return t if isinstance(t, str) else '(' + ','.join(newick(c) for c in t) + ')'
phylip, tree, k, out_phy, out_tree = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
lines = [l for l in open(phylip).read().split('\n') if l.strip()]
rows = lines[1:1 + k]
keep = {r.split()[0] for r in rows}
with open(out_phy, 'w') as f:
    f.write('%d %s\n' % (k, lines[0].split()[1]) + '\n'.join(rows) + '\n')
t = prune(parse(open(tree).read()), keep)
while len(t) < 3:   # unrooted: the top node needs three children
    i = next(j for j, c in enumerate(t) if isinstance(c, list))
    t = t[:i] + t[i] + t[i + 1:]
with open(out_tree, 'w') as f:
    f.write(newick(t) + ';\n')
EOF

cat >"$WORK/make_hmmer_db.py" <<'EOF'
# A deterministic protein database for hmmsearch (written by progsim's scripts/capture_apps.sh):
# NSEQ sequences; every EVERY-th one is a real globin from GLOBINS (cycled), the others are i.i.d.
# uniform random amino-acid sequences of length L (Python's random.Random(SEED)).
# Usage: make_hmmer_db.py OUT NSEQ L EVERY GLOBINS SEED
import random, sys
out, nseq, length, every, globins, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
real = []
for line in open(globins):
    line = line.strip()
    if line.startswith('>'):
        real.append([line[1:].split()[0], ''])
    elif line:
        real[-1][1] += line
rng = random.Random(seed)
aa = 'ACDEFGHIKLMNPQRSTVWY'
with open(out, 'w') as f:
    for i in range(nseq):
        if i % every == every - 1:
            name, seq = real[(i // every) % len(real)]
            name = 'hom%07d_%s' % (i, name)
        else:
            seq = ''.join(rng.choices(aa, k=length))
            name = 'rnd%07d' % i
        f.write('>' + name + '\n')
        for j in range(0, len(seq), 60):
            f.write(seq[j:j + 60] + '\n')
EOF

cat >"$WORK/provenance.py" <<'EOF'
# Writes provenance.json of one capture (written by progsim's scripts/capture_apps.sh).
# Usage: provenance.py PLAIN_DIR NRANKS OUT_JSON META_FILE...   (tab-separated records, see capture_apps.sh)
import collections, json, os, sys
plain, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
doc = collections.OrderedDict()
lists = {'cmd': [], 'patch': [], 'input': [], 'cfg': [], 'arg': [], 'output': [], 'note': [], 'flags': []}
for path in sys.argv[4:]:
    if not os.path.exists(path):
        continue
    for line in open(path):
        f = line.rstrip('\n').split('\t')
        key, vals = f[0], f[1:]
        if key == 'cmd': lists['cmd'].append(vals[0])
        elif key == 'patch': lists['patch'].append({'change': vals[0], 'reason': vals[1]})
        elif key == 'input': lists['input'].append({'file': vals[0], 'sha256': vals[1], 'origin': vals[2]})
        elif key == 'dsc': doc['debian_dsc'] = {'file': vals[0], 'sha256': vals[1]}
        elif key == 'orig': doc['orig_tarball'] = {'file': vals[0], 'sha256': vals[1], 'verified_against': 'Checksums-Sha256 of the .dsc and the value pinned in scripts/capture_apps.sh'}
        elif key in lists: lists[key].append(vals[0])
        else: doc[key] = vals[0] if len(vals) == 1 else vals
counts = collections.Counter()
lines = 0
size = 0
for r in range(n):
    p = os.path.join(plain, 'rank-%d.txt' % r)
    size += os.path.getsize(p)
    with open(p) as f:
        for line in f:
            lines += 1
            counts[line.split(' ', 2)[1].rstrip('\n')] += 1
gz = sum(os.path.getsize(os.path.join(os.path.dirname(out), 'rank-%d.txt.gz' % r)) for r in range(n))
ordered = collections.OrderedDict()
for k in ['capture']:
    if k in doc: ordered[k] = doc.pop(k)
ordered['ranks'] = n
for k in ['app', 'app_version', 'debian_package', 'debian_version', 'debian_dsc', 'orig_tarball', 'fetch']:
    if k in doc: ordered[k] = doc.pop(k)
ordered['build'] = {'commands': lists['cmd'], 'flags': lists['flags'], 'source_changes': lists['patch']}
ordered['inputs'] = {'files': lists['input'], 'arguments': lists['arg']}
cap = collections.OrderedDict()
for k in ['smpirun_command', 'cwd', 'capture_date_utc', 'simgrid_version', 'simgrid_debian_package', 'privatization',
          'platform', 'platform_sha256', 'hostfile', 'capture_simulated_time_s', 'capture_wall_time_s',
          'capture_peak_rss_kb', 'capture_host']:
    if k in doc: cap[k] = doc.pop(k)
cap['cfg_flags'] = lists['cfg']
ordered['capture_run'] = cap
ordered['app_output'] = lists['output']
ordered['trace'] = collections.OrderedDict([
    ('ranks', n), ('files', ['rank-%d.txt.gz' % r for r in range(n)]), ('list_file', 'trace_list.txt'),
    ('lines', lines), ('actions', dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))),
    ('uncompressed_bytes', size), ('gzip_bytes', gz), ('compression', 'gzip -9 -n (byte-reproducible for the same text)')])
rep = collections.OrderedDict()
for k in list(doc):
    if k.startswith('replay_'):
        rep[k[len('replay_'):]] = doc.pop(k)
ordered['stock_smpi_replay'] = rep
ordered.update(doc)
ordered['notes'] = lists['note']
def number(key, v):
    if not isinstance(v, str):
        return v
    if key.endswith('wall_time_s') and ':' in v:   # /usr/bin/time's [h:]m:ss.ss
        secs = 0.0
        for part in v.split(':'):
            secs = secs * 60 + float(part)
        return round(secs, 2)
    if key.endswith(('_time_s', '_kb', 'exit_status')):
        try:
            return int(v) if v.lstrip('-').isdigit() else float(v)
        except ValueError:
            return v
    return v
for section in (ordered['capture_run'], ordered['stock_smpi_replay']):
    for k in list(section):
        section[k] = number(k, section[k])
with open(out, 'w') as f:
    json.dump(ordered, f, indent=2)
    f.write('\n')
EOF

# ---------------------------------------------------------------- platform
write_platform() { # DIR NHOSTS
  local last=$(($2 - 1))
  cat >"$1/platform.xml" <<EOF
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- progsim capture platform (scripts/capture_apps.sh): $2 hosts of 1 Gflop/s, 10 GB/s / 1 us private
     links into a 100 GB/s backbone. -->
<platform version="4.1">
  <cluster id="capture" prefix="node-" suffix="" radical="0-$last" speed="1Gf"
           bw="10GBps" lat="1us" bb_bw="100GBps" bb_lat="0us"/>
</platform>
EOF
  for ((i = 0; i < $2; i++)); do echo "node-$i"; done >"$1/hostfile"
}

grid() { # N -> "P Q" with P <= Q, P the largest divisor of N not above sqrt(N)
  local n="$1" p
  for ((p = 1; p * p <= n; p++)); do :; done
  for ((p = p - 1; p > 1; p--)); do [ $((n % p)) -eq 0 ] && break; done
  echo "$p $((n / p))"
}

# ---------------------------------------------------------------- inputs and runs
declare -A BUILT=()
prepare_run() { # APP NP RUNDIR CAPTURE -> sets ARGS (array) and CFGS (array), writes inputs into RUNDIR
  local app="$1" np="$2" run="$3" cap="$4" bin="$WORK/bin/$1"
  ARGS=(); CFGS=(--cfg=smpi/host-speed:1Gf --cfg=smpi/display-timing:yes)
  case "$app" in
  hpcc-hpl | hpcc-ra | hpcc-suite)
    local n nb=80 pq p q
    pq="$(grid "$np")"; p="${pq% *}"; q="${pq#* }"
    if [ "$app" = hpcc-ra ]; then n=256; else n=3000; fi
    sed -e "s/^1000 .*Ns\$/$n         Ns/" -e "s/^80 .*NBs\$/$nb           NBs/" \
      -e "s/^2 .*Ps\$/$p            Ps/" -e "s/^2 .*Qs\$/$q            Qs/" \
      -e "s/^2 .*SWAP (0=bin-exch,1=long,2=mix)\$/0            SWAP (0=bin-exch,1=long,2=mix)/" \
      "$bin/_hpccinf.txt" >"$run/hpccinf.txt"
    grep -q "^$n  *Ns" "$run/hpccinf.txt" && grep -q "^$p  *Ps" "$run/hpccinf.txt" &&
      grep -q "^$q  *Qs" "$run/hpccinf.txt" && grep -q "^0  *SWAP" "$run/hpccinf.txt" || die "hpccinf.txt edit failed"
    ln -s "$bin/hpcc" "$run/hpcc"
    EXE=./hpcc
    meta "$cap" input _hpccinf.txt "$(sha "$bin/_hpccinf.txt")" "hpcc orig tarball (template)"
    meta "$cap" input hpccinf.txt "$(sha "$run/hpccinf.txt")" \
      "_hpccinf.txt with N=$n NB=$nb P=$p Q=$q SWAP=0 (sed in scripts/capture_apps.sh); read from the cwd"
    meta "$cap" arg "(none: hpcc reads hpccinf.txt from the current directory and appends to hpccoutf.txt)"
    if [ "$app" = hpcc-ra ]; then
      CFGS+=(--cfg=smpi/test:0)
      meta "$cap" note "--cfg=smpi/test:0: SMPI injects smpi/test (1e-4 s) times a process-global multiplier in every failed MPI_Testany, and in 3.32 that multiplier grows even with smpi/grow-injected-times:no; with the default the 16-rank capture ran 1063 simulated seconds for a few ms of work. The number of testany lines is the same either way (one per generated update)."
      meta "$cap" note "The HPL problem size N only sizes MPIRandomAccess's table (N*N*8 bytes in all, half of it for the table): N=256 gives 2^16 words, 4 updates per word. HPL itself is not run."
    else
      meta "$cap" note "HPL 1ringM panel broadcast (BCAST=1) probes for the next panel with MPI_Iprobe (not traced); the order of those receives follows the capture run's timing."
    fi
    ;;
  examl)
    local src="$WORK/build/examl/testData"
    "$PY" "$WORK/prune_examl.py" "$src/49" "$src/49.tree" 12 "$run/taxa12.phy" "$run/taxa12.tree"
    (cd "$run" && "$bin/parse-examl" -s taxa12.phy -q "$src/49.model" -m DNA -n taxa12 >parse-examl.log 2>&1) ||
      die "parse-examl failed"
    rm -f "$run"/RAxML_info.taxa12
    ln -s "$bin/examl" "$run/examl"
    EXE=./examl
    ARGS=(-s taxa12.binary -t taxa12.tree -m GAMMA -n T -f e)
    meta "$cap" input testData/49 "$(sha "$src/49")" "ExaML orig tarball: 49 taxa x 1200 sites DNA (PHYLIP)"
    meta "$cap" input testData/49.tree "$(sha "$src/49.tree")" "ExaML orig tarball: starting tree"
    meta "$cap" input testData/49.model "$(sha "$src/49.model")" "ExaML orig tarball: 4 partitions (gene1..gene4)"
    meta "$cap" input taxa12.phy "$(sha "$run/taxa12.phy")" "first 12 taxa of testData/49 (prune_examl.py in scripts/capture_apps.sh)"
    meta "$cap" input taxa12.tree "$(sha "$run/taxa12.tree")" "testData/49.tree pruned to those 12 taxa"
    meta "$cap" input taxa12.binary "$(sha "$run/taxa12.binary")" "parse-examl -s taxa12.phy -q testData/49.model -m DNA -n taxa12"
    meta "$cap" arg "${ARGS[*]}"
    meta "$cap" note "-f e: evaluate the given tree, optimising branch lengths and the GAMMA model; every likelihood and derivative evaluation ends in an MPI_Allreduce. 12 taxa keep the 64-rank trace under 3 MB (49 taxa: ~10 MB)."
    ;;
  hmmsearch)
    if [ ! -s "$WORK/inputs/db.fa" ]; then
      "$PY" "$WORK/make_hmmer_db.py" "$WORK/inputs/db.fa" 200000 320 100 "$bin/globins45.fa" 20240607
    fi
    ln -s "$WORK/inputs/db.fa" "$run/db.fa"
    cp "$bin/globins4.hmm" "$run/"
    ln -s "$bin/hmmsearch" "$run/hmmsearch"
    EXE=./hmmsearch
    ARGS=(--mpi --max -o hmmsearch.out --tblout hits.tbl globins4.hmm db.fa)
    meta "$cap" input tutorial/globins4.hmm "$(sha "$run/globins4.hmm")" "HMMER orig tarball: profile HMM of 4 globins (149 match states)"
    meta "$cap" input tutorial/globins45.fa "$(sha "$bin/globins45.fa")" "HMMER orig tarball: 45 globin sequences"
    meta "$cap" input db.fa "$(sha "$WORK/inputs/db.fa")" \
      "make_hmmer_db.py db.fa 200000 320 100 globins45.fa 20240607 (scripts/capture_apps.sh): 200000 sequences, every 100th a real globin, the rest uniform random 320-mers (Python $("$PY" -c 'import platform; print(platform.python_version())') random.Random)"
    meta "$cap" arg "${ARGS[*]}"
    meta "$cap" note "hmmsearch --mpi: rank 0 reads the database and hands out blocks of up to 512 KiB of sequence (offset, length, count) to whichever worker asks first: MPI_Probe(MPI_ANY_SOURCE) then MPI_Recv from status.MPI_SOURCE. MPI_Probe is not traced; the recv lines name the source the capture run saw first. --max turns off HMMER's filters so that the workers do most of the computing."
    ;;
  mrbayes)
    cp "$bin/primates.nex" "$run/"
    cat >"$run/batch.nex" <<'EOF'
#NEXUS
[ MrBayes batch file written by progsim's scripts/capture_apps.sh ]
begin mrbayes;
  set autoclose=yes nowarn=yes seed=12345 swapseed=54321;
  execute primates.nex;
  lset nst=6 rates=invgamma;
  mcmc nruns=4 nchains=16 ngen=1000 samplefreq=100 printfreq=500 diagnfreq=500;
  quit;
end;
EOF
    ln -s "$bin/mb" "$run/mb"
    EXE=./mb
    ARGS=(batch.nex)
    meta "$cap" input examples/primates.nex "$(sha "$run/primates.nex")" "MrBayes orig tarball: 12 primates, 898 DNA sites"
    meta "$cap" input batch.nex "$(sha "$run/batch.nex")" "written by scripts/capture_apps.sh: GTR+I+G, 4 runs x 16 chains (Metropolis coupling), 1000 generations, fixed seeds"
    meta "$cap" arg "${ARGS[*]}"
    meta "$cap" note "MrBayes spreads the 64 chains (4 runs x 16 heated chains) over the ranks; every generation it proposes a swap between two chains, and when they sit on different ranks the two exchange ids and state with MPI_Isend/MPI_Irecv/MPI_Waitall (5 to 21 doubles). The partners are drawn from the swap seed, identically on every rank. MPI_Allreduce of one int or a few doubles gathers acceptance and diagnostics."
    ;;
  esac
}

capture() { # APP NP
  local app="$1" np="$2" cap="$1-$2"
  local run="$WORK/runs/$cap" nh=$((np > 64 ? np : 64))
  rm -rf "$run" "$WORK/meta/$cap"; mkdir -p "$run"
  write_platform "$run" "$nh"
  prepare_run "$app" "$np" "$run" "$cap"
  local cmd=(smpirun -np "$np" -platform platform.xml -hostfile hostfile -trace-ti --cfg=tracing/filename:ti
             "$EXE" "${ARGS[@]}" "${CFGS[@]}")
  echo "capture_apps: $cap: ${cmd[*]}"
  local date; date="$(now)"
  if ! (cd "$run" && /usr/bin/time -v -o time.txt "${cmd[@]}" >smpirun.log 2>&1); then
    tail -n 30 "$run/smpirun.log" >&2
    die "capture of $cap failed"
  fi
  # SMPI's list file names "ti_files/<time>_rank-<pid>.txt"; the rank is the first field of each line.
  local sub="${OUT_SUBDIR[$app]}"
  # captures above 64 ranks replay too long for the test suite: large/, which the replay checks' glob skips
  if [ -z "$sub" ] && [ "$np" -gt 64 ]; then sub="large/"; fi
  local dest="$OUT/$sub$cap"
  local tmp="$OUT/.tmp-$cap" plain="$WORK/runs/$cap.plain" f r n=0
  rm -rf "$tmp" "$plain"; mkdir -p "$tmp" "$plain"
  while IFS= read -r f; do
    [ -n "$f" ] || continue
    r="$(head -n 1 "$run/$f" | cut -d' ' -f1)"
    [[ "$r" =~ ^[0-9]+$ ]] || die "$cap: $f does not start with a rank"
    [ ! -e "$plain/rank-$r.txt" ] || die "$cap: rank $r twice"
    awk -v r="$r" '$1 != r { bad = 1 } END { exit bad }' "$run/$f" || die "$cap: $f mixes ranks"
    cp "$run/$f" "$plain/rank-$r.txt"
    n=$((n + 1))
  done <"$run/ti"
  [ "$n" -eq "$np" ] || die "$cap: $n rank files, expected $np"
  for ((r = 0; r < np; r++)); do
    [ -e "$plain/rank-$r.txt" ] || die "$cap: rank $r missing"
    gzip -9 -n -c "$plain/rank-$r.txt" >"$tmp/rank-$r.txt.gz"
    echo "rank-$r.txt.gz"
  done >"$tmp/trace_list.txt"

  local simt wall rss
  simt="$(sed -n 's/.*Simulated time: \([0-9.e+-]*\) seconds.*/\1/p' "$run/smpirun.log" | tail -n 1)"
  wall="$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$run/time.txt")"
  rss="$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$run/time.txt")"
  local priv; priv="$(sed -n "s/.*Set 'smpi\/privatization' to '\([^']*\)'.*/\1/p" "$run/smpirun.log" | tail -n 1)"
  {
    printf 'capture\t%s\napp\t%s\napp_version\t%s\n' "$cap" "$app" "${APP_VERSION[$app]}"
    printf 'debian_package\t%s\ndebian_version\t%s\n' "${PKG_OF[$app]}" "${DEB_VERSION[${PKG_OF[$app]}]}"
    printf 'smpirun_command\t%s\n' "${cmd[*]}"
    printf 'cwd\t%s\n' "the run folder, holding platform.xml, hostfile, the inputs and a link to the binary"
    printf 'capture_date_utc\t%s\nsimgrid_version\t%s\nsimgrid_debian_package\t%s\n' "$date" "$SIMGRID_VERSION" "$SIMGRID_DEB"
    printf 'privatization\t%s\n' "smpirun's default (it sets smpi/privatization to '${priv:-?}', i.e. mmap/dlopen of the binary per rank)"
    printf 'platform\t%s\n' "SimGrid cluster of $nh hosts node-0..node-$((nh - 1)): speed 1Gf, bw 10GBps, lat 1us, bb_bw 100GBps, bb_lat 0us (write_platform in scripts/capture_apps.sh)"
    printf 'platform_sha256\t%s\n' "$(sha "$run/platform.xml")"
    printf 'hostfile\t%s\n' "node-0 .. node-$((nh - 1)), one per line: rank i runs on node-i"
    printf 'capture_simulated_time_s\t%s\ncapture_wall_time_s\t%s\ncapture_peak_rss_kb\t%s\n' "$simt" "$wall" "$rss"
    printf 'capture_host\t%s\n' "$(nproc) cores, $(uname -m), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
    local c; for c in "${CFGS[@]}"; do printf 'cfg\t%s\n' "$c"; done
    printf 'cfg\t%s\n' "-trace-ti --cfg=tracing/filename:ti (smpirun adds --cfg=tracing:yes --cfg=tracing/smpi:yes --cfg=tracing/smpi/format:TI --cfg=tracing/smpi/computing:yes --cfg=surf/precision:1e-9 --cfg=network/model:SMPI)"
  } >>"$WORK/meta/$cap"
  case "$app" in
  hpcc-hpl | hpcc-suite) grep -E "^WR|PASSED|FAILED|GB/s|GFLOPS|Gflop/s|usec" "$run/hpccoutf.txt" | sed 's/^/output\t/' >>"$WORK/meta/$cap" || true ;;
  hpcc-ra) grep -E "Main table size|updates|GUP/s|errors" "$run/hpccoutf.txt" | sed 's/^/output\t/' >>"$WORK/meta/$cap" || true ;;
  examl) grep -E "Likelihood tree|Overall Time" "$run/ExaML_info.T" | sed 's/^/output\t/' >>"$WORK/meta/$cap" || true ;;
  mrbayes) grep -E "Average standard deviation of split frequencies|Analysis completed" "$run/smpirun.log" | sed 's/^ */output\t/' >>"$WORK/meta/$cap" || true ;;
  hmmsearch) printf 'output\t%s hits in hits.tbl; %s\n' "$(grep -vc '^#' "$run/hits.tbl" || true)" \
      "$(grep -m1 'Target sequences' "$run/hmmsearch.out" | tr -s ' ')" >>"$WORK/meta/$cap" ;;
  esac
  meta "$cap" note "compute amounts: SMPI's wall-clock benchmark of the code between MPI calls on the capture host, times smpi/host-speed (1Gf); bursts under smpi/cpu-threshold (1e-6 s) are dropped. A recapture gives other amounts (not byte-reproducible)."

  if [ "$REPLAY" = 1 ]; then replay "$cap" "$np" "$plain" "$run"; fi
  if [ -n "$ENGINE" ]; then
    local ins; ins="$(cd "$plain" && for ((r = 0; r < np; r++)); do echo "rank-$r.txt"; done >list.txt &&
      "$ENGINE" --inspect-trace list.txt 2>&1 | grep -v '^file ' | head -n 3 | tr '\n' ' ')" || true
    meta "$cap" inspect "$ins"
    echo "capture_apps: $cap: $ENGINE --inspect-trace: $ins"
  fi
  "$PY" "$WORK/provenance.py" "$plain" "$np" "$tmp/provenance.json" \
    "$WORK/meta/${PKG_OF[$app]}.source" "$WORK/meta/$app.build" "$WORK/meta/$cap"
  rm -rf "${dest:?}"
  mkdir -p "$(dirname "$dest")"
  mv "$tmp" "$dest"
  rm -rf "$plain"
  local lines gzb
  lines="$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["trace"]["lines"], d["trace"]["uncompressed_bytes"], d["trace"]["gzip_bytes"], d["stock_smpi_replay"].get("simulation_time_s", d["stock_smpi_replay"].get("result", "-")))' "$dest/provenance.json")"
  echo "capture_apps: $cap done (${dest#"$OUT"/}): lines uncompressed_bytes gzip_bytes replay_time = $lines"
}

replay() { # CAPTURE NP PLAIN_DIR RUN_DIR : stock SMPI replay of the plain files, from a temp dir
  local cap="$1" np="$2" plain="$3" run="$4" d r
  d="$(mktemp -d "$WORK/replay.XXXXXX")"
  for ((r = 0; r < np; r++)); do cp "$plain/rank-$r.txt" "$d/"; echo "rank-$r.txt"; done >"$d/list.txt"
  cp "$run/platform.xml" "$run/hostfile" "$d/"
  local cmd=(smpirun -np "$np" -platform platform.xml -hostfile hostfile -replay list.txt --log=smpi_replay.thres:info)
  local rc=0
  (cd "$d" && /usr/bin/time -v -o time.txt "${cmd[@]}" >replay.log 2>&1) || rc=$?
  local t wall rss err
  t="$(sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' "$d/replay.log" | tail -n 1)"
  wall="$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$d/time.txt")"
  rss="$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$d/time.txt")"
  err="$(grep -m1 -iE 'CRITICAL|deadlock|error|Aborted' "$d/replay.log" || true)"
  {
    printf 'replay_command\t%s\n' "${cmd[*]}"
    printf 'replay_cwd\t%s\n' "a temp dir holding the decompressed rank-<r>.txt files, list.txt (their names) and the capture platform"
    printf 'replay_exit_status\t%s\n' "$rc"
    if [ -n "$t" ] && [ "$rc" = 0 ] && ! grep -qi deadlock "$d/replay.log"; then
      printf 'replay_result\tok\nreplay_simulation_time_s\t%s\n' "$t"
    else
      printf 'replay_result\tfailed\nreplay_error\t%s\n' "${err:-no Simulation time line}"
    fi
    printf 'replay_wall_time_s\t%s\nreplay_peak_rss_kb\t%s\n' "$wall" "$rss"
  } >>"$WORK/meta/$cap"
  echo "capture_apps: $cap: stock replay exit $rc, Simulation time ${t:--} ${err:+($err)}"
  rm -rf "$d"
}

for app in "${APPS[@]}"; do
  echo "capture_apps: building $app"
  case "$app" in
  hpcc-*) build_hpcc "$app" ;;
  examl) build_examl ;;
  hmmsearch) build_hmmsearch ;;
  mrbayes) build_mrbayes ;;
  esac
done
for app in "${APPS[@]}"; do
  for np in "${RANKS[@]}"; do
    capture "$app" "$np"
  done
done
echo "capture_apps: done; captures in $OUT"
