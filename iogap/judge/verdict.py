'''The night's verdict, from the run's own files only: the run report,
reframe's stdout (skip reasons, which the report does not keep) and the
reference file. Red when a case failed, a figure regressed, too many cases
skipped or a tool vanished; never GREEN when too little was judged.'''

import os
import re

import yaml

from iogap.errors import EXIT
from iogap.history import load
from iogap.history.runreport import final_cases
from iogap.judge import acrossnights, breakage, coverage, references
from iogap.judge.skips import NOT_APPLICABLE, split_skips

#: ``[     SKIP ] (2/5) <name> /<hash> @<sysenv> [<reason>]``
_SKIP = re.compile(r'^\[\s*SKIP\s*\] \(\d+/\d+\) (.+?) (?:/\w+ )?@(\S+) '
                   r'\[(.*)\]\s*$')
_ANSI = re.compile(r'\x1b\[[0-9;]*m')


def skip_reasons(stdout_path):
    '''``[(name, sysenv, reason)]`` of every case reframe skipped.'''
    if not stdout_path or not os.path.exists(stdout_path):
        return []
    with open(stdout_path, errors='replace') as fp:
        lines = [_ANSI.sub('', line) for line in fp]
    return [m.groups() for m in map(_SKIP.match, lines) if m]


def expected_skips(reference_path):
    '''The reference file's ``expected_skips``; ``None``: no such file.'''
    if not os.path.exists(reference_path):
        return None
    with open(reference_path) as fp:
        return (yaml.safe_load(fp) or {}).get('expected_skips') or 0


def regressions(cases):
    '''``[(case, figure, value, ref, lower, upper, unit)]`` out of bounds.'''
    found = []
    for tc in cases:
        for key, (value, ref, lower, upper, unit, result) in \
                sorted(tc.get('perfvalues', {}).items()):
            if result == 'fail':
                found.append((tc, key.rsplit(':', 1)[-1], value, ref, lower,
                              upper, unit))
    return found


def _bound(fraction):
    return 'none' if fraction is None else f'{fraction * 100:+g}%'


def _where(tc):
    return f'{tc["name"]} @{tc["system"]}:{tc["partition"]}'


#: A pass, a failure, too little judged
GREEN, RED, UNJUDGED = EXIT['ok'], EXIT['red'], EXIT['unjudged']


def judge(report_path, stdout_path, reference_path, returncode=0,
          share=False):
    '''``(lines, status)``: the summary of the night and its status; with
    ``share``, of a job's share of the night (what it ran).'''
    lines, red = [], []
    expected = expected_skips(reference_path)
    if expected is None:
        red.append(f'no reference file {reference_path}: nothing is judged')
        expected = 0
    if not report_path:
        red.append(f'reframe wrote no run report (exit {returncode}): the '
                   f'night did not run; see its output above')
        return lines + [f'RED: {r}' for r in red], RED
    try:
        report = load.read_report(report_path)
    except load.InputError as err:
        red.append(f'the run report is unusable: {err}')
        return lines + [f'RED: {r}' for r in red], RED
    return of_report(report, report_path, stdout_path, reference_path,
                     returncode, share, lines, red, expected)


def of_report(report, name, stdout_path, reference_path, returncode=0,
              share=False, lines=None, red=None, expected=None):
    ''':func:`judge` of a run report already read (``name`` says where
    it came from); a night split in jobs is judged whole from its
    sessions' runs joined in one report.'''
    lines, red = lines if lines is not None else [], red or []
    if expected is None:
        expected = expected_skips(reference_path)
        if expected is None:
            red.append(f'no reference file {reference_path}: nothing is '
                       f'judged')
            expected = 0
    try:
        return _judge(report, name, stdout_path, reference_path, expected,
                      returncode, lines, red, share)
    except (KeyError, IndexError, TypeError, ValueError) as err:
        red.append(f'the run report {name} is not one ReFrame wrote '
                   f'(no {err})')
        return lines + [f'RED: {r}' for r in red], RED


def across_nights(found, status, db, uuid, system):
    '''Tonight's verdict (``found`` lines, ``status``) with the series of
    nights of the history ``db`` up to session ``uuid``: a step change or
    a lost effect turns it red. ``(lines, status, step cases, effect
    cases)``; a series that cannot be judged is said and hides nothing.'''
    try:
        ref, said = breakage.reference(system)
        steps, stepped, step_cases = acrossnights.judge(db, uuid, ref)
        steps = said + steps
    except Exception as err:      # said; the bands still judge the night
        steps, stepped, step_cases = [f'change points: not judged: '
                                      f'{err!r}'], [], []
    try:
        gone, vanished, effect_cases = acrossnights.judge_effects(
            db, uuid, references.path_for(system))
    except Exception as err:      # said; the bands still judge the night
        gone, vanished, effect_cases = [f'effects: not judged: {err!r}'], \
            False, []
    red = bool(stepped) or vanished
    return with_series(found, steps + gone, red), RED if red else status, \
        step_cases, effect_cases


def with_series(found, said, red):
    '''Tonight's lines with the series' lines (``said``) before the
    verdict's last line, which ``red`` (a step, a lost effect) turns red.'''
    *lines, last = found
    if red and last.startswith('RED'):
        last = f'{last}; a step change across nights'
    elif red and last.startswith('GREEN'):
        last = ('RED: every case passed and every figure is within its '
                'reference, but the series of nights stepped or lost an '
                'effect (STEP, GONE above)')
    elif red:
        last = (f'RED: the series of nights stepped or lost an effect '
                f'(STEP, GONE above); {last}')
    return lines + said + [last]


def _judge(report, report_path, stdout_path, reference_path, expected,
           returncode, lines, red, share):
    cases = final_cases(report)
    info = report['session_info']
    lines.append(f'run report {report_path} (session {info.get("uuid")})')
    failed = _failures(cases, lines, red)
    skipped, na = _skips(report, stdout_path, reference_path, expected, lines,
                         red)
    if returncode and not red:
        red.append(f'reframe exited with {returncode}')
    lines.append(f'{len(cases)} cases: {len(failed)} failed, {len(skipped)} '
                 f'skipped (expected_skips: {expected}), {len(na)} not '
                 f'applicable on this host, the rest passed')
    short = _coverage(cases, reference_path, share, lines, red)
    if red:
        lines.append('RED: ' + '; '.join(red))
        return lines, RED
    if short:
        lines.append(f'{short[0]}: {short[1]}; no case failed, but this '
                     f'is not a pass')
        return lines, UNJUDGED
    lines.append('GREEN: every case passed, every figure within its '
                 'reference')
    return lines, GREEN


def _coverage(cases, reference_path, share, lines, red):
    '''Say what was judged; ``(status, why)`` when too little was.'''
    if not os.path.exists(reference_path):
        return None         # red already
    with open(reference_path) as fp:
        data = yaml.safe_load(fp) or {}
    found = coverage.measure(coverage.readings(cases), data, share)
    lines.append(found.line())
    try:
        return found.status(coverage.minimum(os.environ))
    except ValueError as err:
        red.append(str(err))
        return None


def _failures(cases, lines, red):
    '''Say each regressed figure and other failure; the failed cases.'''
    regressed = regressions(cases)
    for tc, figure, value, ref, lower, upper, unit in regressed:
        dev = f'{(value - ref) / ref * 100:+.2f}%' if ref else 'n/a'
        lines.append(f'REGRESSED {_where(tc)}: {figure} = {value:.6g} {unit}'
                     f', reference {ref:.6g} {unit} (bounds {_bound(lower)}'
                     f' / {_bound(upper)}), deviation {dev}')
    if regressed:
        red.append(f'{len(regressed)} regressed figure(s)')
    failed = [tc for tc in cases if tc['result'] == 'fail']
    judged = {id(r[0]) for r in regressed}
    broken = [tc for tc in failed if id(tc) not in judged]
    for tc in broken:
        reason = (tc.get('fail_reason') or '').strip().splitlines()
        lines.append(f'FAILED {_where(tc)} in {tc.get("fail_phase")}: '
                     f'{reason[0] if reason else "no reason given"}')
    if broken:
        red.append(f'{len(broken)} failed case(s)')
    return failed


def _skips(report, stdout_path, reference_path, expected, lines, red):
    '''Say each skip; ``(skipped, not applicable)``, the latter apart.'''
    na, _ = split_skips(report, reference_path if os.path.exists(
        reference_path) else {})
    skipped = [tc for tc in report['runs'][0]['testcases']
               if tc['result'] == 'skip' and tc not in na]
    reasons = skip_reasons(stdout_path)
    for name, sysenv, reason in reasons:
        tag = 'TOOL VANISHED' if 'not found' in reason else \
            'NOT APPLICABLE' if any(reason.startswith(NOT_APPLICABLE) and
                                    tc['display_name'] == name
                                    for tc in na) else 'SKIPPED'
        lines.append(f'{tag} {name} @{sysenv}: {reason}')
    vanished = [r for r in reasons if 'not found' in r[2]]
    if vanished:
        red.append(f'{len(vanished)} case(s) skipped because a tool was '
                   f'not found')
    if len(skipped) > expected:
        red.append(f'{len(skipped)} case(s) skipped, the reference file '
                   f'expects at most {expected}')
    return skipped, na
