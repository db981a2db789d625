'''The pinned tool stack, built with Spack: ``spack.yaml`` plus the system's
overlay (``systems/spack/<overlay>.yaml``), into a view the checks use.

    python -m iogap.tools.spack build [--system S] [--partition P]
    python -m iogap.tools.spack view  [--system S]

``setup.sh`` runs ``build`` for the selected system; on ``+spack``
partitions the ToolStack fixture runs it as a job on the partition. Spack
is ``$IOGAP_SPACK_ROOT`` (a Spack checkout) or ``spack`` on PATH; a mirror
named by ``$IOGAP_SPACK_MIRROR`` (a ``file://`` URL or a path) is added,
with checksums relaxed in the scope that names it and nowhere else.
Everything Spack writes stays in the build directory (install tree,
caches, its user config): nothing under ``$HOME``. A view is trusted only
with a stamp that matches the spack.yaml, overlay and project's own tools
(:mod:`iogap.tools.own`) it was built from, so a failed, half-done or
stale build is never used. Repositories in spack.yaml are named relative
to the project.
'''

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

import yaml

from iogap.errors import IogapError
from iogap.tools import own

# Not from iogap.profile: the generic profile, which that package loads,
# asks this module for its view
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
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


class SpackError(Exception):
    pass


def spack_command():
    '''``[spack]`` from IOGAP_SPACK_ROOT or PATH, or ``None``.'''
    root = os.environ.get('IOGAP_SPACK_ROOT')
    if root:
        spack = os.path.join(root, 'bin', 'spack')
        if not os.access(spack, os.X_OK):
            raise SpackError(f'IOGAP_SPACK_ROOT={root} holds no bin/spack')
        return [spack]

    return [shutil.which('spack')] if shutil.which('spack') else None


def mirror_url():
    '''The mirror named by IOGAP_SPACK_MIRROR as a URL, or ``None``.'''
    mirror = os.environ.get('IOGAP_SPACK_MIRROR')
    if not mirror:
        return None
    if '://' not in mirror:
        mirror = 'file://' + os.path.abspath(mirror)
    if mirror.startswith('file://') and not os.path.isdir(mirror[7:]):
        raise SpackError(f'IOGAP_SPACK_MIRROR names {mirror[7:]}, which is '
                         f'not a directory')

    return mirror


def overlay_path(name):
    path = os.path.join(ROOT, 'systems', 'spack', f'{name}.yaml')
    if not os.path.exists(path):
        raise SpackError(f'no Spack overlay {path}')

    return path


class Environment:
    '''A built (or to be built) environment directory and its view.'''

    def __init__(self, path, overlay, target=''):
        self.path, self.overlay, self.target = path, overlay, target

    @property
    def view(self):
        return os.path.join(self.path, 'view')

    def digest(self):
        h = hashlib.sha256()
        # Where the sources came from does not change what was built; the
        # project's own tools are built from the checkout, so they do
        for part in (open(os.path.join(ROOT, 'spack.yaml')).read(),
                     open(overlay_path(self.overlay)).read(), self.target,
                     own.digest()):
            h.update(part.encode())

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
        '''``(path, package@version)`` of a tool the environment takes from
        the OS (an external), or ``None``.'''
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
        try:
            import clingo   # noqa: F401
            env.setdefault('SPACK_PYTHON', sys.executable)
        except ImportError:
            pass

        return env

    def prepare(self):
        '''spack.yaml (ours, plus the scope of this build) in the env dir.'''
        os.makedirs(os.path.join(self.path, 'logs'), exist_ok=True)
        base = os.path.dirname(self.path)
        site = {'config': {
            'install_tree': {'root': os.path.join(base, 'install')},
            'build_stage': [os.path.join(base, 'stage')],
            'source_cache': os.path.join(base, 'source-cache'),
            'misc_cache': os.path.join(base, 'misc-cache'),
        }, 'packages': {
            # The tools as they are in the checkout now: a change is a new
            # spec, installed again, never a stale copy in the view
            'iogap-tools': {'require': [f'sources={own.digest()}']},
        }}
        mirror = mirror_url()
        if mirror:
            # The named mirror holds archives of the releases, not the
            # release tarballs: relax checksums in this scope only
            site['mirrors'] = {'iogap': mirror}
            site['config']['checksum'] = False

        with open(os.path.join(self.path, 'iogap-build.yaml'), 'w') as fp:
            yaml.safe_dump(site, fp, sort_keys=False)

        with open(os.path.join(ROOT, 'spack.yaml')) as fp:
            manifest = yaml.safe_load(fp)
        manifest['spack']['include'].append('iogap-build.yaml')
        # Repositories are named relative to the project
        manifest['spack']['repos'] = [
            os.path.join(ROOT, repo) for repo in manifest['spack'].get(
                'repos', [])]
        with open(os.path.join(self.path, 'spack.yaml'), 'w') as fp:
            yaml.safe_dump(manifest, fp, sort_keys=False)

    def run(self, spack, step, *args):
        '''Run ``spack -e ENV <args>``, logged; raise with Spack's own
        error lines and the log's path on failure.'''
        log = os.path.join(self.path, 'logs', f'{step}.log')
        start = time.time()
        with open(log, 'w') as fp:
            proc = subprocess.run([*spack, '-e', self.path, *args],
                                  stdout=fp, stderr=subprocess.STDOUT,
                                  env=self.env(), cwd=self.path)
        if proc.returncode != 0:
            with open(log) as fp:
                lines = fp.read().splitlines()
            errors = [i for i, l in enumerate(lines) if 'Error' in l] or \
                [max(len(lines) - 5, 0)]
            shown = lines[errors[0]:errors[0] + 6]
            raise SpackError(f'spack {step} failed ({log}):\n' +
                             '\n'.join('  ' + l for l in shown))

        return time.time() - start

    def build(self, spack, say):
        if self.ready():
            say(f'reusing the Spack view {self.view} (spack.yaml and the '
                f'{self.overlay} overlay are unchanged)')
            return

        if os.path.exists(os.path.join(self.path, STAMP)):
            os.remove(os.path.join(self.path, STAMP))

        self.prepare()
        say(f'concretizing spack.yaml with the {self.overlay} overlay '
            f'({self.path})')
        took = self.run(spack, 'concretize', 'concretize', '-f')
        say(f'concretized in {took:.0f} s; installing')
        jobs = str(max(len(os.sched_getaffinity(0)), 1))
        took = self.run(spack, 'install', 'install', '--fail-fast', '-j',
                        jobs)
        missing = [t for t in VIEW_TOOLS
                   if not os.path.exists(os.path.join(self.view, t))]
        if missing:
            raise SpackError(f'the build left no {", ".join(missing)} in '
                             f'{self.view}')

        with open(os.path.join(self.path, STAMP), 'w') as fp:
            json.dump({'digest': self.digest(), 'built': time.ctime()}, fp)
        say(f'installed in {took:.0f} s: tools in {self.view}')


def environment_for(partition_extras, system):
    '''The environment a partition's tools come from: its own on ``+spack``
    partitions (``extras['spack_env']``), else the one ``setup`` builds for
    the system's overlay (``IOGAP_SPACK_ENV`` or build/spack/<overlay>).'''
    overlay = partition_extras.get('spack_overlay')
    if not overlay:
        return None

    target = partition_extras.get('spack_target', '')
    path = (partition_extras.get('spack_env') if partition_extras.get(
        'spack_env') else os.environ.get('IOGAP_SPACK_ENV') or
        os.path.join(BUILD, overlay))
    return Environment(path, overlay, target)


def main(argv=None):
    parser = argparse.ArgumentParser(prog='python -m iogap.tools.spack')
    parser.add_argument('action', choices=['build', 'view'])
    parser.add_argument('--partition', help='build for this partition only '
                        '(its extras name the environment)')
    args, rest = parser.parse_known_args(argv)
    say = lambda msg: print(f'spack: {msg}', file=sys.stderr)  # noqa: E731
    try:
        from iogap import profile
        config = profile.load(rest, os.environ)['systems'][0]
        parts = [p for p in config['partitions']
                 if args.partition in (None, p['name'])]
        envs = {e.path: e for e in (environment_for(p['extras'],
                                                    config['name'])
                                    for p in parts) if e}
        if not envs:
            raise SpackError(f'system {config["name"]} names no Spack '
                             f'overlay (extras["spack_overlay"])')
        if args.action == 'view':
            for env in envs.values():
                print(env.view if env.ready() else '')
            return 0

        spack = spack_command()
        if spack is None:
            raise SpackError('no Spack: set IOGAP_SPACK_ROOT or put spack '
                             'on PATH')
        mirror_url()  # a wrong setting is named even when the view is reused
        for env in envs.values():
            env.build(spack, say)
    except (SpackError, IogapError, OSError) as err:
        print(f'spack: {err}', file=sys.stderr)
        return 1

    return 0


if __name__ == '__main__':
    sys.exit(main())


def local_view(overlay):
    '''The view the checks of a local profile use: ``IOGAP_SPACK_VIEW``,
    else the one setup built for ``overlay`` if it is whole, else None.'''
    user = os.environ.get('IOGAP_SPACK_VIEW')
    if user:
        return user

    env = environment_for({'spack_overlay': overlay}, None)
    return env.view if env.ready() else None
