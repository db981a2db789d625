'''The change-point detectors the benchmark compares on the same real
nights: ``alarm(values, better, start_from)`` says whether a regression
step starting at or after index ``start_from`` is reported among the
last ``changepoint.WINDOW`` nights, each at the same family-wise
false-alarm rate per night (``changepoint.ALPHA``) where the method has
one.

- ``scipy``: iogap.judge.changepoint (Student's t-test on the logs over the
  recent candidate starts, its threshold calibrated on the figure's clean
  nights once there are enough), the one the suite uses;
- ``bonferroni``: the same test with the conservative threshold always
  (Bonferroni over the candidates at ``ALPHA``), the rule before the
  calibration;
- ``otava``: apache-otava's E-divisive means with its t-test
  (``compute_change_points``, max_pvalue = ALPHA), as Otava/Hunter runs it;
- ``ruptures``: PELT on the logs with the l2 cost and a BIC penalty
  (2 log n sigma^2, sigma from the median absolute night-to-night
  difference): no significance level of its own.
'''

import math

from iogap.core.figures import HIGHER
from iogap.judge import changepoint


def scipy_alarm(values, better, start_from):
    step, _ = changepoint.recent_step(values, better)
    return step is not None and step.start >= start_from


def bonferroni_alarm(values, better, start_from):
    step, _ = changepoint.recent_step(values, better, calibrated=False)
    return step is not None and step.start >= start_from


def _recent(index, n, start_from):
    return index >= max(start_from, n - changepoint.WINDOW)


def _worse(before, after, better):
    return after < before if better == HIGHER else after > before


def otava_alarm(values, better, start_from):
    from otava.analysis import compute_change_points
    if len(values) < changepoint.MIN_BEFORE + 1:
        return False
    found, _ = compute_change_points(list(values), window_len=50,
                                     max_pvalue=changepoint.ALPHA)
    return any(_recent(c.index, len(values), start_from) and
               _worse(c.stats.mean_1, c.stats.mean_2, better)
               for c in found)


def ruptures_alarm(values, better, start_from):
    import numpy as np
    import ruptures
    if len(values) < changepoint.MIN_BEFORE + 1:
        return False
    logs = np.log(np.asarray(values, float))
    sigma = 1.4826 * np.median(np.abs(np.diff(logs))) / math.sqrt(2)
    if sigma == 0:
        return False
    ends = ruptures.Pelt(model='l2', min_size=1, jump=1).fit(logs).predict(
        pen=2 * math.log(len(logs)) * sigma ** 2)
    starts = [0] + ends[:-1]
    for (s0, e0), (s1, e1) in zip(zip(starts, ends), zip(ends, ends[1:])):
        if _recent(s1, len(logs), start_from) and _worse(
                logs[s0:e0].mean(), logs[s1:e1].mean(), better):
            return True
    return False


DETECTORS = {'scipy': scipy_alarm, 'bonferroni': bonferroni_alarm,
             'otava': otava_alarm,
             'ruptures': ruptures_alarm}


def available():
    '''``{name: alarm}`` of the detectors whose library is installed.'''
    import importlib.util
    need = {'scipy': 'scipy', 'bonferroni': 'scipy', 'otava': 'otava',
            'ruptures': 'ruptures'}
    return {name: fn for name, fn in DETECTORS.items()
            if importlib.util.find_spec(need[name])}
