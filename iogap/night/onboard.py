'''``iogap profile onboard <system> --budget H``: a new site from
nothing to its first baseline within a budget of node-hours.

It writes the profile where there is none (``new``), selects the cases of
the first baseline (``--select``, the plain direct dd and OSU latency by
default), leaves out those whose tools are missing, saying why, and prices
the rest with the planner's cost model (:mod:`iogap.plan.cost`, calibrated
on the runs the results database holds) at each size of dd's ladder and
each number of runs: the largest size and the most runs that fit the
budget, since the spread that decides whether a figure is judged shrinks
with both. It prints the cost before starting and refuses a budget that
the smallest baseline exceeds. The size chosen goes into the profile
(``dd_count``), so that every night runs at the size of its references.
Then it runs the baseline, re-baselines, runs further rounds of the cases
left too noisy while the budget left buys them, each priced at what the
rounds before took, keeps the reference that judges the most figures, and
says what cannot be judged at this budget; ``--night`` also runs the first
judged night. ``--dry-run`` prints the price and runs and writes nothing.
'''

import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

from iogap.core.session import output_dir
from iogap.errors import IogapError
from iogap.history.runguard import replace_file
from iogap.judge import references
from iogap.night import pricing
from iogap.night.outcome import judged, night_verdict, spent, too_noisy
from iogap.night.pricing import choose, describe, ladder, matching
from iogap.plan import cost
from iogap.plan import inventory as cases
from iogap.site import discover, generate, profile
from iogap.site.selection import ROOT

#: A dry run's case, and a case it skipped with its reason
_DRY = re.compile(r'^\[\s*DRY\s*\] (\S+ .*?) /(\w+) @\S+?:(\S+?)\+(\S+)$')
_SKIP = re.compile(r'^\[\s*SKIP\s*\] (?:\(\s*\d+/\d+\) )?(\S+ .*?) /\w+ '
                   r'@\S+?:(\S+?)\+\S+ \[(.*)\]$')
#: Run on a node: the tools given that its PATH lacks
_LACKING = 'for t; do command -v "$t" >/dev/null || echo "$t"; done'


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


def reframe(system, *args, limit=None, **kwargs):
    '''Run reframe on ``system`` here, stopped (SIGTERM: ReFrame cancels
    its jobs) after ``limit`` seconds; ``(process, wall seconds, whether
    it was stopped)``.'''
    cmd = [os.path.join(os.path.dirname(sys.executable), 'reframe'), '-C',
           'reframe_config.py', '--system', system, *args]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, text=True, **kwargs)
    try:
        proc.stdout_text = proc.communicate(timeout=limit)[0]
        stopped = False
    except subprocess.TimeoutExpired:
        proc.terminate()
        proc.stdout_text, stopped = proc.communicate()[0], True
    return proc, time.monotonic() - start, stopped


def plan(args, found=None, history=None):
    '''The chosen point, the cases and the ladder.'''
    if found is None:
        profile.load(['--system', args.system], os.environ)
        profile.parametrize(profile.current())
        references.load(args.system, profile.parts())
        found = matching(cases.measured(), args.select)
    if not found:
        raise IogapError(f'--select {" ".join(args.select)}: no case of '
                         f'{args.system} matches whose tools are there '
                         f'(reframe -l lists them)')
    most = min(p.extras['dd_count'] for p in profile.parts())
    points = ladder(found, most, history)
    return choose(points, args.budget), found, points


def selected(found):
    return [o for p in sorted({c.select for c in found.values()})
            for o in ('-n', p)]


def usable(system, say, found):
    '''``found`` less the variants whose tools are missing, each said with
    its reason: a dry run resolves them as the jobs will, and a tool left
    to a node's PATH is looked for there, in a one-task step.'''
    why, tools = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        proc, _, _ = reframe(system, *selected(found), '--dry-run',
                             '--prefix', tmp, stdout=subprocess.PIPE,
                             env=dict(os.environ, RFM_COLORIZE='n',
                                      IOGAP_RESULTS_DB=f'{tmp}/r.db'))
        if proc.returncode:
            said = [l.strip() for l in proc.stdout_text.splitlines()
                    if 'ERROR' in l or 'Reason:' in l] or ['see reframe']
            raise IogapError(f'a dry run of the baseline failed (reframe '
                             f'exit {proc.returncode}): {said[0]}')
        for line in proc.stdout_text.splitlines():
            if m := _SKIP.match(line):
                why[m[1], m[2]] = m[3]
            elif (m := _DRY.match(line)) and os.path.exists(script := (
                    f'{tmp}/stage/{system}/{m[3]}/{m[4]}/'
                    f'{m[1].split()[0]}_{m[2]}/rfm_job.sh')):
                with open(script) as fp:
                    tools[m[1], m[3]] = re.findall(
                        r'^iogap_tool \S+ ([^\s/]+)$', fp.read(), re.M)
    for part in profile.current()['partitions']:
        bare = {t for (_, p), ts in tools.items() if p == part['name']
                for t in ts}
        if bare and part['scheduler'] != 'local':
            access = [w for a in part.get('access', [])
                      for w in shlex.split(a)]
            lacking = discover.run(['srun', *access, '-N1', '-n1', '-t', '5',
                                    'bash', '-c', _LACKING, 'tools',
                                    *sorted(bare)]).split()
            why.update({(n, p): f'{t} is not on the PATH of a node of {p} '
                        f'(nor in a Spack view: IOGAP_SPACK_VIEW)'
                        for (n, p), ts in tools.items() for t in ts
                        if p == part['name'] and t in lacking})
    gone = {c.select for c in found.values() if (c.name, c.partition) in why}
    for case in found.values():
        if (case.name, case.partition) in why:
            say(f'left out {case.name} on {case.partition}: '
                f'{why[case.name, case.partition]}')
    return {k: c for k, c in found.items() if c.select not in gone}


def kept(system, found, best, number, say):
    '''``(figures judged, unjudged, best)`` once round ``number`` is
    re-baselined: the reference that judges the most of ``found``'s
    figures so far (``best``: count, text, round) is written back if this
    round's judges fewer (more runs can widen a spread).'''
    count, unjudged = judged(system, found.values())
    path = references.path_for(system)
    if best and count < best[0]:
        replace_file(path, best[1])
        say(f'round {number} leaves {count} figure(s) judgeable, round '
            f'{best[2]} {best[0]}: its references are kept')
        return (*judged(system, found.values()), best)
    with open(path) as fp:
        return count, unjudged, (count, fp.read(), number)


def rounds(args, say, out, found, point):
    '''The baseline in rounds within the budget: every case, then, while
    figures are too noisy to judge and the budget left buys it, more runs
    of their cases, priced at what their runs took and re-baselined over
    all the runs; the reference that judged the most is kept.
    ``(figures judged, [unjudged (figure, reason)])``.'''
    # One job at a time, so that node-hours are the jobs' own and the
    # budget holds: each round stopped when the widest case would exceed it
    widest = max(c.nodes for c in cost.costs(found).values())
    db = os.environ.get('IOGAP_RESULTS_DB') or os.path.join(out, 'results.db')
    reports, used, todo = [], 0.0, found
    repeat, planned, best = point[1], point[2], None
    for number in range(1, pricing.ROUNDS + 1):
        name = 'baseline' + (f'-{number}' if number > 1 else '')
        reports.append(os.path.join(out, 'reports',
                                    f'{name}-{args.system}.json'))
        proc, took, stopped = reframe(
            args.system, *selected(todo), '--repeat', str(repeat),
            '--report-file', reports[-1], '--exec-policy=serial', '-r',
            limit=(args.budget - used) * 3600 / widest)
        if stopped:
            say(f'the baseline was stopped at the budget ({args.budget:g} '
                f'node-hours) after {took:.0f} s: what it measured is '
                f'baselined')
        if not os.path.exists(reports[-1]):
            raise IogapError(f'the baseline wrote no run report (reframe '
                             f'exit {proc.returncode}); nothing was '
                             f're-baselined')
        if proc.returncode:
            say(f'some cases of the baseline failed (reframe exit '
                f'{proc.returncode}): only the figures measured are '
                f'baselined')
        used += spent(reports[-1])
        say(f'baseline round {number} ran in {took:.0f} s: planned '
            f'{planned:.3g} node-hours, spent {spent(reports[-1]):.3g}; '
            f'{used:.3g} of the budget of {args.budget:g} spent in all')
        status = subprocess.run([sys.executable, '-m', 'iogap', 'rebaseline',
                                 *reports], cwd=ROOT).returncode
        if status:
            raise IogapError(f'rebaseline {" ".join(reports)} failed '
                             f'(exit {status})')
        count, unjudged, best = kept(args.system, found, best, number, say)
        # -n Family@variant runs a variant on every partition: priced so
        noisy = {c.select for c in too_noisy(args.system, found).values()}
        todo = {k: c for k, c in found.items() if c.select in noisy}
        if not todo or stopped or number == pricing.ROUNDS:
            break
        repeat, planned = pricing.more_runs(
            todo, point[0], args.budget - used, cost.measured(db, args.system))
        if not repeat:
            say(f'{len(todo)} case(s) still too noisy: a further round '
                f'({pricing.MORE_RUNS[0]} runs) would take {planned:.3g} '
                f'node-hours, more than the {args.budget - used:.3g} left')
            break
        say(f'round {number + 1}: {repeat} more runs of the {len(todo)} '
            f'case(s) with figures too noisy to judge, {planned:.3g} '
            f'node-hours planned (their runs\' time) of the '
            f'{args.budget - used:.3g} left')
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
    if not os.path.exists(path) and args.dry_run:
        raise IogapError(f'--dry-run: no profile systems/{stem}.py to price '
                         f'the baseline with, and writing one runs a job on '
                         f'a node of each partition: iogap profile new '
                         f'{args.system} first; nothing was run or written')
    if not os.path.exists(path):
        generate.write(args)
    out = output_dir([], os.environ, os.path.join(ROOT, 'output'))
    db = os.environ.get('IOGAP_RESULTS_DB') or os.path.join(out, 'results.db')
    history = cost.measured(db, args.system) if os.path.exists(db) else {}
    point, found, points = plan(args, history=history)
    if not args.dry_run:
        point, found, points = plan(args, usable(args.system, say, found),
                                    history)
    say(f'baseline of {args.system}: {len(found)} cases '
        f'({len({c.family for c in found.values()})} checks), '
        f'{describe(point)}; budget {args.budget:g} node-hours '
        f'(the planner\'s estimates)')
    if args.dry_run:
        return
    set_dd_count(path, point[0])
    say(f'{path}: dd_count={point[0]} (nights run at the baseline\'s size)')
    count, unjudged = rounds(args, say, out, found, point)
    bigger = sorted((p for p in points if p[:2] > point[:2]),
                    key=lambda p: p[2])
    if unjudged and bigger:
        say(f'the next step would cost {describe(bigger[0])}')
    if not count:
        raise IogapError(f'no figure can be judged at this budget ('
                         f'{len(unjudged)} too noisy): a night would judge '
                         f'nothing; give a larger --budget or --select '
                         f'steadier cases')
    say(f'{count} figure(s) of the baseline judged from now on, '
        f'{len(unjudged)} cannot be judged at this budget')
    night = [*(o for p in args.select for o in ('-n', p)), '-n',
             'AbsoluteCheck', '-r']
    say('the first judged night: reframe -C reframe_config.py --system '
        f'{args.system} ' + ' '.join(repr(a) if '(' in a or '|' in a else a
                                     for a in night))
    if args.night:
        report = os.path.join(out, 'reports', f'night-{args.system}.json')
        proc, took, _ = reframe(args.system, *night, '--report-file', report)
        say(f'the first judged night ran in {took:.0f} s')
        say(night_verdict(proc.returncode, report, args.system))
