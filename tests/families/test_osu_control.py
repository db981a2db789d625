'''OSU cases paired with a control in the same job: the inter-node latency
with two ranks on one of its nodes, the cross-socket one with a same-socket
one, the all-to-all at a node's most ranks with half of them; where a case
has its control, and why not elsewhere, in the house's words.'''

import pytest

from iogap.core import registry
from iogap.core.figures import LOWER
from iogap.errors import IogapError
from iogap.osu import control
from iogap.osu.figures import LATENCY_PAIRED
from iogap.site.profile import Part

PLACED = {'osu_placement': {'inter_node': [], 'intra_node': [
    '--nodes=1', '--ntasks=2', '--ntasks-per-node=2'],
    'cross_socket': ['--distribution=block:cyclic'],
    'same_socket': ['--distribution=block:block']}}


def part(cores=4, **extras):
    return Part('site:p', ['mpi', 'multinode'], {**PLACED, **extras}, cores)


@pytest.mark.parametrize('params', [
    {'placement': 'inter_node', 'core_spec': 0},
    {'placement': 'cross_socket', 'core_spec': 0},
    {'num_nodes': 1, 'ranks_per_node': 64}])
def test_a_paired_case_pairs_each_repetition(params):
    assert control.unavailable(params, part(cores=68)) is None
    assert control.runs(params, part(cores=68), 3) == [
        ('control', 1), ('measure', 1), ('control', 2), ('measure', 2),
        ('control', 3), ('measure', 3)]


@pytest.mark.parametrize('params,where,reason', [
    ({'placement': 'same_socket', 'core_spec': 0}, part(),
     'same_socket: the case runs on one node'),
    ({'placement': 'cross_socket', 'core_spec': 0},
     part(osu_placement={'cross_socket': []}),
     'site:p gives no osu_placement.same_socket'),
    ({'num_nodes': 1, 'ranks_per_node': 2}, part(cores=4),
     '2 ranks a node: only the most a node holds'),
    ({'num_nodes': 1, 'ranks_per_node': 2}, part(cores=2),
     'at least 4 in all'),
    ({'placement': 'inter_node', 'core_spec': 0},
     part(osu_placement={'inter_node': []}),
     'site:p gives no osu_placement.intra_node'),
    ({'placement': 'inter_node', 'core_spec': 0}, part(cores=1),
     'a node of site:p has 1 core(s) for tasks: two ranks on one node '
     'would share a core'),
    ({'placement': 'inter_node', 'core_spec': 3}, part(cores=4),
     'has 1 core(s) for tasks'),
])
def test_elsewhere_the_paired_figure_is_not_applicable(params, where,
                                                        reason):
    assert reason in control.unavailable(params, where)
    assert control.runs(params, where, 3) == [('measure', 1)]


def test_the_paired_latency_is_the_geometric_mean_of_inter_over_intra():
    inter, intra = {'1': 8.0, '2': 18.0}, {'2': 2.0, '1': 2.0}
    assert control.INTRA_NODE.paired(inter, intra) == pytest.approx(6.0)
    with pytest.raises(IogapError, match=r'the inter-node runs ran in '
                       r'repetitions \[.1., .2.\] and the intra-node runs '
                       r'in \[.1.\]'):
        control.INTRA_NODE.paired(inter, {'1': 2.0})


def test_the_paired_latency_is_judged_lower_is_better():
    assert registry.better('OSULatency', LATENCY_PAIRED.name()) == LOWER


def test_a_paired_cases_figures_are_its_repetitions_medians():
    def fig(latency, size, at8):
        return {'latency_smallest': latency, 'smallest_size': size,
                'latency_8B': at8}
    inter = {'1': fig(30.0, 2, 31.0), '2': fig(20.0, 4, 22.0),
             '3': fig(25.0, 1, 26.0)}
    intra = {'1': fig(3.0, 1, 3.5), '2': fig(2.0, 1, 2.5),
             '3': fig(5.0, 1, 5.5)}
    got = control.figures(inter, intra)
    # each the median repetition's; the size that of the median latency
    assert got['latency_smallest'] == 25.0 and got['latency_8B'] == 26.0
    assert got['smallest_size'] == 1
    assert got['latency_smallest_paired'] == pytest.approx(
        (10.0 * 10.0 * 5.0) ** (1 / 3))


def test_the_all_to_all_per_peer_divides_out_the_peers():
    # 8 ranks at 70 us (7 peers: 10 each) over 4 at 15 us (3 peers: 5)
    measured = {'1': {'latency_8B': 70.0}, '2': {'latency_8B': 84.0}}
    half = {'1': {'latency_8B': 15.0}, '2': {'latency_8B': 12.0}}
    got = control.per_peer(measured, half, 8)
    assert got['latency_8B'] == 70.0          # the low median
    assert got['latency_8B_per_peer_paired'] == pytest.approx(
        (2.0 * 3.0) ** 0.5)
