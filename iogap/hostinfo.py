'''Facts about the machine a profile runs on, detected rather than assumed.

Used by ``systems/generic.py`` (and the local two-partition profile) so a
laptop or CI runner gets a correct profile with no edits.
'''

import getpass
import mmap
import os
import platform
import shutil
import subprocess

#: Environment variable that overrides the generic scratch root
SCRATCH_ENV = 'IOGAP_SCRATCH'

#: File systems held in memory: no device for direct I/O to reach
MEMORY_FS = ('tmpfs', 'ramfs')


def cpus():
    '''CPUs this process may run on (respects cgroup/affinity limits).'''
    return len(os.sched_getaffinity(0))


def memory_gib():
    with open('/proc/meminfo') as fp:
        for line in fp:
            if line.startswith('MemTotal:'):
                return round(int(line.split()[1]) / 2**20, 1)

    return None


def processor():
    '''ReFrame ``processor`` entry from /proc/cpuinfo.'''
    sockets, siblings = set(), {}
    try:
        with open('/proc/cpuinfo') as fp:
            for block in fp.read().split('\n\n'):
                info = dict(line.split(':', 1) for line in block.splitlines()
                            if ':' in line)
                info = {k.strip(): v.strip() for k, v in info.items()}
                if 'physical id' in info:
                    sockets.add(info['physical id'])
                    siblings[info['physical id']] = info.get('siblings')
    except OSError:
        pass

    num_cpus = cpus()
    num_sockets = max(len(sockets), 1)
    return {
        'arch': platform.machine(),
        'num_cpus': num_cpus,
        'num_sockets': num_sockets,
        'num_cpus_per_socket': max(num_cpus // num_sockets, 1),
    }


def mpi_flavour():
    '''``'openmpi'``, ``'mpich'``, ``'other'`` or ``None`` (no mpirun).'''
    if not shutil.which('mpirun'):
        return None

    try:
        out = subprocess.run(['mpirun', '--version'], capture_output=True,
                             text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return 'other'

    if 'Open MPI' in out or 'OpenRTE' in out:
        return 'openmpi'

    return 'mpich' if 'HYDRA' in out or 'MPICH' in out else 'other'


def has_parallel_hdf5():
    return bool(shutil.which('h5pcc') or
                os.path.exists('/usr/include/hdf5/openmpi/hdf5.h') or
                os.path.exists('/usr/include/hdf5/mpich/hdf5.h'))


def default_scratch_root():
    return os.path.join('/var/tmp', f'iogap-{getpass.getuser()}')


def probe_odirect(root):
    '''Return ``(supported, reason)`` for O_DIRECT writes under ``root``.

    tmpfs, some overlays and FUSE file systems reject O_DIRECT with EINVAL.
    The probe writes one aligned 4 KiB block and removes it.
    '''
    if not os.path.isdir(root):
        return False, f'scratch root {root} does not exist'

    fstype = fs_type(root)
    if fstype in MEMORY_FS:
        # Newer kernels accept O_DIRECT on tmpfs, but nothing is bypassed
        return False, (f'scratch root {root} is on {fstype} (memory): direct '
                       f'I/O there reaches no device; set {SCRATCH_ENV} to a '
                       f'disk-backed file system')

    path = os.path.join(root, f'.iogap-odirect-probe-{os.getpid()}')
    buf = mmap.mmap(-1, 4096)   # page-aligned, as O_DIRECT requires
    try:
        fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_DIRECT, 0o600)
        try:
            os.write(fd, buf)
        finally:
            os.close(fd)
    except OSError as err:
        return False, (f'O_DIRECT is not supported on {fstype} at {root}: '
                       f'{err.strerror}')
    finally:
        buf.close()
        if os.path.exists(path):
            os.remove(path)

    return True, f'O_DIRECT works on {fstype} at {root}'


def fs_type(path):
    '''File system type of ``path`` from /proc/self/mounts (longest match).'''
    path, best = os.path.realpath(path), ('', 'unknown')
    try:
        with open('/proc/self/mounts') as fp:
            for line in fp:
                _, mnt, fstype, *_ = line.split()
                if ((path == mnt or path.startswith(mnt.rstrip('/') + '/'))
                        and len(mnt) >= len(best[0])):
                    best = (mnt, fstype)
    except OSError:
        pass

    return best[1]


def can_drop_caches():
    return os.geteuid() == 0 and os.access('/proc/sys/vm/drop_caches',
                                           os.W_OK)
