'''The study's contrasts side by side (iogap.pio.pair, the OSU and fio
controls): which pairs each Cori partition runs, and the job scripts a
Cori dry run writes for them: sides alternating by repetition, the job
ending with its own launch, each side's launch and environment, and the
findings the issue asked for (MPIIO_DIRECT_READ, the all-to-all at 64
ranks, the burst buffer) in the scripts.'''

import re

import pytest

from conftest import run_reframe
from iogap.pio.pair import contrasts


def test_each_cori_partition_runs_its_pairs(cori):
    found = {p.fullname.split(":")[1]: contrasts(p) for p in cori}
    assert set(found['knl']) == {'collective', 'cb_buffer', 'direct_32',
                                 'direct_64', 'reread_48', 'affinity',
                                 'mpiio_direct_read'}
    assert set(found['haswell']) == {'collective', 'cb_buffer', 'direct_32',
                                     'mpiio_direct_read'}
    a, b, reads, shape = found['knl']['reread_48']
    assert (a['name'], a['ppn'], b['name'], reads, shape) == \
        ('fewer', 32, 'more', 3, (1, 48))
    a, b, _, shape = found['knl']['cb_buffer']
    assert (a['cb'], b['cb'], shape) == ('64m', '4m', (32, 32))
    a, b, _, _ = found['knl']['mpiio_direct_read']
    assert a['env'] == {'MPIIO_DIRECT_READ': 'TRUE'} and not b['env']


@pytest.fixture(scope='module')
def scripts(tmp_path_factory):
    run = run_reframe(tmp_path_factory.mktemp('cori'), '--system', 'cori',
                      '-n', 'IORPair|OSUAlltoall.*%ranks_per_node=64|'
                      'FioThreads.*%threads=16|OSULatency.*%cpu_bind=default'
                      '.*%placement=cross_socket', '--dry-run')
    assert run.returncode == 0, run.stdout
    return run.job_scripts()


def steps_of(text):
    '''``[(side, rep, op)]`` of a script's steps, the main one last.'''
    found = re.findall(r'^iogap_(?:run|begin) side=(\w) rep=(\d) op=(\w+)',
                       text, re.M)
    return [(s, int(r), op) for s, r, op in found]


def one(scripts, name, part, **params):
    [text] = [t for (n, p, pt), t in scripts.items() if n == name and
              pt == part and all(f'%{k}={v}' in p.split()
                                 for k, v in params.items())]
    return text


@pytest.mark.reframe
def test_the_sides_alternate_and_the_job_ends_with_its_own(scripts):
    text = one(scripts, 'IORPair', 'knl', pair='reread_48')
    writes = [(s, r) for s, r, op in steps_of(text) if op == 'write']
    # 3 repetitions; the last ends with B, the job's own 48 processes
    assert writes == [('A', 1), ('B', 1), ('B', 2), ('A', 2), ('A', 3),
                      ('B', 3)]
    assert steps_of(text)[-1] == ('B', 3, 'read')
    assert re.search(r'^iogap_begin side=B rep=3 op=read\nsrun ', text,
                     re.M)
    for line in text.splitlines():
        if 'side=A' in line:
            assert '--ntasks=32 --ntasks-per-node=32' in line, line
    assert '#SBATCH --ntasks=48' in text


@pytest.mark.reframe
def test_the_unbound_side_is_the_tips_otherwise(scripts):
    text = one(scripts, 'IORPair', 'knl', pair='affinity')
    a = [ln for ln in text.splitlines() if 'side=A rep=1 op=write' in ln]
    b = [ln for ln in text.splitlines() if 'side=B rep=1 op=write' in ln]
    assert '--cpus-per-task=64 --cpu-bind=cores' in a[0]
    assert '--cpus-per-task=1' in b[0] and '--cpu-bind' not in b[0]


@pytest.mark.reframe
def test_the_issues_findings_are_in_the_cori_job_scripts(scripts):
    text = one(scripts, 'IORPair', 'knl', pair='mpiio_direct_read')
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.search(r'side=A .*op=read', line):
            assert 'export MPIIO_DIRECT_READ=TRUE' in lines[i - 2:i]
            assert lines[i + 1] == 'unset MPIIO_DIRECT_READ'
        if 'side=B' in line:
            assert lines[i - 1] != 'export MPIIO_DIRECT_READ=TRUE'
    text = one(scripts, 'OSUAlltoall', 'knl', ranks_per_node=64, num_nodes=1,
               cpu_bind='default')
    assert re.search(r'run=control rep=1 -- srun --ntasks=32 '
                     r'--ntasks-per-node=32 \S+/osu_alltoall', text)
    text = one(scripts, 'FioThreads', 'knl', target='burst_buffer')
    assert '#DW jobdw capacity=82GiB access_mode=striped type=scratch' in \
        text.splitlines()
    assert '--filename="$DW_JOB_STRIPED/iogap-fio.dat"' in text
    text = one(scripts, 'OSULatency', 'haswell', placement='cross_socket',
               core_spec=0)
    assert re.search(r'run=control rep=1 -- srun '
                     r'--distribution=block:block --cpu-bind=sockets', text)


def test_a_partition_pair_in_one_job_costs_both_allocations_throughout():
    '''The plan's cost of closeness: two one-node cases of 600 and 1200 s
    are 0.5 node-hours apart, 1 held together while the sides alternate.'''
    from types import SimpleNamespace as NS
    from iogap.plan import cost

    def case(part, seconds):
        return NS(case=NS(family='IORBench', partition=part,
                          params={'procs_per_node': 32}), nodes=1,
                  seconds=seconds, node_hours=seconds / 3600)
    costs = {'a': case('knl', 600), 'b': case('haswell', 1200)}
    side = {'test': 'IORBench', 'params': {'procs_per_node': 32},
            'var': 'read_once_bw'}
    ratios = [{'name': 'apart', 'numerator': {**side, 'partition': 'knl'},
               'denominator': {**side, 'partition': 'haswell'}},
              {'name': 'one_partition', 'numerator': {**side,
                                                      'partition': 'knl'}}]
    assert cost.pairings(costs, ratios) == [('apart', 0.5, 1.0)]
