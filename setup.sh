#!/bin/bash
# Set up iogap on this machine, then run the suite or the tests.
#   ./setup.sh suite [reframe options]   run the checks (generic profile here)
#   ./setup.sh tests [pytest options]    run the project's own tests
# OS packages are installed with apt when we are root or have sudo;
# otherwise the missing ones are named and the script stops. The pinned
# tools of spack.yaml are built with a Spack (IOGAP_SPACK_ROOT, spack on
# PATH, else upstream Spack cloned into build/ at the pinned commit, or
# offline from IOGAP_SPACK_SOURCE: docs/guide/spack.md) into
# build/spack/<overlay>/view, once: later runs reuse the view while its
# inputs (spack.yaml, the overlay, spack/repo) stay the same. A Spack
# source that cannot be reached is said in one line and the suite runs
# what it can.
set -o errexit -o nounset -o pipefail
cd "$(dirname "$0")"

what=${1:-}
case "$what" in
    suite|tests) shift ;;
    *) echo "usage: ./setup.sh suite|tests [options]" >&2; exit 2 ;;
esac

# What the generic profile and a Spack build take from the OS: compilers,
# Open MPI, parallel HDF5, numactl, fincore (util-linux), build tools
packages=(gcc g++ gfortran make openmpi-bin libopenmpi-dev
          libhdf5-openmpi-dev hdf5-tools numactl libnuma-dev util-linux
          python3-venv autoconf automake libtool m4 perl pkgconf zlib1g-dev
          bzip2 xz-utils patch file git)
# The tests also run a private Slurm (minicori), the nightly pipeline in
# gitlab-ci-local (which copies its cache with rsync) and the morning page
# in a headless chromium
if [ "$what" = tests ]; then
    packages+=(slurm-wlm munge libpmix-dev rsync chromium)
fi
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
# clingo: the concretizer Spack runs in this Python
.venv/bin/python -m pip install -q --disable-pip-version-check \
    -e ".[test,report,spack]" 2>&1 | grep -v '^WARNING: Location' >&2 || true
.venv/bin/python -c 'import iogap, reframe' || {
    echo "setup: installing the Python packages failed" >&2; exit 1; }
export PATH="$PWD/.venv/bin:$PATH"

# The selected system's overlay (the same --system reframe gets). Status 5:
# the Spack source cannot be reached, said in one line; go on without it
status=0
if [ "$what" = suite ]; then
    iogap spack build "$@" || status=$?
else
    iogap spack build || status=$?
fi
if [ "$status" != 0 ] && [ "$status" != 5 ]; then
    exit "$status"
fi

if [ "$what" = suite ]; then
    exec reframe -C reframe_config.py -r "$@"
else
    exec python -m pytest "$@"
fi
