'''``iogap night``: run tonight's share into the history, compare and
judge it (tonight's bands, then the series of nights), write the summary
and ``night.env``; exit 1 when red, 3 when it judged too little.'''

import os

from iogap.errors import IogapError
from iogap.history import load, resultsdb
from iogap.history.runguard import plain, replace_file
from iogap.judge import references, verdict
from iogap.night import compare, junit, planned
from iogap.night.tonight import Aborted, Night, shown


def print_summary(night, title, lines):
    text = '\n'.join([f' iogap night: {title} '.center(78, '='), *lines,
                      '=' * 78]) + '\n'
    print(text, end='', flush=True)
    if night:
        replace_file(night.path('summary.txt'), text)


def _history(night, uuid):
    '''The summary's line on tonight against the nights before, a
    diagnostic only: its failure hides no verdict.'''
    try:
        rows = compare.compare(night, uuid)
    except Exception as err:      # reported; the night is judged anyway
        print(f'nightly: no history comparison: {err!r}')
        rows = None
    if rows is None:
        return [f'history {night.results_db}: no comparison (see above)']
    return [f'history {night.results_db}: {len(rows)} figures compared with '
            f'the last {night.nights} days '
            f'({shown(night.path("history.csv"))})']


def _guard_history(night):
    '''Mend the history, keep its last good copy; the summary's lines.'''
    mended = resultsdb.mend(night.results_db)
    copy = resultsdb.keep_copy(night.results_db)
    return ([f'history: {mended}'] if mended else []) + (
        [f'history {night.results_db}: sound; last good copy {copy}']
        if copy else [])


def _stored(night, uuid):
    '''The red line when tonight's session is not in the history.'''
    why = resultsdb.stored(night.results_db, uuid)
    try:
        if why is None:
            resultsdb.keep_copy(night.results_db)
            return []
        resultsdb.check(night.results_db)   # sound: never to be replaced
        damaged = ''
    except IogapError as err:
        if why is None:
            return [f'RED: {err}']
        damaged = f'; {err}'
    warned = [plain(line) for line in open(night.stdout, errors='replace')
              if 'failed to store results' in line][:1]
    return [f'RED: tonight was not stored in the history: {why}'
            f'{" (reframe: " + warned[0] + ")" if warned else ""}{damaged}']


def suite():
    night = Night(os.environ)
    system = night.locate()
    night.take()
    print(f'nightly: system {system}, history database {night.results_db}',
          flush=True)
    title = f'{system}, pipeline {night.extras["pipeline"]}, ' \
            f'commit {night.extras["commit"][:12]}'
    try:
        return _suite(night, system, title)
    except Aborted as stop:
        print_summary(night, title, [night.aborted(stop)])
        return verdict.RED


def _suite(night, system, title):
    try:
        kept = _guard_history(night)
    except IogapError as err:
        print_summary(None, title, [f'RED: {err}'])
        return verdict.RED
    returncode, report = night.run(*planned.tonight(night, os.environ))
    night.hand_over(report)
    found, status = verdict.judge(report and shown(report), night.stdout,
                                  references.path_for(system), returncode,
                                  share=bool(night.job))
    try:
        uuid = report and load.read_report(report)['session_info']['uuid']
    except (load.InputError, KeyError, TypeError) as err:
        found, status, uuid = found + [f'RED: tonight\'s session cannot be '
                                       f'found: {err}'], verdict.RED, None
    unstored = _stored(night, uuid) if uuid else []
    if unstored:    # the verdict's last line is not the night's
        found, status = found[:-1] if status != verdict.RED else found, \
            verdict.RED
    if uuid:        # the series of nights, beside tonight's bands
        kept += _history(night, uuid)
        found, status, steps, effects = verdict.across_nights(
            found, status, night.results_db, uuid, system)
        for suite, cases in (('changepoint', steps), ('effects', effects)):
            if cases:
                junit.add_suite(night.junit, suite, cases)
        junit.add_coverage(night.junit, found)
    print_summary(night, title, kept + found + unstored)
    return status


def recheck(report, stdout=None):
    '''``iogap verdict``: judge a run again from its files.'''
    try:
        case = load.read_report(report)['runs'][0]['testcases'][0]
        system = case['system'].split(':')[0]
    except (IndexError, KeyError, TypeError):
        raise load.InputError(f'{report} holds no test case: nothing was '
                              f'judged') from None
    lines, status = verdict.judge(report, stdout,
                                  references.path_for(system))
    print_summary(None, case['system'], lines)
    return status
