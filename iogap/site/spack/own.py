'''The project's own job-side tools, built like the benchmarks.

The ``iogap-tools`` Spack package (``spack/repo/``, pinned in
``spack.yaml``) installs these files from the checkout into
``<prefix>/libexec/iogap/``; the checks take them from the view through the
provider, and without a view from the checkout itself. This module is the
one list of them: the package runs it from the checkout (stdlib only).
'''

import hashlib
import os

import iogap

#: The checkout holding the sources
ROOT = iogap.HOME

#: Where the package installs them, below its prefix (and the view)
SUBDIR = 'libexec/iogap'

#: Installed name -> source in the checkout. The dd driver sources job.sh
#: and runs rank-probe.sh from its own directory; ranked.sh sources job.sh
#: and runs iotrace.py from its own.
FILES = {
    'dd-stream.sh': 'iogap/dd/dd-stream.sh',
    'job.sh': 'iogap/core/job.sh',
    'rank-probe.sh': 'iogap/core/rank-probe.sh',
    'ranked.sh': 'iogap/core/ranked.sh',
    'iotrace.py': 'iogap/core/iotrace.py',
}


def digest(root=ROOT):
    '''sha256 over the installed files' names and contents: the package's
    ``sources`` variant, so that a changed tool is a new spec.'''
    h = hashlib.sha256()
    for name, path in sorted(FILES.items()):
        with open(os.path.join(root, path), 'rb') as fp:
            h.update(name.encode() + b'\0' + fp.read())

    return h.hexdigest()


def stale(libexec):
    '''Whether the tools installed in ``libexec`` were built from other
    sources than the checkout's (the package writes their digest); a view
    this host cannot read (a remote partition's) is taken as built.'''
    try:
        with open(os.path.join(libexec, 'SOURCE')) as fp:
            return fp.read().split('sha256=')[-1].strip() != digest()
    except OSError:
        return False


def source(name):
    '''The checkout's copy of tool ``name``.'''
    return os.path.join(ROOT, FILES[name])
