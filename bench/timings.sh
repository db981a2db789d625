#!/bin/bash
# The house's speed goals, measured (docs/benchmarks.md): the unit tier,
# listing Cori's checks, and optionally a whole .ci/run from a clean clone.
#   bench/timings.sh [runs] [--ci]
# Prints wall and CPU seconds of each run, and the load average before it.
set -o nounset -o pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
py=.venv/bin/python
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

measure() {    # LABEL COMMAND...
    local label=$1; shift
    for i in $(seq "$runs"); do
        read -r load _ < /proc/loadavg
        /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$@" > "$tmp/out" 2>&1
        local status=$?
        read -r wall user sys < "$tmp/t"
        printf '%-22s run %d: %6.1f s wall, %6.1f s CPU, exit %d, load %s\n' \
            "$label" "$i" "$wall" "$(echo "$user + $sys" | bc)" "$status" \
            "$load"
    done
}

measure 'unit tier (-n 2)' $py -m pytest -q -m 'not reframe' -n 2 \
    -p no:cacheprovider
measure 'list cori' env IOGAP_OUTPUT="$tmp/out-list" \
    .venv/bin/reframe -C reframe_config.py --system cori -l
if [ "${2:-}" = --ci ]; then
    # beside this checkout, as CI clones it: .ci/run finds ../shared there
    clone=$(mktemp -d "$(dirname "$PWD")/iogap-ci-clone.XXXXXX")
    trap 'rm -rf "$tmp" "$clone"' EXIT
    git clone -q . "$clone"
    runs=1 measure '.ci/run (clean clone)' "$clone/.ci/run"
fi
