'''python -m ci.nightly suite | verdict REPORT [--stdout F] | changepoints DB

``suite`` runs tonight's suite (IOGAP_SYSTEM, IOGAP_SELECT), tagged with
the pipeline and commit, into the history database (IOGAP_RESULTS_DB),
compares it with the last IOGAP_HISTORY_NIGHTS days, hands the run report
to the later jobs (``output/ci/night.env``) and ends the job log with the
night's summary (also ``output/ci/summary.txt``); it exits 1 on a red night.
``verdict`` judges a run again from its files; ``changepoints`` judges
the series of nights of a results database (docs/changepoints.md).
'''

import argparse
import json
import os
import sys

from ci.nightly import changepoint, history, verdict
from ci.nightly.night import Night, shown


def _reference_path(system):
    from iogap.judge import references
    return references.path_for(system)


def _print_summary(night, title, lines):
    text = '\n'.join([f' iogap night: {title} '.center(78, '='), *lines,
                      '=' * 78]) + '\n'
    if night:
        with open(night.path('summary.txt'), 'w') as fp:
            fp.write(text)
    print(text, end='', flush=True)


def _history(night, report):
    '''The comparison with the nights before; the summary's line on it.
    Diagnostics only: a failure here must not hide the verdict.'''
    try:
        with open(report) as fp:
            uuid = json.load(fp)['session_info']['uuid']
        rows = history.compare(night, uuid)
    except Exception as err:      # reported; the night is judged anyway
        print(f'nightly: no history comparison: {err!r}')
        rows = None
    if rows is None:
        return [f'history {night.results_db}: no comparison (see above)']
    return [f'history {night.results_db}: {len(rows)} figures compared with '
            f'the last {night.nights} days '
            f'({shown(night.path("history.csv"))})']


def _changepoints(night, report):
    '''The change-point verdict over the history database; also added to
    the JUnit report as its own suite.'''
    try:
        with open(report) as fp:
            uuid = json.load(fp)['session_info']['uuid']
        lines, steps, cases = changepoint.judge(night.results_db, uuid)
        if cases:
            changepoint.add_junit(night.junit, cases)
    except Exception as err:      # said; the bands still judge the night
        return [f'change points: not judged: {err!r}'], False
    return lines, bool(steps)


def _with_steps(found, steps, stepped):
    '''The band's lines with the change-point lines before the verdict,
    which a step turns red.'''
    *lines, last = found
    if stepped:
        last = (f'{last}; a step change across nights' if last.startswith(
            'RED') else 'RED: every case passed and every figure is within '
            'its reference, but the series of nights stepped (STEP above)')
    return lines + steps + [last]


def suite():
    night = Night(os.environ)
    system = night.locate()
    print(f'nightly: system {system}, history database {night.results_db}',
          flush=True)
    returncode, report = night.run()
    night.hand_over(report)
    lines = _history(night, report) if report else []
    found, red = verdict.judge(report, night.stdout, _reference_path(system),
                               returncode)
    if report:      # the series of nights, beside tonight's bands
        steps, stepped = _changepoints(night, report)
        found, red = _with_steps(found, steps, stepped), red or stepped
    _print_summary(night, f'{system}, pipeline {night.extras["pipeline"]}, '
                   f'commit {night.extras["commit"][:12]}', lines + found)
    return 1 if red else 0


def recheck(args):
    with open(args.report) as fp:
        case = json.load(fp)['runs'][0]['testcases'][0]
    lines, red = verdict.judge(args.report, args.stdout,
                               _reference_path(case['system']))
    _print_summary(None, case['system'], lines)
    return 1 if red else 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog='python -m ci.nightly',
                                     description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='command', required=True)
    sub.add_parser('suite', help="run, compare and judge tonight's suite")
    again = sub.add_parser('verdict', help='judge a run from its files')
    again.add_argument('report', help='the ReFrame run report')
    again.add_argument('--stdout', help="reframe's stdout (skip reasons)")
    steps = sub.add_parser('changepoints', help='judge the series of nights '
                           'of a results database for step changes')
    steps.add_argument('db', help="ReFrame's results database")
    steps.add_argument('--session', help='tonight (default: the newest)')
    args = parser.parse_args(argv)
    if args.command == 'changepoints':
        lines, found, _ = changepoint.judge(args.db, args.session)
        print('\n'.join(lines))
        return 1 if found else 2 if lines[-1].endswith('not judged') else 0
    return suite() if args.command == 'suite' else recheck(args)


if __name__ == '__main__':
    sys.exit(main())
