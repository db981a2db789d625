'''``python -m iogap.profile onboard <system> --budget H``: a new site from
nothing to its first baseline within a budget of node-hours.

It writes the profile where there is none (``new``), selects the cases of
the first baseline (``--select``, the plain direct dd and OSU latency by
default), and prices them with the planner's cost model
(:mod:`iogap.plan.cost`) at each size of dd's ladder and each number of
runs: the largest size and the most runs that fit the budget, since the
spread that decides whether a figure is judged (:mod:`iogap.judge.noise`:
a band over 50 % guards nothing) shrinks with both. It prints the cost
(cases, node-hours, bytes written) before starting and refuses a budget
that the smallest baseline exceeds. The size chosen goes into the profile
(``dd_count``), so that every night runs at the size of its references.
Then it runs the baseline (``--repeat``), re-baselines, and says how many
figures are judged, which cannot be judged at this budget, and what the
next size would cost; ``--night`` also runs the first judged night.
'''

import os
import re
import subprocess
import sys
import time

from iogap import profile
from iogap.errors import IogapError
from iogap.profile.outcome import judged, night_judged, spent
from iogap.profile.selection import ROOT

#: The first baseline's cases by default: the plain variants of the direct
#: dd (the study's steadiest figures) and of the OSU latency
PLAIN = '(?=.*%core_spec=0)(?=.*%cpu_bind=default)'
SELECT = (f'^DDSingleStream(?=.*%mode=direct)(?=.*%darshan=off){PLAIN}',
          f'^OSULatency{PLAIN}')

#: dd counts tried (blocks of the profile's dd_block_size), never above
#: the profile's own dd_count
COUNTS = (16, 64, 256, 1024)

#: Runs of every case (ReFrame's --repeat): the noise model needs 3
REPEATS = (3, 5)


def matching(found, patterns):
    '''The cases ReFrame's ``-n`` selects: a regular expression searched
    in the display name with its spaces removed.'''
    return {k: c for k, c in found.items() if any(
        re.search(p, c.name.replace(' ', '')) for p in patterns)}


def ladder(cases, most):
    '''``[(count, repeat, node-hours, seconds, bytes written)]`` of the
    baseline at each dd count up to ``most`` and each number of runs.'''
    from iogap.plan import cost
    points = []
    for count in sorted({c for c in COUNTS if c < most} | {most}):
        row = [0.0, 0.0, 0]
        for one in cost.resized(cases, {'dd_count': count}).values():
            row = [row[0] + one.node_hours, row[1] + one.seconds,
                   row[2] + one.written]
        points += [(count, r, r * row[0], r * row[1], r * row[2])
                   for r in REPEATS]
    return points


def choose(points, budget):
    '''The largest count, then the most runs, within ``budget``.'''
    fits = [p for p in points if p[2] <= budget]
    if not fits:
        cheapest = min(points, key=lambda p: p[2])
        raise IogapError(f'the smallest baseline ({describe(cheapest)}) '
                         f'exceeds the budget of {budget:g} node-hours: give '
                         f'--budget {cheapest[2]:.2g} or more, or --select '
                         f'fewer cases')
    return max(fits, key=lambda p: (p[0], p[1]))


def describe(point):
    count, repeat, hours, seconds, written = point
    return (f'dd count={count}, {repeat} runs: {hours:.3g} node-hours, '
            f'{seconds / 60:.1f} min serial, {written / 1e9:.3g} GB written')


def set_dd_count(path, count):
    '''Write ``dd_count`` into every partition of the profile at ``path``.'''
    with open(path) as fp:
        text = fp.read()
    if re.search(r"'dd_count': *\d+", text):
        text = re.sub(r"'dd_count': *\d+", f"'dd_count': {count}", text)
    else:
        text = re.sub(r"\n( *)'extras': \{\n", lambda m: (
            f"{m[0]}{m[1]}    'dd_count': {count},  # chosen by onboard\n"),
            text)
    with open(path, 'w') as fp:
        fp.write(text)


def reframe(system, *args, limit=None):
    '''Run reframe on ``system`` here, its output passed through, stopped
    (SIGTERM: ReFrame cancels its jobs) after ``limit`` seconds; exit
    status, wall seconds and whether it was stopped.'''
    cmd = [os.path.join(os.path.dirname(sys.executable), 'reframe'), '-C',
           'reframe_config.py', '--system', system, *args]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT)
    try:
        status, stopped = proc.wait(timeout=limit), False
    except subprocess.TimeoutExpired:
        proc.terminate()
        status, stopped = proc.wait(), True
    return status, time.monotonic() - start, stopped


def plan(args):
    '''Load the profile; the chosen point, its cases and the ladder.'''
    profile.load(['--system', args.system], os.environ)
    profile.parametrize(profile.current())
    from iogap.judge import references
    from iogap.plan import cases
    references.load(args.system, profile.parts())
    found = matching(cases.measured(), args.select)
    if not found:
        raise IogapError(f'--select {" ".join(args.select)}: no case of '
                         f'{args.system} matches (reframe -l lists them)')
    most = min(p.extras['dd_count'] for p in profile.parts())
    points = ladder(found, most)
    return choose(points, args.budget), found, points


def onboard(args):
    '''The profile (written if absent), the baseline within the budget, the
    references from it; with ``--night`` the first judged night.'''
    say = lambda text: print(f'iogap.onboard: {text}', flush=True)
    stem = profile.GENERIC if args.system == profile.GENERIC_SYSTEM \
        else args.system
    path = os.path.join(profile.SYSTEMS_DIR, f'{stem}.py')
    if not os.path.exists(path):
        from iogap.profile import generate
        generate.write(args)
    point, found, points = plan(args)
    from iogap.plan import cost
    say(f'baseline of {args.system}: {len(found)} cases '
        f'({len({c.family for c in found.values()})} checks), '
        f'{describe(point)}; budget {args.budget:g} node-hours '
        f'(the planner\'s estimates)')
    bigger = sorted((p for p in points if p[:2] > point[:2]),
                    key=lambda p: p[2])
    if args.dry_run:
        return
    set_dd_count(path, point[0])
    say(f'{path}: dd_count={point[0]} (nights run at the baseline\'s size)')
    out = os.path.abspath(os.environ.get('IOGAP_OUTPUT') or
                          os.path.join(ROOT, 'output'))
    report = os.path.join(out, 'reports', f'baseline-{args.system}.json')
    select = [o for s in args.select for o in ('-n', s)]
    # One job at a time, so that node-hours are the jobs' own and the
    # budget holds: stopped when the widest case would exceed it
    widest = max(c.nodes for c in cost.costs(found).values())
    status, took, stopped = reframe(
        args.system, *select, '--repeat', str(point[1]), '--report-file',
        report, '--exec-policy=serial', '-r',
        limit=args.budget * 3600 / widest)
    if stopped:
        say(f'the baseline was stopped at the budget ({args.budget:g} '
            f'node-hours) after {took:.0f} s: what it measured is '
            f'baselined')
    if not os.path.exists(report):
        raise IogapError(f'the baseline wrote no run report (reframe exit '
                         f'{status}); nothing was re-baselined')
    if status:
        say(f'some cases of the baseline failed (reframe exit {status}): '
            f'only the figures that were measured are baselined')
    say(f'baseline ran in {took:.0f} s: {spent(report):.3g} node-hours spent '
        f'of {point[2]:.3g} planned')
    status = subprocess.run([sys.executable, '-m', 'iogap.rebaseline',
                             report], cwd=ROOT).returncode
    if status:
        raise IogapError(f'rebaseline {report} failed (exit {status})')
    count, unjudged = judged(args.system, found.values())
    for what, why in unjudged:
        say(f'  unjudged {what}: {why}')
    if unjudged and bigger:
        say(f'the next step would cost {describe(bigger[0])}')
    if not count:
        raise IogapError(f'no figure can be judged at this budget ('
                         f'{len(unjudged)} too noisy): a night would judge '
                         f'nothing; give a larger --budget or --select '
                         f'steadier cases')
    say(f'{count} figure(s) of the baseline judged from now on, '
        f'{len(unjudged)} cannot be judged at this budget')
    night = [*select, '-n', 'AbsoluteCheck', '-r']
    say('the first judged night: reframe -C reframe_config.py --system '
        f'{args.system} ' + ' '.join(repr(a) if '(' in a or '|' in a else a
                                     for a in night))
    if args.night:
        report = os.path.join(out, 'reports', f'night-{args.system}.json')
        status, took, _ = reframe(args.system, *night, '--report-file',
                                  report)
        say(f'the first judged night ran in {took:.0f} s, exit {status}: '
            f'{night_judged(report, args.system)}')
