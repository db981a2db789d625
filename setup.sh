#!/bin/bash
# Set up iogap on this machine, then run the suite or the tests.
#   ./setup.sh suite [reframe options]   run the checks (generic profile here)
#   ./setup.sh tests [pytest options]    run the project's own tests
# OS packages are installed with apt when we are root or have sudo;
# otherwise the missing ones are named and the script stops.
set -o errexit -o nounset -o pipefail
cd "$(dirname "$0")"

what=${1:-}
case "$what" in
    suite|tests) shift ;;
    *) echo "usage: ./setup.sh suite|tests [options]" >&2; exit 2 ;;
esac

# Tools the generic profile uses: a C compiler, OpenMPI, parallel HDF5,
# numactl, fincore (util-linux) and a Python that can make venvs
packages=(gcc make openmpi-bin libopenmpi-dev libhdf5-openmpi-dev
          hdf5-tools numactl util-linux python3-venv)
missing=()
if command -v dpkg-query >/dev/null; then
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' \
            || missing+=("$p")
    done
fi

if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then sudo=; elif sudo -n true 2>/dev/null; then sudo=sudo
    else
        echo "setup: please install: ${missing[*]} (needs root or sudo)" >&2
        exit 1
    fi
    echo "setup: installing ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
export PATH="$PWD/.venv/bin:$PATH"

if [ "$what" = suite ]; then
    exec reframe -C reframe_config.py -r "$@"
else
    exec python -m pytest "$@"
fi
