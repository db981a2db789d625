'''Scratch safety: every test writes only in a fresh directory of its own.

The directory is made by the job (on the node that does the I/O) under the
partition's ``scratch_root`` and removed by a shell trap on exit, so large
files go away after a failure too; a post-run hook removes what a killed job
left behind. A root that is missing, not writable or not ours is refused.
'''

import os
import re
import shlex
import shutil
import tempfile

import reframe as rfm
from reframe.core.builtins import run_after, run_before, variable

from iogap.errors import ScratchError

#: Prefix of every per-test directory; nothing else under a root is touched
DIR_PREFIX = 'iogap.'


def check_root(root):
    '''Raise :class:`ScratchError` unless ``root`` is a usable scratch root.'''
    fix = 'set IOGAP_SCRATCH or the partition\'s extras["scratch_root"]'
    if not root:
        raise ScratchError(f'no scratch root is configured: {fix}')
    if not os.path.exists(root):
        raise ScratchError(f'scratch root {root} does not exist: create it '
                           f'(mkdir -p {root}) or {fix}')
    if not os.path.isdir(root):
        raise ScratchError(f'scratch root {root} is not a directory: {fix}')
    if os.stat(root).st_uid != os.geteuid():
        raise ScratchError(f'scratch root {root} belongs to uid '
                           f'{os.stat(root).st_uid}, not to you: use a '
                           f'directory you own ({fix})')
    try:
        # A real write: access() says yes to root on a read-only mount
        tempfile.TemporaryFile(dir=root).close()
    except OSError as err:
        raise ScratchError(f'scratch root {root} is not writable '
                           f'({err.strerror}): make it writable or '
                           f'{fix}') from None


def check_free_space(root, nbytes):
    free = shutil.disk_usage(root).free
    if free < nbytes * 1.1:
        raise ScratchError(f'scratch root {root} has {free / 2**30:.1f} GiB '
                           f'free; this test writes {nbytes / 2**30:.1f} GiB: '
                           f'free space or lower the size in the profile')


def job_guard(root, tag):
    '''Shell lines that validate the root, make the directory, trap cleanup.'''
    qroot = shlex.quote(root)
    return [
        'set -o errexit -o pipefail',
        f'iogap_root={qroot}',
        '[ -d "$iogap_root" ] && [ -w "$iogap_root" ] && [ -O "$iogap_root" ]'
        ' || { echo "iogap: scratch root $iogap_root is missing, not writable'
        ' or not yours" >&2; exit 3; }',
        f'IOGAP_DIR=$(mktemp -d "$iogap_root/{DIR_PREFIX}{tag}.XXXXXX")',
        'trap \'rm -rf "$IOGAP_DIR"\' EXIT',
        'echo "iogap: scratch dir $IOGAP_DIR"',
    ]


class ScratchMixin(rfm.RegressionTestPlugin):
    '''Gives a test ``$IOGAP_DIR``, a fresh directory under the scratch root.'''

    #: Bytes the test will write at most; checked against free space
    scratch_bytes = variable(int, value=0, loggable=False)

    @run_before('run')
    def _iogap_scratch_guard(self):
        root = self.current_partition.extras.get('scratch_root')
        # Remote roots are validated by the job itself on the compute node
        if self.current_partition.scheduler.registered_name == 'local':
            check_root(root)
            if self.scratch_bytes:
                check_free_space(root, self.scratch_bytes)

        tag = re.sub(r'[^A-Za-z0-9_-]', '_', self.unique_name)
        self.prerun_cmds = job_guard(root, tag) + self.prerun_cmds

    @run_after('run')
    def _iogap_scratch_cleanup(self):
        '''Remove what a killed job (no trap ran) left behind.'''
        if self.is_dry_run():
            return

        root = os.path.realpath(self.current_partition.extras['scratch_root'])
        for path in scratch_dirs(self.stdout.evaluate(), self.stagedir):
            real = os.path.realpath(path)
            if (os.path.dirname(real) == root and
                    os.path.basename(real).startswith(DIR_PREFIX)):
                shutil.rmtree(real, ignore_errors=True)


def scratch_dirs(stdout, stagedir):
    path = os.path.join(stagedir, stdout)
    if not os.path.exists(path):
        return []

    with open(path) as fp:
        return re.findall(r'^iogap: scratch dir (\S+)$', fp.read(), re.M)
