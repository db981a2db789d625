'''The cost of a case before it runs: nodes, bytes written, wall time.

The wall time is measured where the case ran before: the median of its
last runs in the results database (:mod:`iogap.history.jobtimes` reads it),
each from the job's submission to its completion. Otherwise it is
estimated from the case's geometry: the bytes it moves over the
bandwidth its partition's references give (the most specific absolute
``write_bw`` entry of the same family, else the partition's
``plan_node_bandwidth`` per node), plus its ``plan_start_seconds`` for
start-up, probes and calibration (site data, defaults in the schema).
The estimate is only a first night's guess; every run replaces it.

Each family package states its own cost model, ``iogap/<package>/cost.py``
(found through the registry of family packages):

- ``geometry(case)``: ``(nodes, tasks, bytes written, bytes moved)``;
- ``estimate(case)`` (optional): ``(wall seconds, how)``, or ``None``
  for the bytes it moves over the bandwidth found here;
- ``BANDWIDTH`` (optional): the figure whose absolute references give
  that bandwidth;
- ``control_bytes(case)`` (optional): bytes the case's control steps move
  beside its I/O (dd's memory copies), added to the estimate at the
  bandwidth of ``CONTROL_BANDWIDTH``'s absolute references, else the
  partition's ``plan_memory_bandwidth``;
- ``SAID`` (optional): ``{extras key: whose}`` of the partition's extras
  its estimate takes, for docs/budget.md.
'''

import copy
import functools
import importlib
import statistics

from iogap.core import registry
from iogap.errors import IogapError
from iogap.history.jobtimes import measured, nights_ran
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
    '''``(nodes, tasks, bytes written, bytes moved)`` of a measured case,
    from its parameters and its partition's extras (its family's model).'''
    return model(case).geometry(case)


def reference_bandwidth(case, attr='BANDWIDTH'):
    '''Bytes/s the references expect of the case's writes (the figure its
    family's model names in ``attr``), or ``None``.'''
    ref = references.current()
    figure = getattr(model(case), attr, None)
    best = None
    for entry in (ref.data['absolute'] if ref else []):
        given = entry.get('params') or {}
        if entry['test'] != case.family or entry['partition'] != \
                case.partition or entry['var'] != figure or \
                any(case.params.get(k) != v for k, v in given.items()):
            continue
        if best is None or len(given) > len(best.get('params') or {}):
            best = entry
    if best is None:
        return None
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
    '''A case's nodes, bytes written and expected wall seconds.'''

    def __init__(self, case, history):
        self.case = case
        self.nodes, self.tasks, self.written, _ = geometry(case)
        runs = history.get(case.history_key, [])[-LAST_RUNS:]
        if runs:
            self.seconds = statistics.median(runs)
            self.how = f'measured: median of {len(runs)} run(s)'
        else:
            self.seconds, self.how = estimate(case)

    @property
    def node_hours(self):
        return self.nodes * self.seconds / 3600


def costs(cases, db_path=None, system=None):
    '''``{key: Cost}`` of ``cases`` (``{key: Case}``).'''
    history = measured(db_path, system) if db_path else {}
    return {key: Cost(case, history) for key, case in cases.items()}


def resized(cases, extras):
    '''``{key: Cost}`` of ``cases`` run with ``extras`` over their
    partitions' own (a size a run chooses, such as ``dd_count``): the
    estimates, as no run at that size is in the history.'''
    out = {}
    for key, case in cases.items():
        case = copy.copy(case)
        case.part = copy.copy(case.part)
        case.part.extras = {**case.part.extras, **extras}
        out[key] = Cost(case, {})
    return out


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
