#!/usr/bin/env python3
'''iotrace.py QUANTUM COMMAND...: run COMMAND, sampling the bytes its
process tree moves (rchar + wchar), one sample kept per QUANTUM bytes and
one at its exit, printed as ``iogap-rank-io: us:bytes:us ...``; exit as
COMMAND did. Standard library only: it runs in every rank.'''

import os
import signal
import subprocess
import sys
import time

#: Shortest and longest pause between samples (s): once data moves, a
#: 256th of the time it has moved, so the resolution stays a small share
TICK, MAX_TICK = 0.00025, 0.02
#: Samples kept per line at most (a line stays within one pipe write)
MAX_POINTS = 200


class Tree:
    '''The processes of one tool, read through descriptors kept open.'''

    def __init__(self, pid):
        self.pid, self.open = pid, {}

    def _read(self, pid, name):
        key = (pid, name)
        try:
            if key not in self.open:
                self.open[key] = os.open(
                    f'/proc/{pid}/{name}' if name == 'io' else
                    f'/proc/{pid}/task/{pid}/children', os.O_RDONLY)
            return os.pread(self.open[key], 65536, 0)
        except OSError:
            # Gone: its bytes have passed to its parent
            fd = self.open.pop(key, None)
            if fd is not None:
                os.close(fd)
            return b''

    def bytes(self, pid=None):
        '''rchar + wchar of ``pid`` (the tool) and its live descendants.'''
        pid = self.pid if pid is None else pid
        lines = self._read(pid, 'io').split(b'\n', 2)[:2]
        own = sum(int(l.split()[1]) for l in lines if l.startswith(
            (b'rchar:', b'wchar:')))
        return own + sum(self.bytes(int(kid)) for kid in
                         self._read(pid, 'children').split())


def exited(pid):
    '''Whether ``pid`` has exited; it stays unreaped, its bytes readable.'''
    found = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    return found is not None


def trace(pid, quantum):
    '''``[(seconds before, bytes, seconds after)]`` while ``pid`` runs.'''
    tree, kept, moving_since = Tree(pid), [], None
    while True:
        done = exited(pid)
        now = time.monotonic()
        moved = tree.bytes()
        after = time.monotonic()
        if done or not kept or moved - kept[-1][1] >= quantum:
            kept.append((now, moved, after))
            if moving_since is None and len(kept) > 1:
                moving_since = now
        if done:
            return kept
        busy = now - moving_since if moving_since else 0.0
        time.sleep(min(max(TICK, busy / 256), MAX_TICK))


def thin(points, most=MAX_POINTS):
    '''At most ``most`` of ``points``, the first and last always kept.'''
    if len(points) <= most:
        return points
    step = (len(points) - 1) / (most - 1)
    return [points[round(i * step)] for i in range(most)]


def main(argv):
    if len(argv) < 3 or not argv[1].isdigit():
        print(f'usage: {os.path.basename(argv[0])} QUANTUM COMMAND...\n\n'
              f'{__doc__.split(chr(10) * 2)[0]}', file=sys.stderr)
        return 0 if argv[1:2] in (['-h'], ['--help']) else 2
    quantum, command = int(argv[1]), argv[2:]
    tool = subprocess.Popen(command)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, _: tool.send_signal(s))
    points = thin(trace(tool.pid, quantum))
    status = tool.wait()
    t0 = points[0][0]
    print('iogap-rank-io:' + ''.join(
        f' {round((t - t0) * 1e6)}:{b}:{round((a - t) * 1e6)}'
        for t, b, a in points), flush=True)
    return status if status >= 0 else 128 - status


if __name__ == '__main__':
    sys.exit(main(sys.argv))
