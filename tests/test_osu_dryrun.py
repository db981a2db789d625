'''The OSU family on Cori, proven by the job scripts a dry run generates:
node and task placement intra- and inter-node, the rank sweep, -c runs.'''

import re

import pytest

from conftest import run_reframe

VIEW = '/iogap-spack/{}/view/libexec/osu-micro-benchmarks/mpi/{}/{}'


@pytest.fixture(scope='module')
def scripts(tmp_path_factory):
    # A local OSU prefix would win over Cori's Spack view: leave it out
    run = run_reframe(tmp_path_factory.mktemp('osu-cori'), '--system', 'cori',
                      '-n', '^OSU', '--dry-run',
                      env={'IOGAP_OSU_PREFIX': '', 'IOGAP_SPACK_VIEW': ''})
    assert run.returncode == 0, run.stdout
    return run.job_scripts()


def pick(scripts, name, part, **params):
    params = dict(dict(core_spec=0, cpu_bind='default'), **params)
    found = [text for (n, p, pt), text in scripts.items()
             if n == name and pt == part and
             all(f'%{k}={v}' in p.split() for k, v in params.items())]
    assert len(found) == 1, f'{len(found)} {name} {params} on {part}'
    return found[0]


def steps(text):
    '''``(launch line, OSU options)`` of every OSU run in a script.'''
    return re.findall(r'^(srun .*?) \S+/(osu_\w+ .*)$', text, re.M)


@pytest.mark.parametrize('part', ['haswell', 'knl'])
def test_intra_node_pair_is_one_node_two_tasks(scripts, part):
    text = pick(scripts, 'OSULatency', part, placement='same_socket')
    assert '#SBATCH --ntasks=2\n' in text
    assert '#SBATCH --ntasks-per-node=2\n' in text
    assert f'#SBATCH -C {part}' in text and '#SBATCH --exclusive' in text
    # The main step is the placement probe, placed like the measured runs
    assert re.search(r"^srun --distribution=block:block --cpu-bind=sockets "
                     r"sh -c '.*iogap-rank: rank=.*host=\$\(uname -n\)",
                     text, re.M)
    runs = steps(text)
    assert [opts for _, opts in runs] == [
        'osu_latency -m 4194304 -c -i 10 -x 2', 'osu_latency -m 4194304']
    assert all(launch == 'srun --nodes=1 --ntasks=2 --ntasks-per-node=2 '
               '--distribution=block:block --cpu-bind=sockets'
               for launch, _ in runs)
    assert VIEW.format(part, 'pt2pt', 'osu_latency') in text


def test_cross_socket_pair_only_where_there_are_two_sockets(scripts):
    text = pick(scripts, 'OSUBandwidth', 'haswell', placement='cross_socket')
    assert '#SBATCH --ntasks-per-node=2\n' in text
    assert all('--distribution=block:cyclic --cpu-bind=sockets' in launch
               for launch, _ in steps(text))
    assert not [k for k in scripts
                if k[2] == 'knl' and 'placement=cross_socket' in k[1]]


@pytest.mark.parametrize('part', ['haswell', 'knl'])
def test_inter_node_pair_is_two_nodes_one_task_each(scripts, part):
    text = pick(scripts, 'OSULatency', part, placement='inter_node')
    assert '#SBATCH --ntasks=2\n' in text
    assert '#SBATCH --ntasks-per-node=1\n' in text
    assert all(launch == 'srun --nodes=2 --ntasks=2 --ntasks-per-node=1'
               for launch, _ in steps(text))


def test_binding_variant_replaces_the_socket_binding(scripts):
    text = pick(scripts, 'OSUBiBandwidth', 'haswell', placement='same_socket',
                cpu_bind='cores')
    assert '--cpu-bind=sockets' not in text
    assert all(launch == 'srun --cpus-per-task=2 --nodes=1 --ntasks=2 '
               '--ntasks-per-node=2 --distribution=block:block '
               '--cpu-bind=cores' for launch, _ in steps(text))


@pytest.mark.parametrize('core_spec,ppn', [
    (0, [1, 2, 4, 8, 16, 32, 64, 68]),
    (4, [1, 2, 4, 8, 16, 32, 64]),      # 68 cores less the 4 reserved
])
def test_collective_sweeps_ranks_per_node_on_two_nodes(scripts, core_spec,
                                                       ppn):
    text = pick(scripts, 'OSUAlltoall', 'knl', num_nodes=2,
                core_spec=core_spec)
    assert f'#SBATCH --ntasks={2 * max(ppn)}\n' in text
    assert '#SBATCH --time=0:30:0\n' in text     # extras['osu_time_limit']
    assert f'#SBATCH --ntasks-per-node={max(ppn)}\n' in text
    runs = steps(text)
    assert [launch for launch, _ in runs[1::2]] == [
        f'srun --nodes=2 --ntasks={2 * n} --ntasks-per-node={n}' for n in ppn]
    assert all(' -c -i 10 ' in opts for _, opts in runs[::2])
    assert VIEW.format('knl', 'collective', 'osu_alltoall') in text


def test_collective_on_one_node_starts_at_two_ranks(scripts):
    text = pick(scripts, 'OSUAllreduce', 'haswell', num_nodes=1)
    sizes = re.findall(r'--ntasks=(\d+) ', text)
    assert sizes == ['2', '2', '4', '4', '8', '8', '16', '16', '32', '32']
    assert '-m 1048576' in text


def test_every_family_and_variant_is_generated(scripts):
    names = {n for n, _, _ in scripts}
    assert names == {'OSULatency', 'OSUBandwidth', 'OSUBiBandwidth',
                     'OSUAlltoall', 'OSUAllreduce'}
    # pt2pt: 3 placements on haswell, 2 on knl; collectives: 3 node counts;
    # each x core_spec {0, 4} x cpu_bind {default, cores}
    assert len(scripts) == 3 * (3 + 2) * 4 + 2 * 3 * 2 * 4
