'''``iogap profile onboard <system> --budget H``: a new site from
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
Then it runs the baseline (``--repeat``), re-baselines, runs further rounds
of the cases left too noisy while the budget left buys them
(:func:`rounds`), and says how many figures are judged, which cannot be
judged at this budget, and what the next size would cost; ``--night``
also runs the first judged night.
'''

import os
import re
import subprocess
import sys
import time

from iogap.errors import IogapError
from iogap.judge import references
from iogap.night import pricing
from iogap.night.outcome import judged, night_verdict, spent, too_noisy
from iogap.night.pricing import choose, describe, ladder, matching
from iogap.plan import cost
from iogap.plan import inventory as cases
from iogap.site import generate, profile
from iogap.site.selection import ROOT


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
    references.load(args.system, profile.parts())
    found = matching(cases.measured(), args.select)
    if not found:
        raise IogapError(f'--select {" ".join(args.select)}: no case of '
                         f'{args.system} matches (reframe -l lists them)')
    most = min(p.extras['dd_count'] for p in profile.parts())
    points = ladder(found, most)
    return choose(points, args.budget), found, points


def selected(patterns):
    return [o for p in patterns for o in ('-n', p)]


def rounds(args, say, out, found, point):
    '''The baseline in rounds within the budget: every case, then, while
    figures are too noisy to judge and the budget left buys it, more runs
    of their cases, re-baselined over all the runs (spreads shrink with
    runs); ``(figures judged, [unjudged (figure, reason)])``.'''
    # One job at a time, so that node-hours are the jobs' own and the
    # budget holds: each round stopped when the widest case would exceed it
    widest = max(c.nodes for c in cost.costs(found).values())
    reports, used, cases, repeat = [], 0.0, found, point[1]
    for number in range(1, pricing.ROUNDS + 1):
        name = 'baseline' + (f'-{number}' if number > 1 else '')
        reports.append(os.path.join(out, 'reports',
                                    f'{name}-{args.system}.json'))
        select = selected(args.select) if number == 1 else selected(
            sorted({c.select for c in cases.values()}))
        status, took, stopped = reframe(
            args.system, *select, '--repeat', str(repeat), '--report-file',
            reports[-1], '--exec-policy=serial', '-r',
            limit=(args.budget - used) * 3600 / widest)
        if stopped:
            say(f'the baseline was stopped at the budget ({args.budget:g} '
                f'node-hours) after {took:.0f} s: what it measured is '
                f'baselined')
        if not os.path.exists(reports[-1]):
            raise IogapError(f'the baseline wrote no run report (reframe '
                             f'exit {status}); nothing was re-baselined')
        if status:
            say(f'some cases of the baseline failed (reframe exit {status}):'
                f' only the figures that were measured are baselined')
        used += spent(reports[-1])
        say(f'baseline round {number} ran in {took:.0f} s: {used:.3g} '
            f'node-hours spent in all, of a budget of {args.budget:g}')
        rebaseline = subprocess.run([sys.executable, '-m', 'iogap', 'rebaseline',
                                     *reports], cwd=ROOT).returncode
        if rebaseline:
            raise IogapError(f'rebaseline {" ".join(reports)} failed '
                             f'(exit {rebaseline})')
        count, unjudged = judged(args.system, found.values())
        # -n Family@variant runs a variant on every partition: priced so
        noisy = {c.select for c in too_noisy(args.system, found).values()}
        cases = {k: c for k, c in found.items() if c.select in noisy}
        if not cases or stopped or number == pricing.ROUNDS:
            break
        repeat, planned = pricing.more_runs(cases, point[0],
                                            args.budget - used)
        if not repeat:
            say(f'{len(cases)} case(s) still too noisy: a further round '
                f'({pricing.MORE_RUNS[0]} runs) would plan {planned:.3g} '
                f'node-hours, more than the {args.budget - used:.3g} left')
            break
        say(f'round {number + 1}: {repeat} more runs of the {len(cases)} '
            f'case(s) of the variants with figures too noisy to judge, '
            f'{planned:.3g} '
            f'node-hours planned of the {args.budget - used:.3g} left')
    for what, why in unjudged:
        say(f'  unjudged {what}: {why}')
    return count, unjudged


def onboard(args):
    '''The profile (written if absent), the baseline within the budget, the
    references from it; with ``--night`` the first judged night.'''
    say = lambda text: print(f'iogap.onboard: {text}', flush=True)
    stem = profile.GENERIC if args.system == profile.GENERIC_SYSTEM \
        else args.system
    path = os.path.join(profile.SYSTEMS_DIR, f'{stem}.py')
    if not os.path.exists(path):
        generate.write(args)
    point, found, points = plan(args)
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
    count, unjudged = rounds(args, say, out, found, point)
    if unjudged and bigger:
        say(f'the next step would cost {describe(bigger[0])}')
    if not count:
        raise IogapError(f'no figure can be judged at this budget ('
                         f'{len(unjudged)} too noisy): a night would judge '
                         f'nothing; give a larger --budget or --select '
                         f'steadier cases')
    say(f'{count} figure(s) of the baseline judged from now on, '
        f'{len(unjudged)} cannot be judged at this budget')
    night = [*selected(args.select), '-n', 'AbsoluteCheck', '-r']
    say('the first judged night: reframe -C reframe_config.py --system '
        f'{args.system} ' + ' '.join(repr(a) if '(' in a or '|' in a else a
                                     for a in night))
    if args.night:
        report = os.path.join(out, 'reports', f'night-{args.system}.json')
        status, took, _ = reframe(args.system, *night, '--report-file',
                                  report)
        say(f'the first judged night ran in {took:.0f} s')
        say(night_verdict(status, report, args.system))
