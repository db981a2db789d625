'''The quiet bench's device: a RAM block device (zram) with ext4, mounted
for the nights' scratch, and undone afterwards. A direct write is probed:
the dd case's direct mode needs O_DIRECT.'''

import os
import subprocess

DEVICE = 'zram0'


def sh(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True,
                          text=True).stdout.strip()


def up(mountpoint, size='8G'):
    '''Configure /dev/zram0 (when unconfigured), make ext4 on it and mount
    it at ``mountpoint``; the scratch directory inside it.'''
    knob = f'/sys/block/{DEVICE}/disksize'
    with open(knob) as fp:
        if int(fp.read()) == 0:
            with open(knob, 'w') as out:
                out.write(size)
    os.makedirs(mountpoint, exist_ok=True)
    if not os.path.ismount(mountpoint):
        sh('mkfs.ext4', '-q', '-F', f'/dev/{DEVICE}')
        sh('mount', f'/dev/{DEVICE}', mountpoint)
    scratch = os.path.join(mountpoint, 'scratch')
    os.makedirs(scratch, exist_ok=True)
    probe = os.path.join(scratch, 'odirect.probe')
    try:
        sh('dd', 'if=/dev/zero', f'of={probe}', 'bs=1M', 'count=1',
           'oflag=direct')
    finally:
        if os.path.exists(probe):
            os.remove(probe)
    return scratch


def down(mountpoint):
    '''Unmount it and give the device's memory back.'''
    if os.path.ismount(mountpoint):
        sh('umount', mountpoint)
    with open(f'/sys/block/{DEVICE}/reset', 'w') as fp:
        fp.write('1')
