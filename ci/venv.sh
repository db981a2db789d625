#!/bin/bash
# The project's virtual environment for a CI job: .venv, kept in GitLab's
# cache under a key made of pyproject.toml's hash. A restored .venv that
# still imports is reused; otherwise it is built from pyproject.toml. The
# cache may come from another build directory, so the console scripts are
# pointed at this one and the project is installed again (editable, no
# dependencies: seconds) from this checkout.
set -o errexit -o nounset -o pipefail
cd "$(dirname "$0")/.."
venv=$PWD/.venv

if [ -x "$venv/bin/python" ] &&
   "$venv/bin/python" -c 'import reframe, yaml, matplotlib, scipy, setuptools, wheel' 2>/dev/null; then
    echo "venv: reusing the cached .venv (pyproject.toml unchanged)"
else
    echo "venv: building .venv from pyproject.toml (no cache for it yet)"
    rm -rf "$venv"
    "${IOGAP_PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/python" -m pip install -q 'setuptools>=64' wheel -e '.[test,report]'
fi

# Scripts' first line names the interpreter of the directory they were built in
{ grep -lIs '^#!.*/bin/python' "$venv"/bin/* || true; } | while read -r script; do
    sed -i "1s|^#!.*/bin/python[0-9.]*$|#!$venv/bin/python|" "$script"
done
"$venv/bin/python" -m pip install -q --no-deps --no-build-isolation -e .
