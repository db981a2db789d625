'''Each paired OSU case's control: the same benchmark just before each
measured run in the same job, so that the nodes' state of the moment (load,
clock, neighbours' traffic) slows both and their ratio divides most of it
out (:mod:`iogap.core.control`): an inter-node latency over two ranks on
one of its nodes, a cross-socket latency over a same-socket one, an
all-to-all at a node's most ranks over half of them (per peer).'''

import statistics

from iogap.core import Control, variant
from iogap.osu.figures import (
    LATENCY_AT,
    LATENCY_PAIRED,
    LATENCY_SMALLEST,
    PER_PEER,
    SMALLEST_SIZE,
)

#: Each pairing, in the words its errors use
INTRA_NODE = Control('inter-node runs', 'intra-node runs',
                     ('inter-node', 'intra-node'), 'latencies', 'us')
SAME_SOCKET = Control('cross-socket runs', 'same-socket runs',
                      ('cross-socket', 'same-socket'), 'latencies', 'us')
HALF_RANKS = Control('all-to-all runs', 'runs at half the ranks',
                     ('all ranks', 'half'), 'latencies', 'us')
#: A latency placement's control placement (extras['osu_placement'])
CONTROL_OF = {'inter_node': 'intra_node', 'cross_socket': 'same_socket'}


def most_ranks(part):
    '''The most ranks per node that are a power of two (EPCC's 64).'''
    return max(n for n in variant.per_node_counts(part.num_cores)
               if n & (n - 1) == 0)


def unavailable(params, part):
    '''Why a case (``params`` on ``part``) has no control, or ``None``.'''
    if 'ranks_per_node' in params:
        if params['ranks_per_node'] != most_ranks(part) or \
                params['num_nodes'] * params['ranks_per_node'] < 4:
            return (f'{params["ranks_per_node"]} ranks a node: only the '
                    f'most a node holds (as a power of two, at least 4 in '
                    f'all) run beside half of them')
        return None
    placement = params.get('placement')
    if placement not in CONTROL_OF:
        return (f'{placement}: the case runs on one node; only an '
                f'inter-node or a cross-socket latency is paired')
    if CONTROL_OF[placement] not in part.extras['osu_placement']:
        return (f'{part.fullname} gives no osu_placement.'
                f'{CONTROL_OF[placement]} (the launcher options that place '
                f'the control\'s two ranks)')
    cores = part.num_cores - params.get('core_spec', 0)
    if cores < 2:
        return (f'a node of {part.fullname} has {cores} core(s) for tasks: '
                f'two ranks on one node would share a core')
    return None


def runs(params, part, repetitions):
    '''The job's measured runs, in order: ``[(run, rep)]``, a control
    before each measured run where the case has one.'''
    if unavailable(params, part):
        return [('measure', 1)]
    return [(run, rep) for rep in range(1, repetitions + 1)
            for run in ('control', 'measure')]


def medians(measured):
    '''Each figure the low median of the repetitions' (a measured value),
    the smallest size that of the median latency's repetition.'''
    found = {name: statistics.median_low(f[name] for f in measured.values())
             for name in next(iter(measured.values()))}
    key, size = LATENCY_SMALLEST.name(), SMALLEST_SIZE.name()
    if size in found:
        found[size] = next(f[size] for f in measured.values()
                           if f[key] == found[key])
    return found


def figures(measured, control, pairing=INTRA_NODE):
    '''A paired latency's figures (each ``{rep: {name: value}}``): the
    medians, and ``latency_smallest_paired``.'''
    key = LATENCY_SMALLEST.name()
    return {**medians(measured), LATENCY_PAIRED.name(): pairing.paired(
        {r: f[key] for r, f in measured.items()},
        {r: f[key] for r, f in control.items()})}


def per_peer(measured, control, ranks):
    '''An all-to-all's figures: the medians, and at each size the time per
    peer at ``ranks`` over that at half of them (EPCC's degradation, the
    bytes a rank sends growing with its peers divided out).'''
    found = medians(measured)
    peers = ranks - 1, ranks // 2 - 1
    for name in next(iter(measured.values())):
        size = LATENCY_AT.parse(name)
        if size is not None:
            found[PER_PEER.name(**size)] = HALF_RANKS.paired(
                {r: f[name] / peers[0] for r, f in measured.items()},
                {r: f[name] / peers[1] for r, f in control.items()})
    return found


def pairing(params):
    return HALF_RANKS if 'ranks_per_node' in params else \
        SAME_SOCKET if params.get('placement') == 'cross_socket' else \
        INTRA_NODE

