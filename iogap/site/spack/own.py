'''The one list of the project's own job-side tools, which the
``iogap-tools`` Spack package installs like the benchmarks (it runs this
module: stdlib only); the checks take them from the view, else the checkout.'''

import hashlib
import os

#: The checkout holding the sources (as iogap.HOME: this module is run
#: alone, by Spack's Python)
ROOT = os.environ.get('IOGAP_HOME') or os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

#: Where the package installs them, below its prefix (and the view)
SUBDIR = 'libexec/iogap'

#: Installed name -> source in the checkout (installed side by side: the
#: dd driver and ranked.sh take the others from their own directory)
FILES = {
    'dd-stream.sh': 'iogap/dd/dd-stream.sh',
    'job.sh': 'iogap/core/job.sh',
    'rank-probe.sh': 'iogap/core/rank-probe.sh',
    'ranked.sh': 'iogap/core/ranked.sh',
    'iotrace.py': 'iogap/core/iotrace.py',
}


def digest(root=ROOT):
    '''sha256 of the tools' names and contents: the ``sources`` variant.'''
    h = hashlib.sha256()
    for name, path in sorted(FILES.items()):
        with open(os.path.join(root, path), 'rb') as fp:
            h.update(name.encode() + b'\0' + fp.read())
    return h.hexdigest()


def stale(libexec):
    '''Whether the tools in ``libexec`` were built from other sources than
    the checkout's; one this host cannot read (remote) is taken as built.'''
    try:
        with open(os.path.join(libexec, 'SOURCE')) as fp:
            return fp.read().split('sha256=')[-1].strip() != digest()
    except OSError:
        return False


def source(name):
    '''The checkout's copy of tool ``name``.'''
    return os.path.join(ROOT, FILES[name])
