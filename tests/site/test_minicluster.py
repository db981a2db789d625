'''The minicluster profile without a cluster: which multi-node cases and
variants it generates where, and how it reads MPI-IO hints and Slurm's
partitions (the real runs are tests/test_multinode.py).'''

import os
import re

import pytest
from reframe.core.exceptions import SanityError

from conftest import run_reframe
from iogap.site import profile
from iogap.site import discover
from iogap.errors import ProfileError
from iogap.judge import references
from iogap.pio import hints

#: What ROMIO printed (ROMIO_PRINT_HINTS=1) at one open of a 2-node
#: collective IOR on the local cluster, trimmed
ROMIO = '''key = cb_buffer_size            value = 4194304
key = romio_cb_write            value = enable
key = cb_nodes                  value = 2
key = cb_config_list            value = *:1
key = romio_aggregator_list     value = 0 1
'''

RANKS = [{'rank': 0, 'host': 'n1'}, {'rank': 1, 'host': 'n2'}]


#: IOR's existence check: rank 0 alone opens the file (MPI_COMM_SELF)
SELF = ROMIO.replace('value = 2', 'value = 1').replace('0 1', '0')


def test_aggregators_on_every_node_pass_and_are_named():
    assert hints.check_aggregators(SELF + ROMIO * 2, RANKS, 2) == '0@n1 1@n2'
    assert len(hints.reports(ROMIO * 3)) == 3


@pytest.mark.parametrize('text,ranks,why', [
    ('', RANKS, 'printed no hints'),
    (SELF, RANKS, 'no open of the shared file over the job\'s ranks'),
    (ROMIO.replace('value = 2', 'value = 3').replace('0 1', '0 1 2'),
     RANKS, 'asked for cb_nodes=2 but the MPI-IO layer used cb_nodes=3'),
    (ROMIO.replace('0 1', '0'), RANKS, 'expected 2 aggregator ranks'),
    (ROMIO, [{'rank': 0, 'host': 'n1'}, {'rank': 1, 'host': 'n1'},
             {'rank': 2, 'host': 'n2'}], 'ran on n1, not on every node'),
])
def test_aggregators_not_as_asked_fail_saying_why(text, ranks, why):
    with pytest.raises(SanityError, match=re.escape(why)):
        hints.check_aggregators(text, ranks, 2)


def test_a_run_checks_the_nodes_of_the_partitions_it_selected():
    system = {'partitions': [
        {'name': 'knl', 'access': ['-p knl', '-L host']},
        {'name': 'shared', 'access': ['-p shared', '-L host']},
        {'name': 'login', 'access': []}]}
    assert discover.slurm_partitions(system, ['reframe', '--system',
                                             'minicluster']) == \
        ['knl', 'shared']
    assert discover.slurm_partitions(system, ['reframe',
                                             '--system=minicluster:knl']) \
        == ['knl']


#: A listing is a ReFrame run of its own (some 20 s here)
@pytest.fixture(scope='module')
def listing(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('minicluster-list')
    # Every partition, whatever cluster this shell may have started
    run = run_reframe(tmp, '--system', 'minicluster', '-l', env={
        'SLURM_CONF': '', 'IOGAP_MINICLUSTER_PARTITIONS': ''})
    assert run.returncode == 0, run.stdout
    return run


def listed(run, pattern):
    '''Listed cases matching ``pattern``: ReFrame shows a case that a
    judgement depends on under it (``^Name``), as ``- Name`` here.'''
    lines = [re.sub(r'^\s*\^', '- ', ln) for ln in run.stdout.splitlines()]
    return [ln for ln in lines
            if ln.startswith('- ') and re.search(pattern, ln)]


@pytest.mark.reframe
def test_inter_node_cases_are_generated(listing):
    for pattern in (r'^- OSULatency .*placement=inter_node',
                    r'^- OSUAlltoall .*num_nodes=2',
                    r'^- IORBench .*num_nodes=2 .*layout=fpp',
                    r'^- IORBench .*num_nodes=2 .*layout=ssf',
                    r'^- MDTestBench .*num_nodes=2',
                    r'^- IORCollective '):
        assert listed(listing, pattern), pattern


@pytest.mark.reframe
def test_variants_the_one_cpu_nodes_cannot_honour_are_not_generated(
        listing):
    # Only the shared partition (n0, every CPU) binds and reserves cores;
    # there, nothing spans nodes
    assert not listed(listing, r'num_nodes=2 .*core_spec=1|core_spec=1 .*'
                               r'num_nodes=2')
    assert not listed(listing, r'cpu_bind=cores.*(inter_node|num_nodes=2)')
    # The core-spec collective case: on n0 only, one node (the listing
    # names no partition; the real run checks it ran on shared)
    assert listed(listing, r'^- IORCollective %core_spec=1 .*api=HDF5 '
                           r'.*io=collective ')
    assert listed(listing, r'^- OSULatency .*cpu_bind=cores.*same_socket')
    assert listed(listing, r'^- DDSingleStream .*core_spec=1')


def test_a_reference_to_a_partition_left_out_is_not_judged(monkeypatch):
    monkeypatch.setenv('IOGAP_MINICLUSTER_PARTITIONS', 'knl')
    monkeypatch.delenv('SLURM_CONF', raising=False)
    # Whatever references were loaded come back after the test
    monkeypatch.setattr(references, '_current', references.current())
    profile.load(['reframe', '--system', 'minicluster'], os.environ)
    assert profile.omitted() == ['haswell', 'shared']
    refs = references.load('minicluster', profile.parts())
    assert refs.absent_count() == 1 and refs.entries('ratios') == []

    monkeypatch.setenv('IOGAP_MINICLUSTER_PARTITIONS', 'knl,login')
    with pytest.raises(ProfileError, match='names no partition login'):
        profile.load(['reframe', '--system', 'minicluster'], os.environ)
