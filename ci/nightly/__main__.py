'''python -m ci.nightly suite | pipeline | sweep | verdict REPORT
[--stdout F] | changepoints DB

``suite`` runs tonight's suite (IOGAP_SYSTEM, IOGAP_SELECT), tagged with
the pipeline and commit, into the history database (IOGAP_RESULTS_DB),
compares it with the last IOGAP_HISTORY_NIGHTS days, hands the run report
to the later jobs (``output/ci/night.env``) and ends the job log with the
night's summary (also ``output/ci/summary.txt``); it exits 1 on a red night,
2 on one that judged too little (NOT JUDGED, UNDER-JUDGED: iogap.coverage).
``pipeline`` plans a night whose budget is per partition and writes it as
a child pipeline of per-partition jobs (ci/nightly/pipeline.py); ``sweep``
runs the node sweep of the night's plan (ci/nightly/sweep.py).
``verdict`` judges a run again from its files; ``changepoints`` judges
the series of nights of a results database (docs/changepoints.md).
'''

import json
import os
import sys

from ci.nightly import changepoint, effects, history, junit, verdict
from ci.nightly.night import Night, shown
from iogap import inputs, resultsdb
from iogap.errors import IogapError
from iogap.report import load
from iogap.runguard import replace_file


def _reference_path(system):
    from iogap.judge import references
    return references.path_for(system)


def _print_summary(night, title, lines):
    text = '\n'.join([f' iogap night: {title} '.center(78, '='), *lines,
                      '=' * 78]) + '\n'
    print(text, end='', flush=True)
    if night:
        replace_file(night.path('summary.txt'), text)


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


def _changepoints(night, report, system):
    '''The change-point verdict over the history database, honouring the
    figures the reference file declares judged for breakage only; also
    added to the JUnit report as its own suite.'''
    from iogap.judge import breakage
    try:
        with open(report) as fp:
            uuid = json.load(fp)['session_info']['uuid']
        ref, said = breakage.reference(system)
        lines, steps, cases = changepoint.judge(night.results_db, uuid, ref)
        if cases:
            changepoint.add_junit(night.junit, cases)
    except Exception as err:      # said; the bands still judge the night
        return [f'change points: not judged: {err!r}'], False
    return said + lines, bool(steps)


def _effects(night, report, system):
    '''The study's effects over the nights of the history database
    (``GONE`` lines turn the night red); their own JUnit suite.'''
    try:
        with open(report) as fp:
            uuid = json.load(fp)['session_info']['uuid']
        lines, gone, cases = effects.judge(night.results_db, uuid,
                                           _reference_path(system))
        if cases:
            effects.add_junit(night.junit, cases)
    except Exception as err:      # said; the bands still judge the night
        return [f'effects: not judged: {err!r}'], False
    return lines, gone


def _with_steps(found, steps, stepped):
    '''The band's lines with the change-point lines before the verdict,
    which a step turns red.'''
    *lines, last = found
    if stepped and last.startswith('RED'):
        last = f'{last}; a step change across nights'
    elif stepped and last.startswith('GREEN'):
        last = ('RED: every case passed and every figure is within its '
                'reference, but the series of nights stepped or lost an '
                'effect (STEP, GONE above)')
    elif stepped:
        last = (f'RED: the series of nights stepped or lost an effect '
                f'(STEP, GONE above); {last}')
    return lines + steps + [last]

def _guard_history(night):
    '''Check the history database and keep a copy of it as the last good
    history; the summary's lines on it. A database that cannot be trusted
    is never run into; one ReFrame can no longer read is mended first.'''
    mended = resultsdb.mend(night.results_db)
    copy = resultsdb.keep_copy(night.results_db)
    return ([f'history: {mended}'] if mended else []) + (
        [f'history {night.results_db}: sound; last good copy {copy} '
         f'(restore: cp -p {copy} {night.results_db})'] if copy else [])


def _stored(night, report):
    '''The red line when tonight's session is not in the history.'''
    try:
        uuid = load.read_report(report)['session_info']['uuid']
    except (load.InputError, KeyError, TypeError) as err:
        return [f'RED: tonight\'s session cannot be found: {err}']
    why = resultsdb.stored(night.results_db, uuid)
    if why is None:
        try:
            resultsdb.keep_copy(night.results_db)
        except IogapError as err:
            return [f'RED: {err}']
        return []
    warned = [line.strip() for line in open(night.stdout, errors='replace')
              if 'failed to store results' in line][:1]
    return [f'RED: tonight was not stored in the history: {why}'
            f'{" (reframe: " + warned[0] + ")" if warned else ""}; '
            f'{resultsdb.restore_hint(night.results_db)}']


def suite():
    night = Night(os.environ)
    system = night.locate()
    print(f'nightly: system {system}, history database {night.results_db}',
          flush=True)
    title = f'{system}, pipeline {night.extras["pipeline"]}, ' \
            f'commit {night.extras["commit"][:12]}'
    try:
        kept = _guard_history(night)
    except IogapError as err:
        _print_summary(None, title, [f'RED: {err}'])
        return 1

    from ci.nightly import plan
    os.makedirs(night.dir, exist_ok=True)
    returncode, report = night.run(*plan.tonight(night, os.environ))
    night.hand_over(report)
    lines = kept + (_history(night, report) if report else [])
    found, status = verdict.judge(report, night.stdout,
                                  _reference_path(system), returncode,
                                  share=bool(night.job))
    unstored = _stored(night, report) if report else []
    if unstored:    # the verdict's last line is not the night's
        found, status = found[:-1] if status != verdict.RED else found, \
            verdict.RED
    if report:      # the series of nights, beside tonight's bands
        steps, stepped = _changepoints(night, report, system)
        gone, vanished = _effects(night, report, system)
        found = _with_steps(found, steps + gone, stepped or vanished)
        status = verdict.RED if stepped or vanished else status
        junit.add_coverage(night.junit, found)
    _print_summary(night, title, lines + found + unstored)
    return status


def recheck(args):
    try:
        case = load.read_report(args.report)['runs'][0]['testcases'][0]
        system = case['system'].split(':')[0]
    except load.InputError as err:
        _print_summary(None, args.report, [f'RED: {err}'])
        return 1
    except (IndexError, KeyError, TypeError):
        _print_summary(None, args.report, [f'RED: {args.report} holds no '
                                           f'test case: nothing was judged'])
        return 1
    lines, status = verdict.judge(args.report, args.stdout,
                                  _reference_path(system))
    _print_summary(None, case['system'], lines)
    return status


def main(argv=None):
    parser = inputs.Parser(prog='python -m ci.nightly',
                                     description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='command', required=True)
    sub.add_parser('suite', help="run, compare and judge tonight's suite")
    sub.add_parser('pipeline', help='plan tonight as a child pipeline of '
                   'per-partition jobs')
    sub.add_parser('sweep', help='run the plan\'s node sweep (measured, '
                   'not judged)')
    again = sub.add_parser('verdict', help='judge a run from its files')
    again.add_argument('report', help='the ReFrame run report')
    again.add_argument('--stdout', type=inputs.option(inputs.existing_file),
                       help="reframe's stdout (skip reasons)")
    steps = sub.add_parser('changepoints', help='judge the series of nights '
                           'of a results database for step changes')
    steps.add_argument('db', help="ReFrame's results database")
    steps.add_argument('--session', help='tonight (default: the newest)')
    args = parser.parse_args(argv)
    try:
        if args.command == 'changepoints':
            lines, found, _ = changepoint.judge(args.db, args.session)
            print('\n'.join(lines))
            return 1 if found else 2 if lines[-1].endswith('not judged') \
                else 0
        if args.command == 'pipeline':
            from ci.nightly import pipeline
            return pipeline.main(os.environ)
        if args.command == 'sweep':
            from ci.nightly import sweep
            return sweep.main(os.environ, _print_summary)
        return suite() if args.command == 'suite' else recheck(args)
    except OSError as err:
        # A full or read-only output: one line, a red night
        print(f'nightly: RED: cannot write {err.filename}: {err.strerror}',
              file=sys.stderr, flush=True)
        return 1
    except IogapError as err:
        # a setting, profile or reference file the night cannot use
        print(f'nightly: RED: {err}', file=sys.stderr, flush=True)
        return 1


if __name__ == '__main__':
    sys.exit(main())
