'''Why a tool a view, a prefix or the Spack environment names cannot be
used here: the provider then fails the case rather than run another.'''

import os
import stat

#: ELF ``e_machine`` of each machine ``uname -m`` may name
_ELF_MACHINES = {'x86_64': 62, 'i686': 3, 'i386': 3, 'aarch64': 183,
                 'armv7l': 40, 'ppc64le': 21, 'ppc64': 21, 'riscv64': 243,
                 's390x': 22}
#: A host also runs its 32-bit sibling's binaries
_ALSO_RUNS = {62: {3}, 183: {40}}
_ELF_NAMES = {62: 'x86_64', 3: 'i386', 183: 'aarch64', 40: 'arm',
              21: 'ppc64', 243: 'riscv64', 22: 's390x'}


def why_not(path, runs=True, here=True):
    '''Why ``path`` cannot be run (``runs``) or read by a job, or ``None``;
    ``here``: it runs on this host, which judges its machine.'''
    if not os.path.exists(path):
        return f'{path} is a broken link to {_target(path)}'
    if os.path.isdir(path):
        return f'{path} is a directory'
    if not os.access(path, os.X_OK if runs else os.R_OK):
        mode = stat.filemode(os.stat(path).st_mode)
        return (f'{path} is not {"executable" if runs else "readable"} '
                f'({mode})')
    return _wont_start(path) if runs and here else None


def _target(path):
    '''A broken link's target, and the missing end of its chain.'''
    first = os.path.join(os.path.dirname(path), os.readlink(path))
    final = os.path.realpath(path)
    return first if os.path.normpath(first) == final else \
        f'{first} (which leads to the missing {final})'


def _wont_start(path):
    '''Why the executable ``path`` would not start here, or ``None``.'''
    try:
        with open(path, 'rb') as fp:
            head = fp.read(64)
    except OSError as err:
        return f'{path} cannot be read ({err.strerror})'
    if head.startswith(b'#!'):
        words = head[2:].split(b'\n')[0].split()
        interpreter = words[0].decode(errors='replace') if words else ''
        if not os.access(interpreter, os.X_OK):
            return (f'{path} is a script whose interpreter '
                    f'{interpreter or "(none)"} is missing or not executable')
    elif head.startswith(b'\x7fELF') and len(head) >= 20:
        order = 'little' if head[5] == 1 else 'big'
        machine = int.from_bytes(head[18:20], order)
        host = os.uname().machine
        ours = _ELF_MACHINES.get(host)
        if ours and machine != ours and machine not in _ALSO_RUNS.get(ours,
                                                                       ()):
            built = _ELF_NAMES.get(machine, f'ELF machine {machine}')
            return f'{path} is built for {built}, this host is {host}'
    return None
