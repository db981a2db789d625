'''Nights of the quiet bench: every night is one real ReFrame session of
the dd direct write, throttled at the scratch device, clean nights
included, with noise of a set size on the throttle's cap.

A series is planned from its seed (:class:`Plan`): ``history`` clean
nights, then ``trials`` times ``within`` nights slowed by ``level`` % and
``gap`` clean nights. Night ``n``'s cap makes its step run at ``rate``
times its noise factor times ``1 - slowdown``: the factor is log-normal,
``exp(spread * u_n)``, with ``u`` standard normal from the seed,
independent or AR(1) with ``rho``. Each step lasts about ``step`` seconds
(at least 5 s) and lands on the throttle's slices: its bytes and cap come
from the cap-to-rate relation measured on the device (bench/caprate.py,
bench/cgroups.py ``on_slices``), so the slice does not quantize it. A
session is tagged ``--session-extras night=N,slowdown=S,factor=F,cap=C``
and leaves ``night-NNN.json`` (the plan's night, its step and cap, what it
measured), so a stopped series resumes.
'''

import dataclasses
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

from bench import cgroups
from bench.caprate import Curve
from iogap.dd.figures import BW, BW_SPREAD, MEMORY_BW, PAIRED

#: The figure a night is judged by, and its repetitions' spread
WRITE_BW = BW.name(pattern='write')
WRITE_BW_MIN, WRITE_BW_MAX, WRITE_BW_CV = (
    f.name(pattern='write') for f in BW_SPREAD)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: The one case a night runs: the dd direct write, no reads
SELECT = 'DDSingleStream.*%cpu_bind=default.*%darshan=off.*%mode=direct'

#: The figures kept per night (the case's own: median of the repetitions,
#: their min, max and CV, and the write over its memory copy)
FIGURES = (WRITE_BW, WRITE_BW_MIN, WRITE_BW_MAX, WRITE_BW_CV,
           PAIRED.name(pattern='write'), MEMORY_BW.name())


@dataclasses.dataclass
class Plan:
    '''A series of nights, all of it from its seed.'''
    seed: int
    spread: float          #: SD of the log of the noise factor
    rho: float = 0.0       #: AR(1) of the noise from one night to the next
    history: int = 65      #: clean nights before the first trial
    trials: int = 20
    level: float = 10.0    #: a trial's slowdown, %
    within: int = 3        #: slowed nights a trial
    gap: int = 30          #: clean nights after each trial
    rate: float = 190e6    #: a clean night's rate with no noise, bytes/s
    step: float = 5.8      #: seconds a step lasts
    repetitions: int = 3

    @property
    def nights(self):
        return self.history + self.trials * (self.within + self.gap)

    def noise(self):
        '''``u_n`` for every night: standard normal, AR(1) with ``rho``.'''
        z = np.random.default_rng(self.seed).standard_normal(self.nights)
        u = np.empty_like(z)
        u[0] = z[0]
        for n in range(1, len(z)):
            u[n] = self.rho * u[n - 1] + math.sqrt(1 - self.rho ** 2) * z[n]
        return u

    def night(self, n):
        '''``{night, trial, slowdown, factor, target}`` of night ``n``.'''
        k, j = divmod(n - self.history, self.within + self.gap)
        slowed = n >= self.history and j < self.within
        factor = math.exp(self.spread * self.noise()[n])
        slowdown = self.level if slowed else 0.0
        return {'night': n, 'trial': k if slowed else None,
                'slowdown': slowdown, 'factor': factor,
                'target': self.rate * factor * (1 - slowdown / 100)}


def save_plan(out, plan):
    '''Write ``plan.json``, or check the one ``out`` holds is the same.'''
    path = os.path.join(out, 'plan.json')
    if os.path.exists(path):
        with open(path) as fp:
            held = Plan(**json.load(fp))
        if held != plan:
            sys.exit(f'{out} holds another series ({held}); a new -o')
        return
    with open(path, 'w') as fp:
        json.dump(dataclasses.asdict(plan), fp, indent=1)


def load_plan(out):
    with open(os.path.join(out, 'plan.json')) as fp:
        return Plan(**json.load(fp))


def case_values(report):
    '''``({figure: value}, repetitions)`` of the night's passing case.'''
    for run in report['runs']:
        for tc in run['testcases']:
            if tc['name'].split()[0] == 'DDSingleStream' and \
                    tc['result'] == 'pass':
                return ({k.rsplit(':', 1)[-1]: v[0] for k, v in
                         tc['perfvalues'].items()
                         if k.rsplit(':', 1)[-1] in FIGURES},
                        tc.get('repetitions'))
    return {}, None


def reframe():
    '''The reframe of the Python that runs the bench.'''
    return os.path.join(os.path.dirname(sys.executable), 'reframe')


def run_night(out, plan, n, curve, scratch):
    '''Night ``n``: its session in a cgroup capping the scratch device
    at the plan's cap; its record (also written to disk).'''
    night = plan.night(n)
    size, cap = curve.step(night['target'], plan.step)
    mib = size // 2**20
    group = cgroups.make('blkio', {'blkio.throttle.write_bps_device':
                                   f'{cgroups.device(scratch)} {int(cap)}'})
    here = os.path.join(out, f'night-{n:03d}')
    env = dict(os.environ, IOGAP_OUTPUT=here, IOGAP_SCRATCH=scratch,
               IOGAP_RESULTS_DB=os.path.join(out, 'results.db'),
               PYTHONPATH=ROOT, RFM_COLORIZE='n')
    cmd = [reframe(), '-C', 'reframe_config.py', '-c', 'checks/dd.py', '-n',
           SELECT, '-S', f'DDSingleStream.count={mib}', '-S',
           'DDSingleStream.reads=0', '-S',
           f'DDSingleStream.repetitions={plan.repetitions}',
           '--session-extras', (f'night={n},slowdown={night["slowdown"]:g},'
                                f'factor={night["factor"]:.5f},cap={int(cap)}'),
           '-r']
    start, load = time.time(), os.getloadavg()[0]
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, text=True, check=False,
                              preexec_fn=lambda: cgroups.enter([group]),
                              stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT)
    finally:
        cgroups.remove([group])
    reports = os.path.join(here, 'reports')
    report = None
    if os.path.isdir(reports) and os.listdir(reports):
        with open(os.path.join(reports, sorted(os.listdir(reports))[-1])) \
                as fp:
            report = json.load(fp)
    values, reps = case_values(report) if report else ({}, None)
    record = dict(night, cap=cap, mib=mib,
                  expected=size / curve.seconds(size, cap),
                  seconds=round(time.time() - start, 1), load=round(load, 2),
                  exit=proc.returncode, values=values, repetitions=reps,
                  session=report and report['session_info'].get('uuid'),
                  finished=time.strftime('%Y-%m-%dT%H:%M:%S'))
    if proc.returncode:
        record['tail'] = proc.stdout[-2000:]
    with open(os.path.join(out, f'night-{n:03d}.json'), 'w') as fp:
        json.dump(record, fp, indent=1)
    return record


def records(out):
    '''``[record]`` of the finished nights, by night.'''
    found = []
    for name in sorted(os.listdir(out)):
        if name.startswith('night-') and name.endswith('.json'):
            with open(os.path.join(out, name)) as fp:
                found.append(json.load(fp))
    return found


def run_series(out, plan, curve, scratch, until=None):
    '''Run the nights of ``plan`` not done yet (up to ``until``).'''
    os.makedirs(out, exist_ok=True)
    save_plan(out, plan)
    done = {r['night'] for r in records(out) if not r['exit']}
    for n in range(min(until or plan.nights, plan.nights)):
        if n in done:
            continue
        rec = run_night(out, plan, n, curve, scratch)
        got = rec['values'].get(WRITE_BW)
        print(f'night {n}: slowdown {rec["slowdown"]:g} %, factor '
              f'{rec["factor"]:.4f}, cap {rec["cap"] / 1e6:.1f} MB/s, '
              f'write {got and f"{got:.1f}"} MB/s (target '
              f'{rec["target"] / 1e6:.1f}), {rec["seconds"]:.0f} s, load '
              f'{rec["load"]}, exit {rec["exit"]}', file=sys.stderr,
              flush=True)
        if rec['exit']:
            print(rec.get('tail', ''), file=sys.stderr)


def load_curve(path):
    return Curve.load(path)
