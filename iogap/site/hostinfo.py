'''Facts about the host a profile runs on, detected rather than assumed, so
that a laptop or CI runner gets a correct profile with no edits.'''

import getpass
import glob
import os
import platform
import re
import shutil

#: Environment variable that overrides the generic scratch root
SCRATCH_ENV = 'IOGAP_SCRATCH'

#: File systems held in memory: no device for direct I/O to reach
MEMORY_FS = ('tmpfs', 'ramfs')

#: File systems known to refuse O_DIRECT (or to reach no device with it)
NO_ODIRECT = MEMORY_FS + ('overlay', 'fuse', 'fuse.sshfs', '9p', 'vboxsf')

#: The parallel HDF5 builds' configuration summaries (h5pcc -showconfig)
HDF5_SETTINGS = '/usr/lib/*/hdf5/*/lib/libhdf5*.settings'


def cpus():
    '''CPUs this process may run on (respects cgroup/affinity limits).'''
    return len(os.sched_getaffinity(0))


def processor():
    '''ReFrame ``processor`` entry from /proc/cpuinfo and our affinity:
    the sockets of the CPUs we may run on, one when they hold unequal
    shares (sockets x CPUs per socket is always ``num_cpus``).'''
    allowed, sockets, threads = os.sched_getaffinity(0), {}, 1
    try:
        with open('/proc/cpuinfo') as fp:
            for block in fp.read().split('\n\n'):
                info = {k.strip(): v.strip() for k, v in
                        (line.split(':', 1) for line in block.splitlines()
                         if ':' in line)}
                if int(info.get('processor', -1)) in allowed:
                    socket = info.get('physical id', '0')
                    sockets[socket] = sockets.get(socket, 0) + 1
                if info.get('siblings') and info.get('cpu cores'):
                    threads = max(int(info['siblings']) //
                                  max(int(info['cpu cores']), 1), 1)
    except (OSError, ValueError):
        pass
    num_cpus = len(allowed)
    num_sockets = len(sockets) if len(set(sockets.values())) == 1 and \
        sum(sockets.values()) == num_cpus else 1
    per_socket = num_cpus // num_sockets
    return {'arch': platform.machine(), 'num_cpus': num_cpus,
            'num_cpus_per_core': threads if per_socket % threads == 0 else 1,
            'num_sockets': num_sockets, 'num_cpus_per_socket': per_socket}


def mpi_flavour():
    '''``'openmpi'``, ``'mpich'``, ``'other'`` or ``None`` (no mpirun), from
    where mpirun leads, without running it.'''
    mpirun = shutil.which('mpirun')
    if not mpirun:
        return None
    real, where = os.path.realpath(mpirun), os.path.dirname(mpirun)
    if any(w in real for w in ('openmpi', 'orterun', 'prterun')) or \
            os.path.exists(os.path.join(where, 'ompi_info')):
        return 'openmpi'
    if 'mpich' in real or 'hydra' in real or \
            os.path.exists(os.path.join(where, 'mpichversion')):
        return 'mpich'
    return 'other'


def has_parallel_hdf5():
    return bool(shutil.which('h5pcc') or
                os.path.exists('/usr/include/hdf5/openmpi/hdf5.h') or
                os.path.exists('/usr/include/hdf5/mpich/hdf5.h'))


def hdf5_direct_vfd(pattern=HDF5_SETTINGS):
    '''``(built, reason)``: whether the parallel HDF5 has the direct VFD.'''
    for path in sorted(glob.glob(pattern)):
        with open(path, errors='replace') as fp:
            m = re.search(r'^\s*Direct VFD:\s*(\w+)', fp.read(), re.M)
        if m and m.group(1).lower() == 'yes':
            return True, f'{path}: Direct VFD: yes'
        if m:
            return False, (f'the parallel HDF5 is built without the direct '
                           f'VFD ({path}: Direct VFD: {m.group(1)})')
    return False, 'no parallel HDF5 configuration summary found'


def default_scratch_root():
    return os.path.join('/var/tmp', f'iogap-{getpass.getuser()}')


def scratch_root():
    '''``$IOGAP_SCRATCH`` made absolute where ReFrame runs, else a default.'''
    root = os.environ.get(SCRATCH_ENV)
    return os.path.abspath(root) if root else default_scratch_root()


def odirect_expected(root):
    '''``(expected, reason)``: whether O_DIRECT should work under ``root``,
    from the file-system type alone (each direct-mode job probes it).'''
    fstype = fs_type(root)
    if fstype in MEMORY_FS:
        return False, (f'scratch root {root} is on {fstype} (memory): direct '
                       f'I/O there reaches no device; set {SCRATCH_ENV} to a '
                       f'disk-backed file system')
    if fstype in NO_ODIRECT or fstype.startswith('fuse'):
        return False, (f'scratch root {root} is on {fstype}, which refuses '
                       f'O_DIRECT; set {SCRATCH_ENV} to a local disk')
    return True, f'O_DIRECT expected to work on {fstype} at {root}'


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
