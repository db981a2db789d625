'''The inter-node latency's control: osu_latency between two ranks on one
node of the same job, run just before each inter-node run. The nodes' state
of the moment (load, clock, neighbours' traffic) slows both; their ratio
divides most of it out (:mod:`iogap.core.control`).'''

import statistics

from iogap.core import Control
from iogap.osu.figures import LATENCY_PAIRED, LATENCY_SMALLEST, SMALLEST_SIZE

#: The pairing, as its errors name it
INTRA_NODE = Control('inter-node runs', 'intra-node runs',
                     ('inter-node', 'intra-node'), 'latencies', 'us')


def unavailable(params, part):
    '''Why a case (``params`` on ``part``) has no intra-node control, or
    ``None``.'''
    if params.get('placement') != 'inter_node':
        return (f'{params.get("placement")}: the case runs on one node; '
                f'only an inter-node latency is paired with an intra-node '
                f'one')
    if 'intra_node' not in part.extras['osu_placement']:
        return (f'{part.fullname} gives no osu_placement.intra_node (the '
                f'launcher options that place the two ranks of a two-node '
                f'job on one of its nodes)')
    cores = part.num_cores - params.get('core_spec', 0)
    if cores < 2:
        return (f'a node of {part.fullname} has {cores} core(s) for tasks: '
                f'two ranks on one node would share a core')
    return None


def runs(params, part, repetitions):
    '''The job's measured runs, in order: ``[(run, rep)]``, an intra-node
    control before each inter-node run where the case has one.'''
    if unavailable(params, part):
        return [('measure', 1)]
    return [(run, rep) for rep in range(1, repetitions + 1)
            for run in ('control', 'measure')]


def figures(inter, intra):
    '''A paired case's figures from the repetitions' inter-node and
    intra-node ones (each ``{rep: {name: value}}``): each the low median
    (a measured value), the smallest size that of the median latency's
    repetition, and the paired figure.'''
    key, size = LATENCY_SMALLEST.name(), SMALLEST_SIZE.name()
    found = {name: statistics.median_low(f[name] for f in inter.values())
             for name in next(iter(inter.values()))}
    found[size] = next(f[size] for f in inter.values() if f[key] == found[key])
    found[LATENCY_PAIRED.name()] = INTRA_NODE.paired(
        {r: f[key] for r, f in inter.items()},
        {r: f[key] for r, f in intra.items()})
    return found
