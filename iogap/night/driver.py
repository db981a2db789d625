'''``iogap night``: run tonight's share into the history, compare it
with the mean of the last N days (ReFrame's own ``--performance-compare``:
``history.csv``, ``history.txt``) and judge it (tonight's bands, then the
series of nights), write the summary, ``night.env`` and the night's own
verdicts as suites of its JUnit report beside ReFrame's (the change points,
the effects, its coverage); exit 1 when red, 3 when it judged too little.'''

import csv
import os
import subprocess
import xml.etree.ElementTree as ET

from iogap.errors import IogapError
from iogap.history import load, resultsdb
from iogap.history.runguard import plain, replace_file
from iogap.judge import coverage, references, verdict
from iogap.night import planned
from iogap.night.tonight import ROOT, Aborted, Night, shown

#: ReFrame's CSV does not quote names that hold commas: ask for another
#: delimiter, then write proper CSV
_DELIM = '|'

_COLUMNS = ('change', 'tonight', 'before', 'nights', 'figure')

#: The statuses that fail and that skip a case of a suite (else these two)
STATUSES = {'changepoint': ('step', 'short'), 'effects': ('gone', 'short')}


def print_summary(night, title, lines):
    text = '\n'.join([f' iogap night: {title} '.center(78, '='), *lines,
                      '=' * 78]) + '\n'
    print(text, end='', flush=True)
    if night:
        replace_file(night.path('summary.txt'), text)


def add_suite(path, suite_name, cases, out=None):
    '''``cases`` (``(name, status, message)``) as a suite of the JUnit
    report at ``path``, failed and skipped as :data:`STATUSES` says;
    ``out`` its system-out.'''
    try:
        tree = ET.parse(path)
        root = tree.getroot()
    except (OSError, ET.ParseError):
        root = ET.Element('testsuites')
        tree = ET.ElementTree(root)
    fail, skip = STATUSES.get(suite_name, ('fail', 'skip'))
    suite = ET.SubElement(root, 'testsuite', name=suite_name,
                          tests=str(len(cases)), failures=str(sum(
                              s == fail for _, s, _ in cases)),
                          skipped=str(sum(s == skip for _, s, _ in cases)))
    for name, status, message in cases:
        case = ET.SubElement(suite, 'testcase', classname=suite_name,
                             name=name)
        if status == fail:
            ET.SubElement(case, 'failure', type=suite_name, message=message)
        elif status == skip:
            ET.SubElement(case, 'skipped', message=message)
    if out:
        ET.SubElement(suite, 'system-out').text = out
    tree.write(path, encoding='utf-8', xml_declaration=True)


def add_coverage(path, lines):
    '''The summary's ``COVERAGE`` line as a suite: failed when the night
    judged nothing or less than the site's minimum.'''
    said = [line for line in lines if line.startswith('COVERAGE:')]
    if not said:
        return
    short = [line for line in lines
             if line.startswith((coverage.NOTHING, coverage.UNDER))]
    add_suite(path, 'coverage', [
        ('figures judged', 'fail' if short else 'pass',
         short[0] if short else said[0])], out=said[0])


def spec(uuid, nights):
    '''Session ``uuid`` against the mean of the others of the last
    ``nights`` days, with its pass/fail and the past samples.'''
    return (f"{uuid}/now-{nights}d:now?uuid!='{uuid}'"
            f"/mean:/+result_L+psamples_R")


def table(rows, nights):
    '''The comparison as a plain table: % change first.'''
    lines = [(_shown(r.get('pdiff (%)'), '{:+.2f}%', 'new'),
              *(_shown(r.get(f'pval (mean) ({term})'),
                       '{:.4g} ' + r.get('punit', ''), '-')
                for term in ('tonight', 'before')),
              _shown(r.get('psamples (before)'), '{:.0f}', '0'),
              f'{r["name"]} @{r["sysenv"]}: {r["pvar"]}') for r in rows]
    widths = [max(len(c) for c in col) for col in zip(_COLUMNS, *lines)]
    out = [f'history: tonight against the mean of the last {nights} days '
           f'({len(rows)} figures)']
    for line in [_COLUMNS, *lines]:
        out.append('  '.join(c.rjust(w) if i < 4 else c
                             for i, (c, w) in enumerate(zip(line, widths))))
    return '\n'.join(out) + '\n'


def _shown(text, form, otherwise):
    '''A number of ReFrame's table in ``form``, or ``otherwise``.'''
    try:
        return form.format(float(text))
    except (TypeError, ValueError):
        return otherwise


def _history(night, uuid):
    '''The summary's line on tonight against the nights before, a
    diagnostic only: its failure hides no verdict.'''
    cmd = night.reframe('--performance-compare', spec(uuid, night.nights),
                        '--table-format=csv', f'--table-format-delim={_DELIM}',
                        '--term-lhs=tonight', '--term-rhs=before')
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=night.environ(), text=True,
                              capture_output=True)
        lines = proc.stdout.splitlines()
        if proc.returncode != 0 or not lines or _DELIM not in lines[0]:
            print(f'nightly: the history comparison failed (exit '
                  f'{proc.returncode}):\n{proc.stdout}{proc.stderr}')
            return [f'history {night.results_db}: no comparison (see above)']
        header, *body = [line.split(_DELIM) for line in lines]
        with open(night.path('history.csv'), 'w', newline='') as fp:
            csv.writer(fp).writerows([header, *body])
        text = table([dict(zip(header, row)) for row in body], night.nights)
        with open(night.path('history.txt'), 'w') as fp:
            fp.write(text)
        print(text, end='')
    except Exception as err:      # reported; the night is judged anyway
        print(f'nightly: no history comparison: {err!r}')
        return [f'history {night.results_db}: no comparison (see above)']
    return [f'history {night.results_db}: {len(body)} figures compared with '
            f'the last {night.nights} days '
            f'({shown(night.path("history.csv"))})']


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
    try:    # the history mended, its last good copy kept
        mended = resultsdb.mend(night.results_db)
        copy = resultsdb.keep_copy(night.results_db)
    except IogapError as err:
        print_summary(None, title, [f'RED: {err}'])
        return verdict.RED
    kept = ([f'history: {mended}'] if mended else []) + (
        [f'history {night.results_db}: sound; last good copy {copy}']
        if copy else [])
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
                add_suite(night.junit, suite, cases)
        add_coverage(night.junit, found)
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
