'''The Cori profile, proven by the job scripts a dry run generates.'''

import glob
import os
import re

import pytest

from conftest import run_reframe


@pytest.fixture(scope='module')
def scripts(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp('cori')
    run = run_reframe(tmp_path, '--system', 'cori', '-n', '^DD', '--dry-run')
    assert run.returncode == 0, run.stdout
    scripts = run.job_scripts()
    assert scripts, run.stdout
    return scripts


def pick(scripts, name, part, **params):
    found = [text for (n, p, pt), text in scripts.items()
             if n == name and pt == part and
             all(f'%{k}={v}' in p.split() for k, v in params.items())]
    assert found, f'no {name} {params} on {part}'
    return found


def base(**params):
    return dict(dict(core_spec=0, cpu_bind='default', memory='default'),
                **params)


@pytest.mark.parametrize('part', ['haswell', 'knl'])
def test_slurm_directives(scripts, part):
    [text] = pick(scripts, 'DDSingleStream', part, **base(mode='buffered'))
    assert f'#SBATCH -C {part}' in text
    assert '#SBATCH --ntasks=1' in text and '#SBATCH --exclusive' in text
    assert re.search(r'^#SBATCH --qos=\S+', text, re.M)
    assert re.search(r'^srun sh -c .*iogap-rank: rank=', text, re.M)


@pytest.mark.parametrize('mode,write,read', [
    ('buffered', r'count=10000$', r'bs=1M$'),
    ('dsync', r'count=10000 oflag=dsync$', r'bs=1M$'),
    ('direct', r'count=10000 oflag=direct$', r'bs=1M iflag=direct$'),
])
def test_dd_command_line_per_mode(scripts, mode, write, read):
    [text] = pick(scripts, 'DDSingleStream', 'knl', **base(mode=mode))
    lines = text.splitlines()
    writes = [l for l in lines if 'dd if=/dev/zero' in l]
    reads = [l for l in lines if 'of=/dev/null' in l]
    assert len(writes) == 1 and re.search(write, writes[0])
    assert writes[0].strip().startswith('srun ')
    assert '/knl/view/bin/dd' in writes[0]      # the partition's Spack view
    assert len(reads) == 1 and re.search(read, reads[0])
    assert ('iogap_evict "rep$rep"' in text) == (mode != 'direct')


def test_core_spec_variant(scripts):
    [on] = pick(scripts, 'DDSingleStream', 'haswell',
                **base(mode='buffered', core_spec=4))
    [off] = pick(scripts, 'DDSingleStream', 'haswell', **base(mode='buffered'))
    assert '#SBATCH --core-spec=4' in on and '--core-spec' not in off


@pytest.mark.parametrize('part,cpus', [('haswell', 2), ('knl', 4)])
def test_cpu_bind_variant(scripts, part, cpus):
    [text] = pick(scripts, 'DDSingleStream', part,
                  **base(mode='buffered', cpu_bind='cores'))
    assert f'#SBATCH --cpus-per-task={cpus}' in text
    steps = [l for l in text.splitlines() if 'srun' in l]
    assert len(steps) == 3 and all(
        f'srun --cpus-per-task={cpus} --cpu-bind=cores' in s for s in steps)


def test_numactl_only_on_knl(scripts):
    [mcdram] = pick(scripts, 'DDSingleStream', 'knl',
                    **base(mode='dsync', memory='mcdram'))
    [dram] = pick(scripts, 'DDSingleStream', 'knl',
                  **base(mode='dsync', memory='dram'))
    assert 'numactl -m 1 ' in mcdram and 'numactl -m 0 ' in dram
    assert not any('numactl' in t for (n, p, part), t in scripts.items()
                   if part == 'haswell')


@pytest.mark.parametrize('part,freqs', [
    ('knl', '1000000 1100000 1200000 1300000 1400000'),
    ('haswell', '1200000 1400000 1600000 1800000 2000000 2300000'),
])
def test_frequency_sweep(scripts, part, freqs):
    [text] = pick(scripts, 'DDFrequencySweep', part, mode='buffered')
    assert f'for freq in {freqs}; do' in text
    assert re.search(r'srun --cpu-freq=\$freq \S+/dd if=/dev/zero', text)


@pytest.mark.parametrize('part,target', [('haswell', 'haswell'),
                                         ('knl', 'mic_knl')])
def test_spack_fixture_build_job(tmp_path, part, target):
    '''The tool stack is built by a job on the partition itself, once, and
    the checks call the binaries of its view.'''
    run = run_reframe(tmp_path, '--system', f'cori:{part}', '-n',
                      'DDSingleStream.*mode=direct', '--dry-run')
    assert run.returncode == 0, run.stdout
    [build] = glob.glob(os.path.join(run.out, 'stage', 'cori', part, 'spack',
                                     'ToolStack_*', 'rfm_build.sh'))
    text = open(build).read()
    env = f'/iogap-spack/{part}'
    assert f'#SBATCH -C {part}' in text
    assert f'export IOGAP_SPACK_TARGET={target}' in text
    assert re.search(r'export IOGAP_SPACK_OVERLAY=\S+/systems/spack/cori.yaml',
                     text)
    assert re.search(rf'export SPACK_USER_CONFIG_PATH=\S+{env}/', text)
    assert re.search(rf'^spack -e \S+{env} concretize -f$', text, re.M)
    assert re.search(rf'^spack -e \S+{env} install', text, re.M)
    assert re.search(rf'^cp \S+{env}/spack.lock spack.lock$', text, re.M)
    assert text.count('ToolStack') == 1
    for script in run.job_scripts().values():
        assert f'{env}/view/bin/dd ' in script
