'''Re-baselining: references for every figure a system measures, from runs
that show real spread (``--repeat N``, several nights, or both): ``K_SIGMA``
spreads on the side that is a regression; a figure whose band would exceed
``MAX_TOLERANCE`` goes to ``unjudged`` instead. Fits are left alone.'''

import json
import math
import statistics

from iogap.core import registry
from iogap.core.figures import HIGHER, LOWER
from iogap.judge.samples import samples

#: Band half-width in spreads: the audit's budget, 1 % of healthy nights
#: (one-sided z 2.33), at its stress of 1.5x the noise: 2.33 x 1.5 = 3.5
K_SIGMA = 3.5

#: z of the 90th percentile: a drop of band + Z90 sigma is caught 9 in 10
Z90 = 1.2816
#: Narrowest band: one session's runs miss the night-to-night drift, up to
#: ~10 % on a quiet VM (bench/detection.py)
MIN_TOLERANCE = 0.10
#: Widest band that still guards something
MAX_TOLERANCE = 0.5
#: Fewest runs whose spread is trusted
MIN_RUNS = 3

#: sqrt((n-1) / chi2_0.2(n-1)): from an estimated standard deviation to its
#: upper 80 % bound, for n = 2..10 runs
_FEW_RUNS = {2: 3.85, 3: 2.12, 4: 1.74, 5: 1.56, 6: 1.46, 7: 1.39, 8: 1.34,
             9: 1.31, 10: 1.29}

#: Runs from which the spread is its estimate, not raised: the robust CV
#: of 30 is within ~20 % of the true spread (relative s.e. 1.17 / sqrt(n))
ENOUGH_RUNS = 30


def spread(values):
    '''Relative spread of ``values`` (1.4826 MAD / median from 8 on), raised
    to its upper 80 % bound below ``ENOUGH_RUNS`` values.'''
    median = statistics.median(values)
    if median == 0:
        return float('inf')
    if len(values) >= 8:
        cv = 1.4826 * statistics.median(abs(v - median) for v in values) / \
            abs(median)
    else:
        cv = statistics.stdev(values) / abs(statistics.fmean(values))
    if len(values) >= ENOUGH_RUNS:
        return cv
    return cv * _FEW_RUNS.get(len(values), 1.2)


def band(cv, upper=False):
    '''``(tolerance, detects)`` for a figure of relative spread ``cv``;
    above the reference (``upper``) log-normal noise reaches further.'''
    if upper:
        # rounded up: rounded down, the band would spend over the budget
        tol = math.ceil(max(math.expm1(K_SIGMA * cv), MIN_TOLERANCE) * 1e3)
        tol /= 1e3
        return tol, round(tol + math.expm1(Z90 * cv) * (1 + tol), 3)
    tol = max(K_SIGMA * cv, MIN_TOLERANCE)
    return round(tol, 3), round(tol + Z90 * cv, 3)


def _sides(better, tol):
    return [-tol, None] if better == HIGHER else \
        [None, tol] if better == LOWER else [-tol, tol]


def rebaseline(data, reports, stamp, force=False):
    '''Update ``data`` (a reference file's mapping) in place; notes saying
    what was kept, added, changed and left unjudged.'''
    notes = []
    cases, judged = samples(reports)
    unspread, unjudged = _absolute(data, cases, stamp, force, notes)
    for entry in data.get('fits') or []:
        notes.append(f'{entry["name"]}: a fit is a test over the sweep, its '
                     f'bound set from its noise (docs/reference/audit.md): '
                     f'left as it is')
    _ratios(data, judged, stamp, force, notes)
    if unspread:
        notes.append(f'{unspread} figure(s) left alone: fewer than '
                     f'{MIN_RUNS} runs and no in-job spread (run with '
                     f'--repeat {MIN_RUNS} or more)')
    if unjudged:
        data['unjudged'] = unjudged
        notes.append(f'{len(unjudged)} figure(s) too noisy to judge, listed '
                     f'under unjudged')
    return notes


def _absolute(data, cases, stamp, force, notes):
    '''Absolute entries from the cases' runs; ``(unspread, unjudged)``.'''
    unspread, unjudged = 0, []
    absolute = {(e['test'], e['partition'],
                 json.dumps(e.get('params') or {}, sort_keys=True),
                 e['var']): e for e in data.setdefault('absolute', [])}
    for ident, (values, unit, cvs) in sorted(cases.items()):
        family, part, params, var = ident
        if len(values) < MIN_RUNS and not cvs:
            unspread += 1
            continue
        # a job's spread over its repetitions is one repetition's, not that
        # of the figure (their median): the spread over runs when enough
        cv = spread(values) if len(values) >= MIN_RUNS else max(cvs)
        fig = registry.get(family).figures.find(var)
        tol, detects = band(cv, upper=fig.better != HIGHER)
        old = absolute.get(ident)
        case = {'test': family, 'partition': part,
                'params': json.loads(params), 'var': var}
        if tol > MAX_TOLERANCE:
            unjudged.append({**case, 'reason': f'too noisy to judge: spread '
                             f'{cv:.0%} over {len(values)} run(s) ({stamp})'})
            if old is not None and (force or _baseline(old)):
                data['absolute'].remove(old)
            continue
        new = {**case, 'ref': [_round(statistics.median(values)),
                               *_sides(fig.better, tol)],
               'unit': unit, 'provenance': stamp,
               'noise': {'cv': round(cv, 4), 'runs': len(values),
                         'detects': detects}}
        if old is None:
            data['absolute'].append(new)
        elif force or _baseline(old):
            old.clear()
            old.update(new)
        else:
            notes.append(f'kept hand-set {family} {part} {var} (--force '
                         f'replaces it)')
    return unspread, unjudged


def _ratios(data, judged, stamp, force, notes):
    '''Ratio entries from the RatioCheck values of the runs.'''
    for entry in data.get('ratios') or []:
        values = judged.get(f'RatioCheck %ratio={entry["name"]}')
        if not values or len(values) < MIN_RUNS:
            notes.append(f'{entry["name"]}: fewer than {MIN_RUNS} '
                         f'values in the report(s): left as it is')
            continue
        if not (force or _baseline(entry)):
            notes.append(f'kept hand-set {entry["name"]} (--force '
                         f'replaces it)')
            continue
        cv = spread(values)
        lower, upper = entry['ref'][1:]
        tol, detects = band(cv, upper=upper is not None)
        entry['ref'] = [_round(statistics.median(values)),
                        None if lower is None else -min(tol, 1.0),
                        None if upper is None else tol]
        entry['provenance'] = stamp
        entry['noise'] = {'cv': round(cv, 4), 'runs': len(values),
                          'detects': detects}


def _baseline(entry):
    return str(entry.get('provenance', '')).startswith('baseline')


def _round(value):
    return float(f'{value:.4g}')
