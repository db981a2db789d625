#!/bin/bash
# The tool stack's costs on this machine, measured the way a user meets
# them: a cold Spack build, a second setup with the view in place, and the
# whole generic suite with every family on.
#
#   bench/stack.sh [OUTDIR]      (needs IOGAP_SPACK_ROOT, as ./setup.sh does)
#
# The cold build goes to OUTDIR/spack (IOGAP_SPACK_ENV), so the repository's
# own build/spack is left as it is; the suite runs with the repository's view.
set -o errexit -o nounset -o pipefail
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d /var/tmp/iogap-stack-bench.XXXXXX)}
mkdir -p "$out"
: "${IOGAP_SPACK_ROOT:?set IOGAP_SPACK_ROOT (and IOGAP_SPACK_MIRROR) first}"

seconds() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.0f", b - a}'; }

t0=$(date +%s.%N)
IOGAP_SPACK_ENV=$out/spack/generic .venv/bin/iogap spack \
    build 2>&1 | tee "$out/cold.log"
echo "cold build (concretize + install): $(seconds "$t0") s"

t0=$(date +%s.%N)
./setup.sh tests --version >/dev/null 2>&1
echo "setup with the view in place: $(seconds "$t0") s"

t0=$(date +%s.%N)
IOGAP_OUTPUT=$out/suite ./setup.sh suite >"$out/suite.log" 2>&1 || true
echo "full generic suite: $(seconds "$t0") s;" \
    "$(grep -E 'Ran [0-9]+/[0-9]+ test case' "$out/suite.log" |
       sed 's/\x1b\[[0-9;]*m//g; s/.*Ran/ran/')"
echo "logs in $out"
