'''The inter-node latency's control: osu_latency between two ranks on one
node of the same job, run just before each inter-node run, repetition by
repetition. What the nodes are doing at that moment (load, clock, their
neighbours' traffic) slows both; the ratio, inter-node over intra-node,
divides most of it out (:mod:`iogap.core.control`).

A case has the control only where it spans two nodes, the profile says
how to place two ranks on one node of such a job
(``extras['osu_placement']['intra_node']``), and a node has two cores to
give them; anywhere else its paired figure is not applicable, with the
reason.
'''

import statistics

from iogap.core import Control
from iogap.osu.figures import LATENCY_PAIRED, LATENCY_SMALLEST, SMALLEST_SIZE

#: The pairing, as its errors name it
INTRA_NODE = Control('inter-node runs', 'intra-node runs',
                     ('inter-node', 'intra-node'), 'latencies', 'us')


def unavailable(params, part):
    '''Why a case (its parameters, its ``part``) has
    no intra-node control, or ``None`` where it has one.'''
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
    '''A paired case's figures from its repetitions' inter-node and
    intra-node figures (each ``{rep: {name: value}}``): each figure the
    median of the repetitions (the lower of two middle ones: a value
    measured), the smallest size that of the repetition whose latency is
    that median, and the paired figure.'''
    key, size = LATENCY_SMALLEST.name(), SMALLEST_SIZE.name()
    found = {name: statistics.median_low(f[name] for f in inter.values())
             for name in next(iter(inter.values()))}
    found[size] = next(f[size] for f in inter.values()
                       if f[key] == found[key])
    found[LATENCY_PAIRED.name()] = INTRA_NODE.paired(
        {r: f[key] for r, f in inter.items()},
        {r: f[key] for r, f in intra.items()})
    return found
