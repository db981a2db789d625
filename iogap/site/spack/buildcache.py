'''The build cache a site keeps (IOGAP_SPACK_BUILDCACHE): binaries and the
``spack.lock`` per inputs and host (``spack arch``), so that the next machine
of the same kind neither builds nor concretizes again.'''

import hashlib
import os
import shutil
import subprocess

from iogap.site.spack.config import SpackError, buildcache_dir

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
    cache = buildcache_dir()
    path = lock_path(env, spack, cache) if cache else None
    if not path or not os.path.exists(path):
        return None
    shutil.copyfile(path, os.path.join(env.path, 'spack.lock'))
    return path


def push(env, spack, say):
    '''Push what the environment installed, and its lock, to the cache.'''
    cache = buildcache_dir()
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
