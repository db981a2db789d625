'''The cap-to-rate relation of a blkio-throttled device, measured once:
dd's direct write of the bench's step (the same dd, block size and flags as
a DDSingleStream direct write), in a cgroup capped at each cap of a grid,
in an order shuffled by a fixed seed; then steps planned to land on the
throttle's slices (:func:`bench.cgroups.on_slices`) at target rates drawn
from the seed, each one's rate against its target.

    python bench/quiet.py curve --scratch DIR -o CSV [--caps 150,...]

Each step's rate is dd's bytes over dd's seconds. A straight line
(``seconds = bytes / cap + offset``) leaves a saw-tooth: a step lasts a
whole number of the throttle's 100 ms slices plus a constant, ``seconds =
0.1 * floor(bytes / (gain * cap) / 0.1) + offset`` (:class:`Curve`, gain
and offset fitted). The table gives both fits' residuals.
'''

import csv
import os
import re
import subprocess

import numpy as np

from bench import cgroups

#: dd's summary: bytes and seconds, as dd-stream.sh's parser reads them
DD = re.compile(r'^(\d+) bytes .* copied, ([\d.]+) s', re.MULTILINE)

#: Columns of the curve's CSV (target: 0 on the grid, else the rate a
#: step planned on the slices aims at)
FIELDS = ('order', 'cap', 'bytes', 'seconds', 'rate', 'load', 'target')


class Curve:
    '''The measured relation, fitted on the grid's ``rows`` (dicts of
    FIELDS): ``seconds = SLICE * floor(bytes / (gain * cap) / SLICE) +
    offset``; the straight line's ``line_gain``, ``line_offset`` beside.'''

    def __init__(self, rows):
        self.rows = [r for r in rows if not r.get('target')]
        self.checks = [r for r in rows if r.get('target')]
        b, c, s = (np.array([r[k] for r in self.rows]) for k in
                   ('bytes', 'cap', 'seconds'))
        slope, self.line_offset = np.polyfit(b / c, s, 1)
        self.line_gain = 1 / slope
        fits = []
        for gain in np.linspace(0.97, 1.03, 601):
            res = s - self.slices(b, gain * c)
            fits.append((np.abs(res - np.median(res)).max(), gain,
                         float(np.median(res))))
        _, self.gain, self.offset = min(fits)

    @staticmethod
    def slices(size, cap):
        return cgroups.SLICE * np.floor(size / cap / cgroups.SLICE)

    def seconds(self, size, cap):
        return self.slices(size, self.gain * cap) + self.offset

    def residuals(self, rows=None, line=False):
        '''Each step's rate over the fit's (or the line's), minus one.'''
        rows = self.rows if rows is None else rows
        return np.array([
            r['rate'] / (r['bytes'] / (r['bytes'] / (self.line_gain *
                                                     r['cap']) +
                                       self.line_offset)
                         if line else r['bytes'] /
                         self.seconds(r['bytes'], r['cap'])) - 1
            for r in rows])

    def step(self, target, seconds):
        '''``(bytes, cap)`` of a step of about ``seconds`` at ``target``.'''
        return cgroups.on_slices(target, seconds, self.offset)

    @classmethod
    def load(cls, path):
        with open(path) as fp:
            return cls([{k: float(v or 0) for k, v in row.items()}
                        for row in csv.DictReader(fp)])


def dd_step(dd, path, mib, group):
    '''``(bytes, seconds)`` of one direct write inside ``group``.'''
    proc = subprocess.run(
        [dd, 'if=/dev/zero', f'of={path}', 'bs=1M', f'count={mib}',
         'oflag=direct'], capture_output=True, text=True, check=True,
        preexec_fn=lambda: cgroups.enter([group]))
    size, seconds = DD.findall(proc.stderr)[-1]
    return int(size), float(seconds)


def measure(scratch, caps, reps, mib, seed, out, checks=20, seconds=5.8):
    '''Write the curve's CSV to ``out`` (one row a step) and return it:
    the grid, then ``checks`` steps planned on the slices at target rates
    drawn from the grid's range.'''
    rng = np.random.default_rng(seed)
    plan = [(c, mib * 2**20, 0.0) for c in caps for _ in range(reps)]
    plan = [plan[i] for i in rng.permutation(len(plan))]
    targets = rng.uniform(min(caps), max(caps), checks)
    dev, path = cgroups.device(scratch), os.path.join(scratch, 'caprate.dat')
    rows = []

    def step(cap, size, target):
        group = cgroups.make('blkio', {
            'blkio.throttle.write_bps_device': f'{dev} {int(cap)}'})
        try:
            got, secs = dd_step('dd', path, size // 2**20, group)
        finally:
            cgroups.remove([group])
        rows.append({'order': len(rows), 'cap': int(cap), 'bytes': got,
                     'seconds': secs, 'rate': got / secs,
                     'load': os.getloadavg()[0], 'target': target})

    try:
        for cap, size, target in plan:
            step(cap, size, target)
        curve = Curve(rows)
        for target in targets:
            size, cap = curve.step(target, seconds)
            step(cap, size, target)
    finally:
        if os.path.exists(path):
            os.remove(path)
    with open(out, 'w', newline='') as fp:
        writer = csv.DictWriter(fp, FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    return Curve(rows)


def table(curve):
    '''The markdown tables of a curve: per cap of the grid, its rates and
    both fits' residuals; the steps planned on the slices.'''
    lines = ['| cap (MB/s) | steps | step (s) | rate (MB/s) | off the line '
             '| off the slices |', '|---|---|---|---|---|---|']
    res, line = curve.residuals(), curve.residuals(line=True)
    for cap in sorted({r['cap'] for r in curve.rows}):
        idx = [i for i, r in enumerate(curve.rows) if r['cap'] == cap]
        rates = np.array([curve.rows[i]['rate'] for i in idx])
        secs = [curve.rows[i]['seconds'] for i in idx]
        lines.append(f'| {cap / 1e6:.0f} | {len(idx)} | {min(secs):.3f}-'
                     f'{max(secs):.3f} | {np.median(rates) / 1e6:.1f} | '
                     f'{line[idx].min():+.2%} to {line[idx].max():+.2%} | '
                     f'{res[idx].min():+.2%} to {res[idx].max():+.2%} |')
    lines.append(f'\nline: seconds = bytes / ({curve.line_gain:.4f} x cap) '
                 f'{curve.line_offset:+.3f} s, residual SD '
                 f'{line.std(ddof=2):.2%} (largest {np.abs(line).max():.2%})'
                 f'; slices: seconds = 0.1 floor(bytes / ({curve.gain:.4f} x '
                 f'cap) / 0.1) {curve.offset:+.4f} s, residual SD '
                 f'{res.std(ddof=2):.2%} (largest {np.abs(res).max():.2%}),'
                 f' over {len(res)} steps')
    if curve.checks:
        off = np.array([r['rate'] / r['target'] - 1 for r in curve.checks])
        secs = [r['seconds'] for r in curve.checks]
        aims = [r['target'] / 1e6 for r in curve.checks]
        lines.append(f'steps planned on the slices: {len(off)} targets '
                     f'drawn in {min(aims):.0f}-{max(aims):.0f} MB/s, '
                     f'{min(secs):.2f}-{max(secs):.2f} s: rate off its '
                     f'target by {off.mean():+.2%} on average, SD '
                     f'{off.std(ddof=1):.2%}, largest {np.abs(off).max():.2%}')
    return '\n'.join(lines)
