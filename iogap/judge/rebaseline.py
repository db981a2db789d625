'''Write or update ``reference/<system>.yaml`` from a ReFrame run report.

    python -m iogap.rebaseline output/reports/run-report-<id>.json [--dry-run]

Each measurement becomes an absolute entry (median over the runs in
the report), each ratio check updates its ratio's value. Tolerances come from
the spread observed (3 CV, between 25% and 90%: one run's CV understates
the night-to-night spread), one-sided for bandwidths
and rates (a lower bound) and latencies (an upper bound). Entries whose
provenance does not start with ``baseline`` were set by hand and are kept
unless ``--force``. The diff of the file is printed; the new file is
validated before it is written.
'''

import argparse
import datetime
import difflib
import json
import os
import socket
import statistics
import sys

import yaml

from iogap import references, registry
from iogap.errors import IogapError

_STAT_SUFFIXES = ('_min', '_max', '_cv')

#: Narrowest tolerance a baseline gets, whatever the spread it saw
MIN_TOLERANCE = 0.25
_HIGHER_IS_BETTER = ('MB/s', 'MiB/s', 'GB/s', 'ops/s')
_LOWER_IS_BETTER = ('us', 's')


def tolerance(unit, rel_spread):
    tol = round(min(max(3 * rel_spread, MIN_TOLERANCE), 0.90), 3)
    if unit in _HIGHER_IS_BETTER:
        return -tol, None
    if unit in _LOWER_IS_BETTER:
        return None, tol

    return -tol, tol


def _spread(values, within_cv=None):
    cvs = [within_cv / 100] if within_cv else []
    if len(values) > 2 and statistics.fmean(values):
        cvs.append(statistics.stdev(values) / abs(statistics.fmean(values)))
    return max(cvs, default=0.0)


def collect(report):
    '''``{(family, partition, params, var): (values, unit, cvs)}`` and
    ``{ratio name: values}`` from the test cases of ``report`` that measured
    (passed, or failed only their performance references).'''
    absolute, ratios = {}, {}
    for run in report['runs']:
        for tc in run['testcases']:
            # A figure that missed its old reference is still a measurement
            valid = (tc['result'] == 'pass' or
                     tc.get('fail_phase') == 'performance')
            if not valid or not tc.get('perfvalues'):
                continue

            cls = tc['unique_name'].rsplit('_', 1)[0]
            family = registry.family(cls)
            for key, (value, *_, unit, _result) in tc['perfvalues'].items():
                var = key.rsplit(':', 1)[1]
                if cls == 'RatioCheck':
                    ratios.setdefault(var, []).append(value)
                elif family and not var.endswith(_STAT_SUFFIXES):
                    params = {p: tc[p] for p in family.param_space.params}
                    cv = tc['perfvalues'].get(f'{key}_cv', [None])[0]
                    ident = (cls, tc['partition'],
                             json.dumps(params, sort_keys=True), var)
                    values, _, cvs = absolute.setdefault(ident,
                                                         ([], unit, []))
                    values.append(value)
                    cvs += [cv] if cv is not None else []

    return absolute, ratios


def rebaseline(report, data, stamp, force=False, only='all'):
    '''Update ``data`` (a loaded reference file) in place; return notes.'''
    notes, unspread = [], 0
    measured, ratio_values = collect(report)
    entries = data.get('absolute') or []
    index = {(e['test'], e['partition'],
              json.dumps(e.get('params') or {}, sort_keys=True), e['var']): e
             for e in entries}
    for ident, (values, unit, cvs) in sorted(measured.items()):
        if only == 'ratios':
            break
        if not cvs and len(values) < 3:
            unspread += 1       # no spread seen: no honest tolerance
            continue

        median = round(statistics.median(values), 6)
        lower, upper = tolerance(unit, _spread(values, max(cvs, default=0)))
        new = {'test': ident[0], 'partition': ident[1],
               'params': json.loads(ident[2]), 'var': ident[3],
               'ref': [median, lower, upper], 'unit': unit,
               'provenance': stamp}
        old = index.get(ident)
        if old is None:
            entries.append(new)
        elif _hand_set(old) and not force:
            notes.append(f'kept hand-set {ident[0]} {ident[1]} {ident[3]} '
                         f'(--force replaces it)')
        else:
            old.update(ref=new['ref'], unit=unit, provenance=stamp)

    if entries:
        data['absolute'] = entries
    if unspread:
        notes.append(f'left {unspread} figure(s) without a reference: no '
                     f'spread observed (run with --repeat 3)')

    for entry in data.get('ratios') or []:
        values = ratio_values.get(entry['name'])
        if not values or only == 'absolute':
            continue
        if _hand_set(entry) and not force:
            notes.append(f'kept hand-set ratio {entry["name"]} (--force '
                         f'replaces it)')
            continue

        # A quotient is as noisy as its two parts together
        parts = [measured.get(_ident(entry[side]), (0, 0, []))[2]
                 for side in ('numerator', 'denominator')]
        within = sum(max(cvs, default=0)**2 for cvs in parts)**0.5
        lower, upper = tolerance(entry['unit'],
                                 _spread(values, within or None))
        entry.update(ref=[round(statistics.median(values), 6), lower, upper],
                     provenance=stamp)

    return notes


def _ident(side):
    family = registry.family(side['test'])
    params = registry.full_params(family, side.get('params') or {})
    return (side['test'], side['partition'],
            json.dumps(params, sort_keys=True), side['var'])


def _hand_set(entry):
    return not str(entry.get('provenance', '')).startswith('baseline')


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='python -m iogap.rebaseline',
        description='Update reference/<system>.yaml from a run report')
    parser.add_argument('report', help='ReFrame JSON run report')
    parser.add_argument('--dry-run', action='store_true',
                        help='print the diff, write nothing')
    parser.add_argument('--force', action='store_true',
                        help='also replace hand-set references')
    parser.add_argument('--only', choices=['all', 'absolute', 'ratios'],
                        default='all', help='which references to update')
    args = parser.parse_args(argv)
    try:
        with open(args.report) as fp:
            report = json.load(fp)
        cases = [tc for run in report['runs'] for tc in run['testcases']]
        system = cases[0]['system'].split(':')[0]
    except (OSError, ValueError, KeyError, IndexError) as err:
        sys.exit(f'rebaseline: {args.report} is not a ReFrame run report '
                 f'with test cases: {err}')

    path = references.path_for(system)
    old_text = open(path).read() if os.path.exists(path) else ''
    header = ''.join(line for line in old_text.splitlines(True)
                     if line.startswith('#'))
    data = yaml.safe_load(old_text) or {'system': system}
    stamp = (f'baseline {datetime.date.today()} host={socket.gethostname()} '
             f'run={report["session_info"].get("uuid", "?")}')
    notes = rebaseline(report, data, stamp, force=args.force,
                       only=args.only)
    new_text = header + yaml.safe_dump(data, sort_keys=False, width=100,
                                      default_flow_style=None)
    partitions = sorted({tc['partition'] for tc in cases} |
                        {e['partition'] for e in data.get('absolute', [])})
    try:
        references.validate_text(path, new_text, partitions)
    except IogapError as err:
        sys.exit(f'rebaseline: the result would not load: {err}')

    sys.stdout.writelines(difflib.unified_diff(
        old_text.splitlines(True), new_text.splitlines(True),
        f'{path} (before)', f'{path} (after)'))
    for note in notes:
        print(f'rebaseline: {note}')
    if not args.dry_run:
        with open(path, 'w') as fp:
            fp.write(new_text)
        print(f'rebaseline: wrote {path}')


if __name__ == '__main__':
    main()
