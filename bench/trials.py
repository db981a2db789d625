'''The trials of bench/across.py, assembled from the real nights of
bench/nights.py: each figure's nights in the order they ran, a clean
history followed by nights of one slowdown, judged night by night by a
change-point detector and by the single-night band; false alarms on the
clean nights alone.'''

import statistics

from bench import detectors
from bench import nights as nightsmod
from iogap.core.figures import HIGHER
from iogap.judge import changepoint, noise

#: A trial is caught within n slowed nights: the n the tables give
WITHIN = (1, 3, 5)


def pools(out):
    """``{figure: [(slowdown, value)]}`` in the order the nights ran."""
    found = {}
    for _, _, rec in sorted(nightsmod.done(out),
                            key=lambda d: d[2]['finished']):
        for figure, value in rec['values'].items():
            found.setdefault(figure, []).append((rec['slowdown'], value))
    return found


def levels(nights):
    return sorted({lvl for lvl, _ in nights if lvl})


def clean_of(nights):
    return [v for lvl, v in nights if not lvl]


def band_flags(value, ref, tol, better):
    return value < ref * (1 - tol) if better == HIGHER else \
        value > ref * (1 + tol)


def false_alarms(clean, better, history, alarm=detectors.scipy_alarm):
    '''``(change-point alarm runs, nights judged, band flags, nights the
    band judged)``.'''
    runs, was, judged = 0, False, 0
    for t in range(changepoint.MIN_BEFORE + 1, len(clean) + 1):
        now = alarm(clean[:t], better, 0)
        runs += now and not was
        was, judged = now, judged + 1
    ref = statistics.median(clean[:history])
    tol, _ = noise.band(noise.spread(clean[:history]))
    tested = clean[history:]
    return runs, judged, sum(band_flags(v, ref, tol, better)
                             for v in tested), len(tested)


def sequences(nights, level, history, trials):
    """``[(clean history, slowed nights)]``: one per real night of
    ``level`` with ``history`` clean nights before it, at most ``trials``."""
    slowed = [i for i, (lvl, _) in enumerate(nights) if lvl == level]
    found = []
    for k, i in enumerate(slowed):
        base = [v for lvl, v in nights[:i] if not lvl][-history:]
        if len(base) == history:
            found.append((base, [nights[slowed[(k + j) % len(slowed)]][1]
                                 for j in range(max(WITHIN))]))
    return found[:trials]


def detection(nights, level, better, history, trials,
              alarm=detectors.scipy_alarm):
    """``({n: [change-point caught, band caught]}, trials)``."""
    caught = {n: [0, 0] for n in WITHIN}
    runs = sequences(nights, level, history, trials)
    for base, after in runs:
        ref = statistics.median(base)
        tol, _ = noise.band(noise.spread(base))
        first_cp = next((m for m in range(1, len(after) + 1)
                         if alarm(base + after[:m], better, len(base))),
                        None)
        first_band = next((m for m in range(1, len(after) + 1)
                           if band_flags(after[m - 1], ref, tol, better)),
                          None)
        for n in WITHIN:
            caught[n][0] += first_cp is not None and first_cp <= n
            caught[n][1] += first_band is not None and first_band <= n
    return caught, len(runs)
