'''Where to look, by simulation: the change-point rules of
bench/quietjudge.py on simulated nights (log-normal, independent or
AR(1)), with the protocol of the real bench: a trial is ``history`` clean
nights then nights slowed by a level, caught within n nights when a step
starting in the slowed part is reported by the n-th slowed night; false
alarms are clean series judged night by night from ``history`` on, each
run of alarmed nights once, per 30 nights judged.

    python bench/rulesim.py --spread 0.04 --level 10 --within 3 \\
        [--rho 0.3] [--rules former,library] [--trials 200] [--series 20]

Simulated nights say where to look; the verdict is the bench's real
nights (bench/quiet.py).
'''

import argparse
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from bench.quietjudge import RULES, counts, first_caught
from iogap.core.figures import HIGHER


def nights(rng, count, spread, rho=0.0):
    '''Log values: AR(1) ``rho`` (0: independent), marginal SD ``spread``.'''
    u = np.empty(count)
    u[0] = rng.standard_normal()
    for t in range(1, count):
        u[t] = rho * u[t - 1] + math.sqrt(1 - rho ** 2) * rng.standard_normal()
    return spread * u


def simulate(rule, spread, rho, level, within, trials, series, history=65,
             judged=30, seed=50):
    rng = np.random.default_rng(seed)
    found = []
    for _ in range(trials):
        logs = nights(rng, history + within, spread, rho)
        logs[history:] += math.log1p(-level / 100)
        values = list(np.exp(logs))
        found.append(first_caught(rule, values[:history],
                                  values[history:]))
    runs = total = 0
    for _ in range(series):
        values = list(np.exp(nights(rng, history + judged, spread, rho)))
        was = False
        for t in range(history + 1, history + judged + 1):
            now = rule(values[:t], HIGHER, None) is not None
            runs += now and not was
            was, total = now, total + 1
    return counts(found, within), 30 * runs / total, runs, total


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--spread', type=float, required=True)
    parser.add_argument('--rho', type=float, default=0.0)
    parser.add_argument('--level', type=float, required=True)
    parser.add_argument('--within', type=int, default=3)
    parser.add_argument('--rules', default='former,library')
    parser.add_argument('--trials', type=int, default=200)
    parser.add_argument('--series', type=int, default=20)
    parser.add_argument('--seed', type=int, default=50)
    args = parser.parse_args(argv)
    print('| spread | AR(1) | level | rule | caught within 1..n nights, of '
          'the trials: start on a slowed night; dated within a night | '
          'false alarms / 30 nights |')
    print('|---|---|---|---|---|---|')
    for name in args.rules.split(','):
        caught, rate, runs, total = simulate(
            RULES[name], args.spread, args.rho, args.level, args.within,
            args.trials, args.series, seed=args.seed)
        print(f'| {args.spread:.1%} | {args.rho:g} | {args.level:g} % | '
              f'{name} | ' + ' / '.join(map(str, caught['strict'])) + '; ' +
              ' / '.join(map(str, caught['dated'])) +
              f' ({args.trials}) | {rate:.2f} ({runs} in {total}) |',
              flush=True)


if __name__ == '__main__':
    main()
