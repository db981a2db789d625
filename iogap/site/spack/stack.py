'''The pinned tool stack: ``spack.yaml`` plus the system's overlay, built
with Spack into a view the checks use (``iogap spack build|view|bootstrap``;
on ``+spack`` partitions, a job on the partition).'''

import os
import shutil
import sys

from iogap.errors import EXIT, IogapError
from iogap.site import profile
from iogap.site.spack import boot as spackboot
from iogap.site.spack.config import buildcache_dir, mirror_url
from iogap.site.spack.environment import (  # noqa: F401 (re-exported)
    ROOT,
    STAMP,
    VIEW_TOOLS,
    Environment,
    SpackError,
    overlay_path,
)

BUILD = os.path.join(ROOT, 'build', 'spack')


def spack_command():
    '''``[spack]`` from IOGAP_SPACK_ROOT, PATH or a bootstrap, or ``None``.'''
    if root := os.environ.get('IOGAP_SPACK_ROOT'):
        spack = os.path.join(root, 'bin', 'spack')
        if not os.access(spack, os.X_OK):
            raise SpackError(f'IOGAP_SPACK_ROOT={root} holds no bin/spack')
        return [spack]
    if shutil.which('spack'):
        return [shutil.which('spack')]
    root = spackboot.bootstrapped()
    return [os.path.join(root, 'bin', 'spack')] if root else None


def found_or_bootstrapped(say):
    '''``[spack]`` as :func:`spack_command` finds it, else bootstrapped now.'''
    return spack_command() or [os.path.join(spackboot.bootstrap(say), 'bin',
                                            'spack')]


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
                found_or_bootstrapped(say)[0])))
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
        mirror_url(), buildcache_dir()
        # A view still whole needs no Spack, so none is bootstrapped for it
        spack = found_or_bootstrapped(say) if not all(
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
