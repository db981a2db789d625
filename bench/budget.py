#!/usr/bin/env python3
'''Several short nights within a budget on the local Slurm cluster.

    ci/local-slurm start --nodes 2   (own IOGAP_SLURM_DIR and _PORT)
    python bench/budget.py --nights 4 --wall 240s [--within REGEX]

Plans each night just before it runs, as the nightly does (python -m
iogap.plan night on the results database the nights fill, seeded from
--history), runs it with reframe on the minicluster profile with the
plan's -n options and its record in --session-extras, then checks from the
run reports: every case of the universe covered within the nights the
first plan promised, the canaries every night, no judgement missing a
side, and each night's wall time planned against measured (the session's
own elapsed time and the sum of its jobs).
'''

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def plan(args, night, out):
    path = os.path.join(out, f'plan-{night}.json')
    cmd = [sys.executable, '-m', 'iogap', 'plan', 'night', '--system',
           'minicluster', '--night', str(night), '--wall', args.wall,
           '--json', path, '--db', os.path.join(out, 'output', 'results.db')]
    if args.within:
        cmd += ['--within', args.within]
    if args.canaries:
        cmd += ['--canaries', args.canaries]
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
    with open(path) as fp:
        return json.load(fp)


def run_night(summary, out):
    opts = [o for s in summary['selects'] for o in ('-n', s)]
    extras = (f'plan_night={summary["night"]},plan_digest='
              f'{summary["digest"]},plan_rotation='
              f'{summary["rotation_length"]}')
    start = time.monotonic()
    proc = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), 'reframe'), '-C',
         'reframe_config.py', '--system', 'minicluster', '-r', *opts,
         # one job at a time, as the cluster's license runs them: a job's
         # submission-to-completion is then its own wall time
         '--exec-policy', 'serial',
         '--session-extras', extras], cwd=ROOT, capture_output=True,
        text=True)
    took = time.monotonic() - start
    reports = glob.glob(os.path.join(out, 'output', 'reports', '*.json'))
    with open(max(reports, key=os.path.getmtime)) as fp:
        report = json.load(fp)
    return proc.returncode, took, report


def universe(within):
    '''The cases of the plan's universe and its judgements, as planned
    (the profile loaded here as reframe loads it).'''
    sys.path.insert(0, ROOT)
    from iogap.site import profile
    from iogap.judge import references
    from iogap.plan import inventory as cases
    profile.load(['--system', 'minicluster'], os.environ)
    profile.parametrize(profile.current())
    references.load('minicluster', profile.parts())
    found = {k: c for k, c in cases.measured().items()
             if re.search(within, c.family)}
    return found, cases.judgements(found)


def first_night(db):
    '''The night after the last one ``db`` recorded (0 without one): a
    night's plan reads only the nights before it.'''
    from iogap.plan import cost
    ran = cost.nights_ran(db if os.path.exists(db) else None, 'minicluster')
    return 1 + max((n for nights in ran.values() for n in nights), default=-1)


def check(summaries, reports, found, judgements):
    '''Coverage, canaries, judgements' sides: what the plan promised.'''
    names = {c.unique: c.select for c in found.values()}
    names.update({j.name: j.select for j in judgements})
    sides = {j.name: j.sides for j in judgements}
    lines, covered = [], set()
    for s, rep in zip(summaries, reports):
        cases = [tc for r in rep['runs'] for tc in r['testcases']
                 if not tc['fixture']]
        ran = {(tc['unique_name'], tc['partition']) for tc in cases}
        covered |= ran
        selected = {names.get(tc.get('judgement') or tc['unique_name'])
                    for tc in cases}
        absent = sorted(set(s['canaries']) - selected)
        lost = [(tc['judgement'], side) for tc in cases
                if tc.get('judgement') in sides
                for side in sides[tc['judgement']] if tuple(side) not in ran]
        lines.append(f'night {s["night"]}: canaries '
                     f'{"all ran" if not absent else f"missing {absent}"}; '
                     f'judgements {sum(bool(tc.get("judgement")) for tc in cases)}'
                     f', sides lost {lost or "none"}')
    missing = sorted(set(found) - covered)
    lines.append(f'coverage: {len(found) - len(missing)} of {len(found)} '
                 f'cases within {len(reports)} night(s)' +
                 (f', missing {missing}' if missing else ''))
    return lines


def options():
    parser = argparse.ArgumentParser()
    parser.add_argument('--nights', type=int, help='default: those the '
                        'first plan promises every case within')
    parser.add_argument('--first', type=int, help='the first night\'s '
                        'index; default: the night after the last one '
                        '--history recorded, else 0')
    parser.add_argument('--wall', default='240s')
    parser.add_argument('--within', default='^(OSULatency|DDSingleStream)$')
    parser.add_argument('--canaries', default='RatioCheck@0')
    parser.add_argument('--history', help='results database the nights '
                        'start from (copied into a new output)')
    parser.add_argument('--out', default=os.path.join(ROOT, 'output',
                                                      'bench-budget'))
    return parser.parse_args()


def measured(summary, code, took, report):
    '''A night's line: its wall time planned against measured (the jobs'
    own, the session's, reframe's), its exit and its results.'''
    jobs = sum((tc.get('job_completion_time_unix') or 0) -
               (tc.get('job_submit_time') or 0)
               for r in report['runs'] for tc in r['testcases']
               if tc.get('job_submit_time') and
               tc.get('job_completion_time_unix'))
    results = [tc['result'] for r in report['runs']
               for tc in r['testcases'] if not tc['fixture']]
    return (f'night {summary["night"]}: {len(summary["selects"])} variants, '
            f'planned {summary["wall_seconds"]:.0f} s of jobs (budget '
            f'{summary["budget"]}); measured: jobs {jobs:.0f} s, session '
            f'{report["session_info"]["time_elapsed"]:.0f} s, reframe '
            f'{took:.0f} s; exit {code}; results '
            f'{ {x: results.count(x) for x in set(results)} }')


def main():
    args = options()
    os.makedirs(args.out, exist_ok=True)
    os.environ['IOGAP_OUTPUT'] = os.path.join(args.out, 'output')
    db = os.path.join(args.out, 'output', 'results.db')
    if args.history and not os.path.exists(db):
        os.makedirs(os.path.dirname(db), exist_ok=True)
        subprocess.run(['cp', '-p', args.history, db], check=True)
    # The universe first: its variants numbered as the nights' runs number
    # them, before anything else imports a check
    found, judgements = universe(args.within)
    summaries, reports = [], []
    night = args.first if args.first is not None else first_night(db)
    while True:
        s = plan(args, night, args.out)
        if not summaries:
            promised = args.nights or s['covered_within']
            print(f'rotation of {s["rotation_length"]} night(s), every case '
                  f'within {s["covered_within"]}, canaries {s["canaries"]}',
                  flush=True)
        if len(summaries) == promised:
            break
        summaries.append(s)
        code, took, report = run_night(s, args.out)
        reports.append(report)
        print(measured(s, code, took, report), flush=True)
        night += 1
    for line in check(summaries, reports, found, judgements):
        print(line)


if __name__ == '__main__':
    main()
