'''Shared helpers: run ReFrame on this repository in an isolated output and
scratch directory under the test's own tmp_path.

In-process, the families' partition-shaped parameters (clocks, processes
per node) span every profile in systems/, whichever one a test loads; real
runs span their own system, in subprocesses.'''

import glob
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from iogap.site import profile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The tests are laid out like the code, one directory a stage; their
# shared helpers import each other by module name
sys.path[:0] = sorted(d for d in glob.glob(os.path.join(ROOT, 'tests', '*'))
                      if os.path.isdir(d) and not d.endswith('data'))

@pytest.fixture(autouse=True)
def _no_profile_left_behind(monkeypatch):
    # A test that loads a profile leaves the one loaded before it
    monkeypatch.setattr(profile, '_current', profile.current())
    monkeypatch.setattr(profile, '_omitted', profile.omitted())


@pytest.fixture
def cori():
    '''The Cori profile loaded for the test: its partitions.'''
    profile.load(['--system', 'cori'], {})
    return profile.parts()


_DRY = re.compile(r'^\[\s*DRY\s*\] (\S+) (.*?) /(\w+) @(\S+?)\+(\S+)$')


def reframe_cmd():
    local = os.path.join(os.path.dirname(sys.executable), 'reframe')
    return [local if os.path.exists(local) else shutil.which('reframe')]


class Run:
    def __init__(self, proc, out):
        self.proc, self.out = proc, out
        self.stdout = re.sub(r'\x1b\[[0-9;]*m', '', proc.stdout)
        self.returncode = proc.returncode

    def report(self):
        files = glob.glob(os.path.join(self.out, 'reports', '*.json'))
        assert files, f'no run report in {self.out}:\n{self.stdout}'
        with open(max(files, key=os.path.getmtime)) as fp:
            return json.load(fp)

    def skip_reason(self, display_name):
        '''The reason ReFrame printed for skipping a test (the JSON report
        does not keep it).'''
        for line in self.stdout.splitlines():
            if 'SKIP' in line and display_name in line:
                return line.rsplit('[', 1)[-1].rstrip(']')
        return None

    def testcases(self, fixtures=False):
        '''The run's test cases; fixtures (the ToolStack) only if asked.'''
        return [tc for run in self.report()['runs']
                for tc in run['testcases'] if fixtures or not tc['fixture']]

    def job_scripts(self):
        '''``{(name, params, partition): job script text}`` of a dry run.'''
        scripts = {}
        for line in self.stdout.splitlines():
            if m := _DRY.match(line):
                name, params, uid, syspart, env = m.groups()
                system, part = syspart.split(':')
                path = os.path.join(self.out, 'stage', system, part, env,
                                    f'{name}_{uid}', 'rfm_job.sh')
                if os.path.exists(path):    # skipped cases write none
                    with open(path) as fp:
                        scripts[(name, params, part)] = fp.read()

        return scripts


def run_reframe(tmp_path, *args, env=None, scratch=None, timeout=900,
                root=ROOT):
    '''ReFrame run on the checkout at ``root`` (this one, or a copy that
    ``PYTHONPATH`` in ``env`` makes the one imported).'''
    out = tmp_path / 'out'
    if scratch is None:
        scratch = tmp_path / 'scratch'
        scratch.mkdir(parents=True, exist_ok=True)

    environ = dict(os.environ, IOGAP_OUTPUT=str(out),
                   IOGAP_SCRATCH=str(scratch), RFM_COLORIZE='n')
    environ.update(env or {})
    proc = subprocess.run(reframe_cmd() + ['-C', 'reframe_config.py',
                                           *args],
                          cwd=root, env=environ, capture_output=True,
                          text=True, timeout=timeout)
    return Run(proc, str(out))


def copy_of_project(dest):
    '''A copy of the checkout at ``dest`` as a fresh clone has it (no venv,
    build or output); ``python -m`` run there imports the copy.'''
    shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns(
        '.git', '.venv', 'output', 'build', '__pycache__'))
    return dest


@pytest.fixture(autouse=True)
def io_lock_dir(tmp_path_factory, monkeypatch):
    '''The jobs' I/O lock in a directory of every test's own: another
    run's job on this host holding the host's lock would make a test's
    job wait too (jobs of real ReFrame runs take the host's).'''
    from iogap.core import jobguard
    # beside the test's tmp_path: a test may take that as a scratch root
    locks = tmp_path_factory.mktemp('locks')
    monkeypatch.setattr(jobguard, 'IO_LOCK_DIRS', (str(locks),))
    return locks


@pytest.fixture
def data():
    def _path(*parts):
        return os.path.join(ROOT, 'tests', 'data', *parts)
    return _path


def built_view():
    '''The view setup.sh built for this host's tests, or ``None``.'''
    from iogap.site.spack import stack as spack
    env = spack.environment_for({'spack_overlay': 'generic'}, 'anyhost')
    return env.view if env.ready() else \
        (os.environ.get('IOGAP_SPACK_VIEW') or None)


#: Skip a test that needs IOR, mdtest or OSU when no built view has them
needs_tools = pytest.mark.skipif(
    built_view() is None and shutil.which('ior') is None,
    reason='no Spack-built view (./setup.sh with IOGAP_SPACK_ROOT) and no '
           'ior on PATH')


def perf(tc, var):
    '''The value of figure ``var`` in a test case of a run report.'''
    [value] = [v[0] for k, v in tc['perfvalues'].items()
               if k.endswith(f':{var}')]
    return value


def cases(run, name, **params):
    '''The run's test cases of check ``name`` with ``params``.'''
    return [tc for tc in run.testcases() if tc['name'].split()[0] == name
            and all(tc.get(k) == v for k, v in params.items())]


def lock_holder(root, *partition):
    '''Another process holding ``root``'s run lock (for ``partition``),
    returned once it holds it; kill and wait for it when done.'''
    code = ('import sys; from iogap.core import scratch; '
            'scratch.lock_run(sys.argv[1], "scratch root", *sys.argv[2:]); '
            'print("locked", flush=True); sys.stdin.read()')
    holder = subprocess.Popen([sys.executable, '-c', code, str(root),
                               *partition], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == 'locked'
    return holder

