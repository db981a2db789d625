'''The pinned tool stack: ``spack.yaml`` plus the system's overlay, built
with Spack into a view the checks use (``iogap spack build|view|bootstrap``;
on ``+spack`` partitions, a job on the partition). A view is trusted only
with the stamp of its inputs; a site's build cache (IOGAP_SPACK_BUILDCACHE)
keeps its binaries and ``spack.lock`` per inputs and host (``spack arch``),
so that the next machine of the kind neither builds nor concretizes again.'''

import glob
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time

from iogap.errors import EXIT, IogapError
from iogap.site import profile
from iogap.site.spack import boot as spackboot
from iogap.site.spack import config as spackyaml
from iogap.site.spack import own
from iogap.site.spack.config import SpackError, overlay_path

# Not profile.ROOT: profile loads the generic profile, which imports this
ROOT = own.ROOT
BUILD = os.path.join(ROOT, 'build', 'spack')
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
        if lock := reuse_lock(self, spack):
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
        push(self, spack, say)


#: ``spack arch`` of each Spack asked (it takes seconds to start)
_HOSTS = {}


def host(env, spack):
    '''This host's platform, OS and CPU target as ``spack`` names them.'''
    if tuple(spack) not in _HOSTS:
        arch = subprocess.run([*spack, 'arch'], capture_output=True,
                              text=True, env=env.env(), cwd=env.path)
        if arch.returncode != 0 or not arch.stdout.strip():
            raise SpackError(f'spack arch failed: {arch.stderr.strip()}')
        _HOSTS[tuple(spack)] = arch.stdout.strip()
    return _HOSTS[tuple(spack)]


def lock_path(env, spack, cache):
    '''Where the cache keeps the lock of ``env``'s inputs on this host.'''
    host_ = host(env, spack)
    key = hashlib.sha256(f'{env.digest()} {host_}'.encode()).hexdigest()
    return os.path.join(cache, 'iogap-locks', f'{host_}-{key[:16]}.lock')


def reuse_lock(env, spack):
    '''Copy in the cache's lock of these inputs and host; its path, or None.'''
    cache = spackyaml.buildcache_dir()
    path = lock_path(env, spack, cache) if cache else None
    if not path or not os.path.exists(path):
        return None
    shutil.copyfile(path, os.path.join(env.path, 'spack.lock'))
    return path


def push(env, spack, say):
    '''Push what the environment installed, and its lock, to the cache.'''
    cache = spackyaml.buildcache_dir()
    if not cache:
        return
    took = env.run(spack, 'push', 'buildcache', 'push', '--unsigned',
                   '--update-index', cache)
    path = lock_path(env, spack, cache)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # Whole or not at all: another machine may be reading it
    shutil.copyfile(os.path.join(env.path, 'spack.lock'), path + '.part')
    os.replace(path + '.part', path)
    say(f'pushed the binaries and the concretized environment to the build '
        f'cache {cache} in {took:.0f} s')


def environment_for(partition_extras, system):
    '''The environment a partition's tools come from: its own on ``+spack``
    partitions (``extras['spack_env']``), else the one ``setup`` builds for
    the system's overlay (``IOGAP_SPACK_ENV`` or build/spack/<overlay>).'''
    overlay = partition_extras.get('spack_overlay')
    if not overlay:
        return None
    path = (partition_extras.get('spack_env') or
            os.environ.get('IOGAP_SPACK_ENV') or os.path.join(BUILD, overlay))
    return Environment(path, overlay, partition_extras.get('spack_target', ''))


def local_view(overlay):
    '''The view the checks of a local profile use: ``IOGAP_SPACK_VIEW``,
    else the one setup built for ``overlay`` if it is whole, else None.'''
    if user := os.environ.get('IOGAP_SPACK_VIEW'):
        return user
    env = environment_for({'spack_overlay': overlay}, None)
    return env.view if env.ready() else None


def run(action, reframe_options=(), partition=None):
    '''``iogap spack build|view|bootstrap``: its exit status.'''
    say = lambda msg: print(f'spack: {msg}', file=sys.stderr)  # noqa: E731
    try:
        if action == 'bootstrap':
            print(os.path.dirname(os.path.dirname(
                spackboot.found_or_bootstrapped(say)[0])))
            return EXIT['ok']
        config = profile.load(list(reframe_options), os.environ)['systems'][0]
        envs = [environment_for(p['extras'], config['name']) for p in
                config['partitions'] if partition in (None, p['name'])]
        envs = {e.path: e for e in envs if e}
        if not envs:
            raise SpackError(f'system {config["name"]} names no Spack '
                             f'overlay (extras["spack_overlay"])')
        if action == 'view':
            missing = [env.view for env in envs.values() if not env.ready()]
            if missing:
                raise IogapError(f'no view built at {", ".join(missing)}: '
                                 f'iogap spack build makes it')
            print('\n'.join(env.view for env in envs.values()))
            return EXIT['ok']

        # A wrong setting is named even when the view is reused
        spackyaml.mirror_url(), spackyaml.buildcache_dir()
        # A view still whole needs no Spack, so none is bootstrapped for it
        spack = spackboot.found_or_bootstrapped(say) if not all(
            env.ready() for env in envs.values()) else None
        for env in envs.values():
            env.build(spack, say)
    except spackboot.Unreachable as err:
        print(f'spack: {err}: IOR, mdtest, OSU, fio and Darshan checks skip '
              f'unless their tools are on PATH, dd runs with the OS\'s '
              f'coreutils (IOGAP_SPACK_SOURCE names a Spack source, '
              f'IOGAP_SPACK_ROOT a Spack)', file=sys.stderr)
        return EXIT['unreachable']
    except SpackError as err:
        print(f'spack: {err}', file=sys.stderr)
        return EXIT['red']
    return EXIT['ok']
