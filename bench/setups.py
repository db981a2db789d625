'''The scratch set-ups bench/mechanisms.py runs the dd family on: the
plain disk, an ext4 file system on a loop device backed by a file on that
disk, and the plain disk behind a cgroup v1 blkio throttle; whatever is
made is undone afterwards, in reverse.'''

import os
import subprocess
import sys

from bench import cgroups

BLKIO = os.path.join(cgroups.CGROUP, 'blkio')


def sh(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True,
                          text=True).stdout.strip()


class Setups:
    '''Makes the set-ups and undoes every one of them, in reverse.'''

    def __init__(self, base):
        self.base, self.undo = base, []

    def plain(self, args):
        return os.path.join(self.base, 'plain'), []

    def loop(self, args):
        image, mnt = (os.path.join(self.base, n) for n in ('loop.img', 'mnt'))
        sh('truncate', '-s', f'{max(4 * args.count, 1024)}M', image)
        self.undo.append(lambda: os.path.exists(image) and os.remove(image))
        dev = sh('losetup', '--find', '--show', image)
        self.undo.append(lambda: sh('losetup', '-d', dev))
        sh('mkfs.ext4', '-q', '-F', dev)
        os.makedirs(mnt, exist_ok=True)
        sh('mount', dev, mnt)
        self.undo.append(lambda: sh('umount', mnt))
        return os.path.join(mnt, 'scratch'), []

    def blkio(self, args):
        knob = os.path.join(BLKIO, 'blkio.throttle.read_bps_device')
        if not os.access(knob, os.W_OK):
            raise OSError(f'{knob} is not writable (cgroup v1 blkio needed)')
        root = os.path.join(self.base, 'plain')
        os.makedirs(root, exist_ok=True)
        dev = os.stat(root).st_dev
        group = os.path.join(BLKIO, f'iogap-bench-{os.getpid()}')
        os.makedirs(group)
        self.undo.append(lambda: os.rmdir(group))
        rate = int(args.throttle * 1e6)
        for way in ('read', 'write'):
            with open(os.path.join(group, f'blkio.throttle.{way}_bps_device'),
                      'w') as fp:
                fp.write(f'{os.major(dev)}:{os.minor(dev)} {rate}')
        return root, [group]

    def cleanup(self):
        while self.undo:
            try:
                self.undo.pop()()
            except (OSError, subprocess.CalledProcessError) as err:
                print(f'cleanup: {err}', file=sys.stderr)
