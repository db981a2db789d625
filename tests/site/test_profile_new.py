'''A site onboarded in one command: ``iogap profile new`` reads
Slurm and a node of every partition, writes a profile that loads, and the
profile lists, dry-runs and runs on the local Slurm of ci/local-slurm (an
instance of the test's own). The parsers are checked on what this Slurm
printed (tests/data/profile), also shaped as a partition of 4 nodes.'''

import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT, Run, reframe_cmd
from iogap.core import placement
from iogap.errors import EXIT
from iogap.site import discover, generate
from iogap.site.spack import boot as spackboot


def text(data, name):
    with open(data('profile', name)) as fp:
        return fp.read()


def test_slurm_and_the_node_are_read_as_they_print(data):
    parts = discover.records(text(data, 'scontrol-partition.txt'))
    assert [p['PartitionName'] for p in parts] == ['knl', 'haswell']
    [node] = discover.records(text(data, 'scontrol-node.txt'))
    assert node['Partitions'] == 'knl,haswell'
    assert node['AvailableFeatures'] == 'knl,haswell'
    assert discover.mpi_type(text(data, 'srun-mpi-list.txt')) == 'pmix'
    assert discover.mpi_type('MPI plugin types are...\n\tnone\n\tpmi2\n') \
        == 'pmi2'
    probe = discover.sections(text(data, 'node-probe.txt'))
    assert discover.lscpu(probe['lscpu']) == {
        'arch': 'x86_64', 'num_cpus': 2, 'num_cpus_per_core': 1,
        'num_sockets': 1, 'num_cpus_per_socket': 2, 'model': 'AMD EPYC'}
    assert probe['fs'][0].split()[0] == 'ext4'
    assert probe['clocks'] == []


def test_a_partition_of_many_nodes_gets_the_multinode_cases(data):
    '''What scontrol prints for 4 nodes in one partition: +multinode,
    node sweeps and inter-node placements, one node probed.'''
    [node] = discover.records(text(data, 'scontrol-node.txt'))
    cluster = discover.Cluster.__new__(discover.Cluster)
    cluster.config = {'TaskPlugin': 'task/affinity',
                      'AllowSpecResourcesUsage': 'No'}
    cluster.mpi = 'pmix'
    cluster.nodes = [dict(node, NodeName=f'n{i}', Partitions='cpu')
                     for i in range(4)]
    probes = []
    cluster.probe = lambda name, scratch: probes.append(name) or \
        discover.sections(text(data, 'node-probe.txt'))
    args = type('Args', (), dict(scratch='/s', system='x', spack_root=None,
                                 account='a1', qos=None, reservation=None))
    notes = []
    part, _ = generate.partition(cluster, 'cpu', args, notes)
    assert probes == ['cpu']
    assert {'multinode', 'mpi', 'cpubind'} <= set(part['features'])
    assert 'corespec' not in part['features'] and 'no +corespec' in \
        notes[1]
    assert part['extras']['max_nodes'] == 4
    assert part['extras']['ior_nodes'] == [1, 4]
    assert part['extras']['osu_placement']['inter_node'] == []
    assert part['extras']['account'] == 'a1'
    assert notes[0].startswith('cpu: 4 node(s) of AMD EPYC, 1 socket(s) x 2')


def test_a_node_in_a_cpuset_is_taken_at_what_slurm_gives_a_job(data):
    '''A node of the local cluster: lscpu sees the host's 2 CPUs, Slurm
    gives a job 1.'''
    probe = discover.sections(text(data, 'node-probe.txt'))
    seen = discover.lscpu(probe['lscpu'])
    [node] = discover.records(text(data, 'scontrol-node.txt'))
    assert discover.within_slurm(seen, [node]) is seen
    one = dict(node, CPUTot='1', Sockets='1', ThreadsPerCore='1')
    proc = discover.within_slurm(seen, [node, one])
    assert (proc['num_cpus'], proc['num_sockets'],
            proc['num_cpus_per_socket']) == (1, 1, 1)


@pytest.mark.parametrize('host,pattern', [
    ('login03', r'^login\d+$'), ('vm', r'^vm$'),
    ('uan01.cluster.org', r'^uan\d+\.cluster\.org$'),
])
def test_the_login_nodes_pattern_comes_from_the_host_name(host, pattern):
    assert generate.hostname_pattern(host) == pattern
    assert re.match(pattern, host)


def test_a_sweep_takes_at_most_five_clocks_spread_over_the_node():
    assert generate.clocks(['1000000', '2000000']) == [1000000, 2000000]
    assert generate.clocks([str(1000000 + 100000 * i) for i in range(13)]) \
        == [1000000, 1300000, 1600000, 1900000, 2200000]


#: One rank line of each kind, as the probe (rank-probe.sh) prints
#: them: this VM's (no cpufreq: cpuinfo), a cpufreq host's, and none
PROBED = ('iogap-rank: rank=0 host=vm cpus=0-1 sockets=0 '
          'clock=2445400@cpuinfo cpu=0\n'
          'iogap-rank: rank=1 host=n1 cpus=3 sockets=0 '
          'clock=1200000@scaling_cur_freq cpu=3\n'
          'iogap-rank: rank=2 host=n1 cpus=4 sockets=0 clock=?@none cpu=4\n')


def test_a_clock_that_was_not_applied_fails_naming_both():
    ranks = placement.parse(PROBED)
    assert [(r['clock'], r['clock_source']) for r in ranks] == [
        (2445400, 'cpuinfo'), (1200000, 'scaling_cur_freq'), (None, None)]
    assert placement.check_clock(ranks[1:], 1200000) == \
        'clock=1200000 kHz (scaling_cur_freq)'
    assert placement.check_clock(ranks[2:], 1200000) == \
        'clock=not exposed by the host'
    with pytest.raises(Exception) as err:
        placement.check_clock(ranks, 1200000)
    assert str(err.value) == (
        'asked for a CPU clock of 1200000 kHz but rank 0 on vm ran at '
        '2445400 kHz (read from cpuinfo): the clock was not applied')


def test_the_probe_reads_the_clock_where_the_host_exposes_it():
    out = subprocess.run(['sh', f'{ROOT}/iogap/core/rank-probe.sh'],
                         capture_output=True, text=True, check=True).stdout
    [rank] = placement.parse(out)
    cpu = re.search(r' cpu=(\d+)', out).group(1)
    sysfs = f'/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_cur_freq'
    if os.path.exists(sysfs):
        assert rank['clock_source'] == 'scaling_cur_freq'
    elif 'cpu MHz' in open('/proc/cpuinfo').read():
        assert rank['clock_source'] == 'cpuinfo' and rank['clock'] > 0
    else:
        assert rank['clock'] is None


SLURM_DIR = '/var/tmp/iogap-slurm-test-new'
SLURM_PORT = '18897'


@pytest.fixture
def slurm():
    env = dict({k: v for k, v in os.environ.items() if k != 'SLURM_CONF'},
               IOGAP_SLURM_DIR=SLURM_DIR, IOGAP_SLURM_PORT=SLURM_PORT)
    local = os.path.join(ROOT, 'ci', 'local-slurm')
    if os.geteuid() != 0 or not shutil.which('slurmctld'):
        pytest.skip('the local Slurm needs root and slurm-wlm')
    start = subprocess.run([local, 'start'], capture_output=True, text=True,
                           timeout=120, env=env)
    try:
        assert start.returncode == 0, start.stderr
        yield dict(env, SLURM_CONF=f'{SLURM_DIR}/slurm.conf')
    finally:
        subprocess.run([local, 'stop'], capture_output=True, timeout=120,
                       env=env)


@pytest.fixture
def cluster(tmp_path):
    '''A cluster of two nodes, as tests/test_multinode.py makes one.'''
    from test_multinode import Cluster, cannot_make_cluster
    why = cannot_make_cluster()
    if why:
        pytest.skip(why)
    made = Cluster(tmp_path)
    made.start('--nodes', '2')
    try:
        yield dict(os.environ, **made.env, **made.run_env)
    finally:
        made.local_slurm('stop')


@pytest.mark.reframe
def test_a_site_is_onboarded_in_one_command(tmp_path, slurm):
    repo = tmp_path / 'repo'
    shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns(
        '.git', '.venv', 'output', 'build', '__pycache__'))
    scratch = tmp_path / 'scratch'
    new = subprocess.run(
        [sys.executable, '-m', 'iogap', 'profile', 'new', 'site', '--scratch',
         str(scratch), '--no-spack', '--hostnames', r'^login\d+$'],
        cwd=repo, env=slurm, capture_output=True, text=True, timeout=300)
    assert new.returncode == 0, new.stderr
    assert new.stdout == \
        'iogap profile onboard site --budget <node-hours>\n'
    assert 'knl: 1 node(s)' in new.stderr and 'haswell: 1 node(s)' in \
        new.stderr
    profile_text = (repo / 'systems' / 'site.py').read_text()
    overlay = (repo / 'systems' / 'spack' / 'site.yaml').read_text()
    assert "'mpi_type': 'pmix'" in profile_text and 'SCONTROL' in \
        profile_text
    assert 'openmpi@' in overlay and 'no Spack' in overlay
    again = subprocess.run(
        [sys.executable, '-m', 'iogap', 'profile', 'new', 'site'],
        cwd=repo, env=slurm, capture_output=True, text=True, timeout=60)
    assert again.returncode == EXIT['input'] and again.stderr.count('\n') == 1
    assert 'exists: pass --force' in again.stderr

    env = dict(slurm, IOGAP_OUTPUT=str(tmp_path / 'out'), RFM_COLORIZE='n')

    def reframe(*args):
        proc = subprocess.run(
            reframe_cmd() + ['-C', 'reframe_config.py', '--system', 'site',
                             *args], cwd=repo, env=env, capture_output=True,
            text=True, timeout=600)
        return Run(proc, env['IOGAP_OUTPUT'])

    listed = reframe('-l')
    assert listed.returncode == 0 and 'DDSingleStream' in listed.stdout
    assert 'OSULatency' in listed.stdout
    plain = '(?=.*%core_spec=0)(?=.*%cpu_bind=default)'
    dd = f'^DDSingleStream(?=.*%mode=buffered){plain}'
    dry = reframe('-n', dd, '-n', f'^OSULatency{plain}', '--dry-run')
    assert dry.returncode == 0, dry.stdout
    scripts = dry.job_scripts()
    assert {part for (_, _, part) in scripts} == {'knl', 'haswell'}
    for (name, _, part), script in scripts.items():
        assert f'#SBATCH -p {part}' in script
        assert 'export SLURM_MPI_TYPE=pmix' in script
    # The generated sizes are the defaults of docs/reference/profile.md, a
    # night's worth: the run takes the smallest dd (OSU's default sizes take
    # minutes here)
    run = reframe('-n', dd, '-S', 'count=16', '-r')
    assert run.returncode == 0, run.stdout
    cases = {(tc['name'].split()[0], tc['partition'])
             for tc in run.testcases() if tc['result'] == 'pass'}
    assert cases == {('DDSingleStream', 'knl'), ('DDSingleStream', 'haswell')}


@pytest.mark.reframe
def test_with_a_spack_the_overlay_comes_from_spack_external_find(tmp_path,
                                                                 slurm):
    '''The Spack route: ``spack external find`` runs in a job on the
    partition, and the profile builds its stack with that Spack.'''
    spack_root = os.environ.get('IOGAP_SPACK_ROOT') or \
        spackboot.bootstrapped()
    if not spack_root or not os.path.isdir(spack_root):
        pytest.skip('no Spack (IOGAP_SPACK_ROOT, nor one bootstrapped)')
    repo = tmp_path / 'repo'
    shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns(
        '.git', '.venv', 'output', 'build', '__pycache__'))
    new = subprocess.run(
        [sys.executable, '-m', 'iogap', 'profile', 'new', 'site', '--scratch',
         str(tmp_path / 'scratch'), '--spack-root', spack_root,
         '--hostnames', r'^login\d+$'], cwd=repo, env=slurm,
        capture_output=True, text=True, timeout=900)
    assert new.returncode == 0, new.stderr
    overlay = (repo / 'systems' / 'spack' / 'site.yaml').read_text()
    assert '`spack external find` in a job on knl' in overlay, overlay
    packages = yaml.safe_load(overlay)['packages']
    assert packages['mpi'] == {'require': 'openmpi', 'buildable': False}
    for name in ('openmpi', 'hdf5', 'coreutils'):
        assert packages[name]['buildable'] is False, name
        [found] = packages[name]['externals']
        assert found['spec'].startswith(f'{name}@') and found['prefix'], found
    assert '+mpi' in packages['hdf5']['externals'][0]['spec']
    profile_text = (repo / 'systems' / 'site.py').read_text()
    assert f'{spack_root}/share/spack/setup-env.sh' in profile_text
    env = dict(slurm, IOGAP_OUTPUT=str(tmp_path / 'out'), RFM_COLORIZE='n')
    proc = subprocess.run(
        reframe_cmd() + ['-C', 'reframe_config.py', '--system', 'site', '-n',
                         '^DDSingleStream(?=.*%mode=direct)', '--dry-run'],
        cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    dry = Run(proc, env['IOGAP_OUTPUT'])
    assert dry.returncode == 0, dry.stdout
    builds = [path.read_text() for path in
              (tmp_path / 'out' / 'stage' / 'site').rglob('rfm_build.sh')]
    assert any('setup-env.sh' in s and
               'iogap spack build --system site' in s
               for s in builds), builds or 'no build script in the dry run'


@pytest.mark.reframe
def test_a_cluster_is_onboarded_with_its_multinode_cases(tmp_path, cluster):
    '''On a cluster of two nodes (n1, n2 in knl and haswell; n0 alone in
    shared), the generated profile gives knl its inter-node cases, and a
    two-node IOR case runs on both nodes.'''
    from conftest import built_view
    repo = tmp_path / 'repo'
    shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns(
        '.git', '.venv', 'output', 'build', '__pycache__'))
    new = subprocess.run(
        [sys.executable, '-m', 'iogap', 'profile', 'new', 'site', '--scratch',
         str(tmp_path / 'scratch'), '--hostnames', r'^login\d+$',
         '--no-spack'], cwd=repo, env=cluster, capture_output=True,
        text=True, timeout=300)
    assert new.returncode == 0, new.stderr
    overlay = (repo / 'systems' / 'spack' / 'site.yaml').read_text()
    assert 'openmpi' in overlay and 'no Spack' in overlay, overlay
    assert 'knl: 2 node(s)' in new.stderr and 'shared: 1 node(s)' in \
        new.stderr, new.stderr
    env = dict(cluster, IOGAP_OUTPUT=str(tmp_path / 'out'), RFM_COLORIZE='n',
               IOGAP_SPACK_VIEW=built_view() or '')

    def reframe(*args, system='site'):
        proc = subprocess.run(
            reframe_cmd() + ['-C', 'reframe_config.py', '--system', system,
                             *args], cwd=repo, env=env, capture_output=True,
            text=True, timeout=900)
        return Run(proc, env['IOGAP_OUTPUT'])

    ior = ('^IORBench(?=.*%num_nodes=2)(?=.*%layout=fpp)(?=.*%api=POSIX)'
           '(?=.*%mode=buffered)(?=.*%darshan=off)')
    dry = reframe('-n', ior, '-n', '^OSULatency(?=.*%placement=inter_node)',
                  '--dry-run')
    assert dry.returncode == 0, dry.stdout
    scripts = dry.job_scripts()
    assert {(name.split()[0], part) for (name, _, part) in scripts} >= {
        ('IORBench', 'knl'), ('OSULatency', 'knl')}, sorted(scripts)
    for script in scripts.values():
        # Two nodes: as many tasks as two nodes' worth
        per_node = re.search(r'^#SBATCH --ntasks-per-node=(\d+)$', script,
                             re.M)
        tasks = re.search(r'^#SBATCH --ntasks=(\d+)$', script, re.M)
        assert per_node and tasks and \
            int(tasks.group(1)) == 2 * int(per_node.group(1)), script
    if not env['IOGAP_SPACK_VIEW'] and not shutil.which('ior'):
        pytest.skip('no Spack-built view and no ior on PATH')

    run = reframe('-n', ior, '-S', 'block_size=4m', '-S', 'transfer_size=1m',
                  '-S', 'repetitions=1', '-r', system='site:knl')
    assert run.returncode == 0, run.stdout
    found = [tc for tc in run.testcases() if tc['name'] != 'ToolStack']
    assert found, run.stdout
    for case in found:
        assert case['result'] == 'pass' and case['num_nodes'] == 2
        assert sorted(case['job_nodelist']) == ['n1', 'n2']
