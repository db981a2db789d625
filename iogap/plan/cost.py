'''The cost of a case before it runs: nodes, bytes written, wall time (the
median of its last runs, else a first night's estimate from its geometry).
Each family package states its model in ``<package>/cost.py``:
``geometry(case)``; optional ``estimate(case)``, ``BANDWIDTH``,
``control_bytes(case)``, ``CONTROL_BANDWIDTH``, ``SAID``.'''

import copy
import functools
import importlib
import statistics

from iogap.core import registry
from iogap.errors import IogapError
from iogap.history.jobtimes import measured, nights_ran  # noqa: F401
from iogap.judge import references

#: Runs of a case whose median is its measured wall time
LAST_RUNS = 3


@functools.lru_cache(maxsize=None)
def models():
    '''``{package: its cost module}`` of every family package.'''
    found = {}
    for name in registry.packages():
        try:
            found[name] = importlib.import_module(f'{name}.cost')
        except ModuleNotFoundError as err:
            if err.name != f'{name}.cost':
                raise
            raise IogapError(f'{name} states no cost model: add '
                             f'{name.replace(".", "/")}/cost.py with '
                             f'geometry(case) (see iogap.plan.cost)') from None
    return found


def model(case):
    '''The cost module of the package that holds the case's family.'''
    return models()[registry.get(case.family).__module__.rpartition('.')[0]]


def geometry(case):
    '''``(nodes, tasks, bytes written, bytes moved)`` of a case.'''
    return model(case).geometry(case)


def reference_bandwidth(case, attr='BANDWIDTH'):
    '''Bytes/s the most specific absolute reference of the model's figure
    ``attr`` expects of the case, or ``None``.'''
    ref = references.current()
    figure = getattr(model(case), attr, None)
    found = [e for e in (ref.data['absolute'] if ref else [])
             if (e['test'], e['partition'], e['var']) ==
             (case.family, case.partition, figure) and all(
                 case.params.get(k) == v for k, v in
                 (e.get('params') or {}).items())]
    if not found:
        return None
    best = max(found, key=lambda e: len(e.get('params') or {}))
    scale = 2**20 if best['unit'].startswith('MiB') else 1e6
    return best['ref'][0] * scale


def estimate(case):
    '''Expected wall seconds of a case that never ran, and how.'''
    own = getattr(model(case), 'estimate', None)
    found = own(case) if own else None
    if found is not None:
        return found
    nodes, _, _, moved = geometry(case)
    x = case.part.extras
    bw = reference_bandwidth(case)
    how = 'estimate: bytes / reference bandwidth' if bw else \
        f'estimate: bytes / {x["plan_node_bandwidth"] / 1e6:.0f} MB/s per node'
    bw = bw or x['plan_node_bandwidth'] * nodes
    seconds = x['plan_start_seconds'] + moved / bw
    control = getattr(model(case), 'control_bytes', None)
    if control:
        rate = reference_bandwidth(case, 'CONTROL_BANDWIDTH') or \
            x['plan_memory_bandwidth']
        seconds += control(case) / rate
        how += f' + control at {rate / 1e6:.0f} MB/s'
    return seconds, how


class Cost:
    '''A case's nodes, bytes written and expected wall seconds: its own
    runs' median, else its estimate times ``factor`` (:func:`calibration`).'''

    def __init__(self, case, history, factor=None):
        self.case = case
        self.nodes, self.tasks, self.written, _ = geometry(case)
        runs = history.get(case.history_key, [])[-LAST_RUNS:]
        if runs:
            self.seconds = statistics.median(runs)
            self.how = f'measured: median of {len(runs)} run(s)'
        else:
            self.seconds, self.how = estimate(case)
        if factor and not runs:
            self.seconds *= factor[0]
            self.how += (f', x {factor[0]:.2g} as measured over estimated '
                         f'on {factor[1]} case(s) that ran')

    @property
    def node_hours(self):
        return self.nodes * self.seconds / 3600


def calibration(cases, history):
    '''``{(family, partition): (factor, cases)}``: the median of measured
    over estimated seconds of the family's ``cases`` that ran there, for
    those that never did (estimates run 3-5 times long on a small host).'''
    found = {}
    for case in cases.values():
        runs = history.get(case.history_key, [])[-LAST_RUNS:]
        if runs:
            found.setdefault((case.family, case.partition), []).append(
                statistics.median(runs) / estimate(case)[0])
    return {k: (statistics.median(v), len(v)) for k, v in found.items()}


def costs(cases, db_path=None, system=None, extras=None, history=None):
    '''``{key: Cost}`` of ``cases`` (``{key: Case}``), with other
    ``extras`` if given; runs from ``history`` or the database.'''
    history = history or (measured(db_path, system) if db_path else {})
    factors = calibration(cases, history)
    return {key: Cost(_with(case, extras), history, factors.get(
        (case.family, case.partition))) for key, case in cases.items()}


def resized(cases, extras, history=None):
    '''Estimated ``{key: Cost}`` of ``cases`` with other ``extras``,
    calibrated on the ``history`` of runs at their own.'''
    factors = calibration(cases, history or {})
    return {key: Cost(_with(case, extras), {}, factors.get(
        (case.family, case.partition))) for key, case in cases.items()}


def _with(case, extras):
    if not extras:
        return case
    case = copy.copy(case)
    case.part = copy.copy(case.part)
    case.part.extras = {**case.part.extras, **extras}
    return case


def totals(costs):
    '''``{partition: [cases, nodes·hours, seconds, bytes written]}``.'''
    out = {}
    for cost in costs.values():
        row = out.setdefault(cost.case.partition, [0, 0.0, 0.0, 0])
        row[0] += 1
        row[1] += cost.node_hours
        row[2] += cost.seconds
        row[3] += cost.written
    return out


def pairings(costs, ratios):
    '''``[(ratio, separate, het)]``: node-hours of each ratio across
    partitions (``ratios``: entries), its two cases as two jobs, and as
    one heterogeneous job holding both allocations while the sides
    alternate (each idle while the other runs), its cost of closeness.'''
    by = {(c.case.family, c.case.partition, k): c for k, c in costs.items()}
    out = []
    for entry in ratios:
        sides = [entry.get(s) for s in ('numerator', 'denominator')]
        if None in sides or sides[0]['partition'] == sides[1]['partition']:
            continue
        found = [next((c for (f, p, _), c in by.items() if (f, p) == (
            s['test'], s['partition']) and all(
                c.case.params.get(k) == v for k, v in
                (s.get('params') or {}).items())), None) for s in sides]
        if None in found:
            continue
        nodes = sum(c.nodes for c in found)
        seconds = sum(c.seconds for c in found)
        out.append((entry['name'], sum(c.node_hours for c in found),
                    nodes * seconds / 3600))
    return out
