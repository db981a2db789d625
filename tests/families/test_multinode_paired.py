'''The inter-node latency paired with its intra-node control, for real:
the minicluster profile on ``ci/local-slurm start --nodes 2 --node-cpus
all`` (nodes n1 and n2, each a slurmd over every CPU of this host, so a
node holds two ranks), started for this module on a port of its own and
stopped after it. Each repetition of the inter-node OSULatency case runs
osu_latency between two ranks on one node of its job, then across the
two nodes; the paired figure is the geometric mean of inter over intra,
as the job's own tables give them; IORPair's direct/buffered pair
alternates its sides the same way. (The two nodes share this host's
CPUs: the pairing is proven here, not the network's figures.)'''

import json
import math
import os
import statistics

import pytest

from conftest import cases, needs_tools, perf
from iogap.core import placement, steps
from iogap.osu import parse
from test_job_layout import timed_commands
from test_minicori import job_file, variant
from test_multinode import new_cluster

pytestmark = pytest.mark.reframe

#: The inter-node latency case of knl (the only one: cpu_bind=default)
INTER = variant('OSULatency', placement='inter_node')

REPETITIONS = 3


@pytest.fixture(scope='module')
def cluster(tmp_path_factory):
    c = new_cluster(tmp_path_factory)
    c.start('--nodes', '2', '--node-cpus', 'all')
    c.run_env['IOGAP_MINICLUSTER_PARTITIONS'] = 'knl'
    yield c
    c.stop()


def smallest(step):
    '''The least latency up to 8 B of a step's OSU table.'''
    [table] = parse.parse_tables(step.text)
    latency = table.values('Latency')
    return min(v for s, v in latency.items() if s <= 8)


@needs_tools
def test_each_repetition_pairs_inter_node_with_intra_node(cluster,
                                                          tmp_path):
    run, wall = cluster.run(tmp_path, '-n', INTER, '-S',
                            f'OSULatency.repetitions={REPETITIONS}', '-r')
    [tc] = cases(run, 'OSULatency')
    assert tc['result'] == 'pass', (tc['fail_reason'], run.stdout[-3000:])
    # Every timed step holds one launched tool: the control's probe is not
    # timed
    labels = [labels for labels, _ in timed_commands(job_file(tc,
                                                               'rfm_job.sh'))]
    assert labels == ['run=validate'] + [
        f'run={run} rep={rep}' for rep in range(1, REPETITIONS + 1)
        for run in ('control', 'measure')], labels
    text = job_file(tc)
    found = steps.parse(text)
    assert [s['run'] for s in found] == ['probe', 'validate'] + \
        ['control', 'measure'] * REPETITIONS
    # The job on both nodes; its control's two ranks on one of them
    head = text.split('\niogap-step:', 1)[0]
    assert {r['host'] for r in placement.parse(head)} == {'n1', 'n2'}
    [probe] = [s for s in found if s['run'] == 'probe']
    ranks = placement.parse(probe.text)
    assert len(ranks) == 2 and len({r['host'] for r in ranks}) == 1, ranks
    assert 'control 0@' in tc['method'], tc['method']

    inter = {s['rep']: smallest(s) for s in found if s['run'] == 'measure'}
    intra = {s['rep']: smallest(s) for s in found if s['run'] == 'control'}
    ratios = [inter[r] / intra[r] for r in sorted(inter)]
    assert perf(tc, 'latency_smallest_paired') == pytest.approx(
        math.exp(statistics.fmean(math.log(q) for q in ratios)), rel=1e-9)
    assert perf(tc, 'latency_smallest') == statistics.median_low(
        inter.values())
    print(f'paired OSU case in {wall:.0f} s: inter {sorted(inter.items())} '
          f'intra {sorted(intra.items())} us, ratios '
          f'{[round(q, 3) for q in ratios]}')


#: IORPair's direct/buffered pair on knl (one process a node here)
PAIR = variant('IORPair', pair='direct_1')


@needs_tools
def test_each_repetition_pairs_both_sides_of_a_contrast(cluster, tmp_path):
    '''Both sides alternate in the job, and each paired figure is the
    geometric mean of A over B per repetition, as IOR's own summaries of
    the job's steps give them.'''
    run, wall = cluster.run(tmp_path, '-n', PAIR, '-S',
                            f'IORPair.repetitions={REPETITIONS}', '-r')
    [tc] = cases(run, 'IORPair')
    assert tc['result'] == 'pass', (tc['fail_reason'], run.stdout[-3000:])
    found = [(s['side'], s['rep'], s['op']) for s in steps.parse(
        job_file(tc)) if 'op' in s.labels]
    # the job ends with its own launch, side A's (direct)
    assert [(s, r) for s, r, op in found if op == 'write'] == [
        ('B', '1'), ('A', '1'), ('A', '2'), ('B', '2'), ('B', '3'),
        ('A', '3')]
    for phase, op in (('write', 'write'), ('read_once', 'read')):
        bw = {}
        for side, name in (('A', 'direct'), ('B', 'buffered')):
            for rep in range(1, REPETITIONS + 1):
                with open(os.path.join(tc['outputdir'], f'ior_{name}_{op}_'
                                       f'{rep}.json')) as fp:
                    doc = json.load(fp)
                [first] = [r['bwMiB'] for t in doc['tests']
                           for r in t['Results'] if r['access'] == op]
                bw.setdefault(side, []).append(first)
        assert perf(tc, f'{phase}_bw_paired') == pytest.approx(math.exp(
            statistics.fmean(math.log(a / b) for a, b in zip(
                bw['A'], bw['B']))), rel=1e-3), phase
        assert perf(tc, f'{phase}_bw_direct') == pytest.approx(
            statistics.median(bw['A']), rel=1e-3)
    print(f'paired IOR case in {wall:.0f} s: write_bw_paired '
          f'{perf(tc, "write_bw_paired"):.3f}, read_once_bw_paired '
          f'{perf(tc, "read_once_bw_paired"):.3f}')
