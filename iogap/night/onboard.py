'''``iogap profile onboard <system> --budget H``: a new site from
nothing to its first baseline within a budget of node-hours.

It writes the profile if there is none, leaves out the baseline's cases
(``--select``) whose tools are missing, saying why, prices the rest at each
dd size and number of runs (:mod:`iogap.plan.cost`, calibrated on measured
runs) and takes the largest size, then the most runs, within the budget.
It runs the baseline in rounds (more runs of the cases left too noisy while
the budget buys them), keeps the reference that judges the most figures,
and with ``--night`` runs the first judged night. ``--dry-run`` prints the
price and runs and writes nothing.
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
from iogap.night.baseline import (MORE_RUNS, ROUNDS, choose, describe,
                                  judged, ladder, matching, more_runs,
                                  night_verdict, spent, too_noisy)
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
    text = re.sub(r"'dd_count': *\d+", f"'dd_count': {count}", text) if \
        re.search(r"'dd_count': *\d+", text) else re.sub(
            r"\n( *)'extras': \{\n", lambda m: f"{m[0]}{m[1]}    'dd_count': "
            f"{count},  # chosen by onboard\n", text)
    with open(path, 'w') as fp:
        fp.write(text)


def reframe(system, *args, limit=None, **kwargs):
    '''``(process, wall seconds, stopped)`` of reframe run here on
    ``system``, stopped after ``limit`` s (SIGTERM: it cancels its jobs).'''
    start, stopped = time.monotonic(), False
    rfm = os.path.join(os.path.dirname(sys.executable), 'reframe')
    proc = subprocess.Popen([rfm, '-C', 'reframe_config.py', '--system',
                             system, *args], cwd=ROOT, text=True, **kwargs)
    try:
        proc.stdout_text = proc.communicate(timeout=limit)[0]
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
    gone = [c for c in found.values() if (c.name, c.partition) in why]
    for c in gone:
        say(f'left out {c.name} on {c.partition}: {why[c.name, c.partition]}')
    return {k: c for k, c in found.items()
            if c.select not in {g.select for g in gone}}


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


def rounds(args, say, out, db, found, point):
    '''The baseline in rounds within the budget: every case, then more
    runs of those left too noisy while the budget left buys them at what
    their runs took, re-baselined over all; ``(judged, [unjudged])``.'''
    # One job at a time, so that node-hours are the jobs' own and the
    # budget holds: each round stopped when the widest case would exceed it
    widest = max(c.nodes for c in cost.costs(found).values())
    reports, used, todo = [], 0.0, found
    repeat, planned, best = point[1], point[2], None
    for number in range(1, ROUNDS + 1):
        reports.append(os.path.join(out, 'reports', 'baseline' + (
            f'-{number}' if number > 1 else '') + f'-{args.system}.json'))
        proc, took, stopped = reframe(
            args.system, *selected(todo), '--repeat', str(repeat),
            '--report-file', reports[-1], '--exec-policy=serial', '-r',
            limit=(args.budget - used) * 3600 / widest)
        if not os.path.exists(reports[-1]):
            raise IogapError(f'the baseline wrote no run report (reframe '
                             f'exit {proc.returncode}); nothing was '
                             f're-baselined')
        if stopped or proc.returncode:
            say((f'the baseline was stopped at the budget after {took:.0f}'
                 f' s' if stopped else f'some cases failed (reframe exit '
                 f'{proc.returncode})') + ': what it measured is baselined')
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
        if not todo or stopped or number == ROUNDS:
            break
        repeat, planned = more_runs(
            todo, point[0], args.budget - used, cost.measured(db, args.system))
        say(f'round {number + 1}: {repeat or MORE_RUNS[0]} more '
            f'runs of the {len(todo)} case(s) too noisy to judge would take '
            f'{planned:.3g} node-hours (their runs\' time) of the '
            f'{args.budget - used:.3g} left' + ('' if repeat else ': none'))
        if not repeat:
            break
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
    elif not os.path.exists(path):
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
    count, unjudged = rounds(args, say, out, db, found, point)
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
