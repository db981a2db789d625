'''Site data that only Slurm can contradict, checked against the local Slurm
of ci/local-slurm (tests/site/test_minicori.py starts it) before any job:
a partition Slurm does not have, an MPI plugin srun lacks, more CPUs than
the nodes have; and onboarding's dry run, which starts no job.'''

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, run_reframe
from test_minicori import cluster, slurm_cmd  # noqa: F401 (the fixture)

pytestmark = pytest.mark.reframe

#: The first partition of the minicori profile, as a line appended to it
KNL = "_p = site_configuration['systems'][0]['partitions'][0]\n"


LEFT_OUT = '''
import json, sys
from iogap.night import baseline, onboard
args = type('Args', (), dict(system='minicori', budget=1,
                             select=list(baseline.SELECT)))
_, found, _ = onboard.plan(args)
said = []
kept = onboard.usable('minicori', said.append, found)
json.dump([sorted({c.family for c in kept.values()}), said], sys.stdout)
'''


def home(tmp_path, added=''):
    '''A checkout for ``IOGAP_HOME``: its own systems/ (minicori with
    ``added`` appended), the shipped references and Spack files.'''
    where = tmp_path / 'home'
    shutil.copytree(os.path.join(ROOT, 'systems'), where / 'systems')
    for name in ('reference', 'spack', 'spack.yaml', 'checks', 'iogap',
                 'reframe_config.py'):
        os.symlink(os.path.join(ROOT, name), where / name)
    with open(where / 'systems' / 'minicori.py', 'a') as fp:
        fp.write(added)
    return where


def jobs(cluster):
    return slurm_cmd(cluster, 'scontrol', '-o', 'show', 'job').stdout


@pytest.mark.parametrize('added,said', [
    (KNL + "_p['access'] = ['-p cpuu']\n", "partition knl: access: Slurm "
     "has no partition 'cpuu' with nodes (sinfo: knl, haswell)"),
    (KNL + "_p['extras']['mpi_type'] = 'pmi3'\n", "partition knl: extras."
     "mpi_type: srun has no MPI plugin 'pmi3' (srun --mpi=list: "),
    (KNL + "_p['processor'] = dict(_p['processor'], num_cpus=4096, "
     "num_cpus_per_socket=4096 // _p['processor']['num_sockets'])\n",
     'partition knl: processor.num_cpus: 4096, but the nodes of Slurm '
     'partition knl have'),
])
def test_what_slurm_contradicts_stops_the_run_before_any_job(
        cluster, tmp_path, added, said):
    before = jobs(cluster)
    run = run_reframe(tmp_path, '--system', 'minicori', '-n',
                      'DDSingleStream', '-r', env={
                          **cluster['env'], 'IOGAP_HOME': str(home(
                              tmp_path, added))})
    text = run.stdout + run.proc.stderr
    assert run.returncode != 0 and 'Traceback' not in text, text
    [line] = [l for l in text.splitlines() if 'ERROR' in l]
    assert 'systems/minicori.py:' in line and said in line, line
    assert jobs(cluster) == before
    assert not os.path.exists(tmp_path / 'out' / 'stage')


def test_onboarding_dry_run_starts_no_job_and_leaves_out_missing_tools(
        cluster, tmp_path):
    '''Without a Spack view, OSU is on no node's PATH: a real onboarding
    leaves its cases out with that reason, before any of them runs.'''
    env = {k: v for k, v in os.environ.items() if k != 'IOGAP_SPACK_VIEW'}
    env.update(cluster['env'], IOGAP_HOME=str(home(tmp_path)),
               IOGAP_OUTPUT=str(tmp_path / 'out'))
    before = jobs(cluster)
    for system in ('minicori', 'newsite'):
        done = subprocess.run(
            [sys.executable, '-m', 'iogap', 'profile', 'onboard', system,
             '--budget', '1', '--dry-run'], cwd=ROOT, env=env,
            capture_output=True, text=True, timeout=300)
        assert done.returncode == (0 if system == 'minicori' else 4), \
            done.stdout + done.stderr
    assert 'nothing was run or written' in done.stderr
    assert jobs(cluster) == before
    assert sorted(os.listdir(tmp_path / 'home' / 'systems')) == sorted(
        os.listdir(os.path.join(ROOT, 'systems')))
    assert not os.path.exists(tmp_path / 'out')

    # in a fresh interpreter: this one may have imported the checks spanning
    # every profile, and a run's variants span minicori alone
    left_out = subprocess.run([sys.executable, '-c', LEFT_OUT], cwd=ROOT,
                              env=env, capture_output=True, text=True,
                              timeout=300)
    assert left_out.returncode == 0, left_out.stderr
    families, said = json.loads(left_out.stdout)
    assert families == ['DDSingleStream'], said
    assert sorted(said) == [
        f'left out OSULatency %core_spec=0 %cpu_bind=default %placement='
        f'same_socket on {p}: osu_latency is not on the PATH of a node of '
        f'{p} (nor in a Spack view: IOGAP_SPACK_VIEW)'
        for p in ('haswell', 'knl')]
    assert jobs(cluster) != before     # the one-task steps, nothing else
