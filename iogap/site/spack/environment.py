'''One Spack environment of the tool stack: its directory, its build, and
the stamp without which its view is not trusted.'''

import glob
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import time

from iogap.site.spack import buildcache, own
from iogap.site.spack import config as spackyaml
from iogap.site.spack.config import SpackError

# Not profile.ROOT: profile loads the generic profile, which imports this
ROOT = own.ROOT
STAMP = '.iogap-built'

#: Tools that must be in a finished view, and the package behind each tool
#: the checks call (OS-provided ones come from the environment's externals)
VIEW_TOOLS = ('bin/ior', 'bin/mdtest', 'bin/darshan-parser', 'bin/fio',
              'lib/libdarshan.so',
              'libexec/osu-micro-benchmarks/mpi/pt2pt/osu_latency',
              *(f'{own.SUBDIR}/{name}' for name in own.FILES))
PACKAGE_OF = {'dd': 'coreutils', 'numactl': 'numactl', 'mpirun': 'openmpi',
              'ior': 'ior', 'mdtest': 'ior', 'fio': 'fio',
              **{name: 'iogap-tools' for name in own.FILES}}


def overlay_path(name):
    path = os.path.join(ROOT, 'systems', 'spack', f'{name}.yaml')
    if not os.path.exists(path):
        raise SpackError(f'no Spack overlay {path}')
    return path


class Environment:
    '''A built (or to be built) environment directory and its view.'''

    def __init__(self, path, overlay, target=''):
        self.path, self.overlay, self.target = path, overlay, target
        self.view = os.path.join(path, 'view')

    def digest(self):
        '''sha256 of what is built (not where its sources came from).'''
        h = hashlib.sha256(f'{self.target} {own.digest()}'.encode())
        for path in [os.path.join(ROOT, 'spack.yaml'),
                     overlay_path(self.overlay), *sorted(glob.glob(
                         os.path.join(ROOT, 'spack/repo/packages/*/*.*')))]:
            with open(path, 'rb') as fp:
                h.update(fp.read())
        return h.hexdigest()

    def ready(self):
        '''The view is whole and built from the current inputs.'''
        try:
            with open(os.path.join(self.path, STAMP)) as fp:
                return json.load(fp)['digest'] == self.digest()
        except (OSError, ValueError, KeyError, SpackError):
            return False

    def lock(self):
        '''``{package: spec}`` of the concretized environment.'''
        try:
            with open(os.path.join(self.path, 'spack.lock')) as fp:
                specs = json.load(fp)['concrete_specs'].values()
        except (OSError, ValueError, KeyError):
            return {}
        return {s['name']: s for s in specs}

    def external(self, tool):
        '''``(path, package@version)`` of a tool taken from the OS, or None.'''
        spec = self.lock().get(PACKAGE_OF.get(tool, ''))
        if not spec or not spec.get('external'):
            return None
        path = os.path.join(spec['external']['path'], 'bin', tool)
        return (path, f'{spec["name"]}@{spec["version"]}') \
            if os.access(path, os.X_OK) else None

    def env(self):
        '''Environment for Spack: its user files in the build directory.'''
        base = os.path.dirname(self.path)
        env = dict(os.environ,
                   IOGAP_SPACK_OVERLAY=overlay_path(self.overlay),
                   IOGAP_SPACK_TARGET=self.target,
                   SPACK_USER_CONFIG_PATH=os.path.join(base, 'user-config'),
                   SPACK_USER_CACHE_PATH=os.path.join(base, 'user-cache'))
        if importlib.util.find_spec('clingo'):
            env.setdefault('SPACK_PYTHON', sys.executable)
        return env

    def prepare(self):
        '''spack.yaml (ours, plus the scope of this build) in the env dir.'''
        spackyaml.write(self.path)

    def run(self, spack, step, *args):
        '''Run ``spack -e ENV <args>``, logged; a failure shows its errors.'''
        log = os.path.join(self.path, 'logs', f'{step}.log')
        start = time.time()
        with open(log, 'w') as fp:
            proc = subprocess.run([*spack, '-e', self.path, *args],
                                  stdout=fp, stderr=subprocess.STDOUT,
                                  env=self.env(), cwd=self.path)
        if proc.returncode != 0:
            with open(log) as fp:
                lines = fp.read().splitlines()
            at = next((i for i, l in enumerate(lines) if 'Error' in l),
                      max(len(lines) - 5, 0))
            raise SpackError(f'spack {step} failed ({log}):\n' + '\n'.join(
                '  ' + l for l in lines[at:at + 6]))
        return time.time() - start

    def build(self, spack, say):
        '''Build the view unless it is ready; it is stamped only when whole,
        so a failed, half-done or stale build is never used.'''
        if self.ready():
            say(f'reusing the Spack view {self.view} (spack.yaml, the '
                f'{self.overlay} overlay and the recipes are unchanged)')
            return
        if os.path.exists(os.path.join(self.path, STAMP)):
            os.remove(os.path.join(self.path, STAMP))
        self.prepare()
        if lock := buildcache.reuse_lock(self, spack):
            say(f'concretized as the build cache holds it ({lock}); '
                f'installing')
        else:
            say(f'concretizing spack.yaml with the {self.overlay} overlay '
                f'({self.path})')
            took = self.run(spack, 'concretize', 'concretize', '-f')
            say(f'concretized in {took:.0f} s; installing')
        took = self.run(spack, 'install', 'install', '--fail-fast', '-j',
                        str(len(os.sched_getaffinity(0))))
        missing = [t for t in VIEW_TOOLS
                   if not os.path.exists(os.path.join(self.view, t))]
        if missing:
            raise SpackError(f'the build left no {", ".join(missing)} in '
                             f'{self.view}')
        with open(os.path.join(self.path, STAMP), 'w') as fp:
            json.dump({'digest': self.digest(), 'built': time.ctime()}, fp)
        say(f'installed in {took:.0f} s: tools in {self.view}')
        # The next machine installs these binaries instead of building
        buildcache.push(self, spack, say)
