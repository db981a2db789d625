'''The Cori profile, proven by the job scripts a dry run generates: Slurm
directives, the variants' options, the study's fixed clocks, flat-mode
nodes for the memory variants, striping on the core-spec case, the
threads-on-one-core and affinity cases, the project's own tools from each
partition's view, and the Spack build as a job on each partition.'''

import glob
import os
import re

import pytest

from conftest import run_reframe
from iogap.core.variants import size_bytes

pytestmark = pytest.mark.reframe

#: The dd driver, from the iogap-tools package in the partition's view
DRIVER = r'/\S+/iogap-spack/(knl|haswell)/view/libexec/iogap/dd-stream\.sh'
#: Each rank times and traces its IOR (iogap/core/ranked.sh)
RANKED = r'\S+/libexec/iogap/ranked\.sh --trace \d+ '


@pytest.fixture(scope='module')
def scripts(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp('cori')
    run = run_reframe(tmp_path, '--system', 'cori', '-n',
                      '^DD|IORCollective.*%api=HDF5.*%io=collective|'
                      'IORCollective.*%api=MPIIO.*%io=cb|'
                      'IORBench.*%procs_per_node=48.*%layout=fpp.*%api=POSIX'
                      '.*%mode=buffered|'
                      'IORFrequencySweep|IORAffinity|FioThreads',
                      '--dry-run')
    assert run.returncode == 0, run.stdout
    found = run.job_scripts()
    assert found, run.stdout
    return found


def pick(scripts, name, part, **params):
    found = [text for (n, p, pt), text in scripts.items()
             if n == name and pt == part and
             all(f'%{k}={v}' in p.split() for k, v in params.items())]
    assert found, f'no {name} {params} on {part}'
    return found


def base(**params):
    return dict(dict(core_spec=0, cpu_bind='default', memory='default',
                     darshan='off'), **params)


@pytest.mark.parametrize('part', ['haswell', 'knl'])
def test_slurm_directives(scripts, part):
    [text] = pick(scripts, 'DDSingleStream', part, **base(mode='buffered'))
    assert f'#SBATCH -C {part}' in text
    assert '#SBATCH --ntasks=1' in text and '#SBATCH --exclusive' in text
    assert '#SBATCH --qos=regular' in text


@pytest.mark.parametrize('mode,flags', [
    ('buffered', '--evict drop_caches$|--evict fadvise$'),
    ('dsync', '--write-flags oflag=dsync$'),
    ('direct', '--write-flags oflag=direct --read-flags iflag=direct '
     '--odirect-probe$'),
])
def test_the_main_step_is_the_dd_stream_of_the_study(scripts, mode, flags):
    [text] = pick(scripts, 'DDSingleStream', 'knl', **base(mode=mode))
    [main] = [l for l in text.splitlines() if 'dd-stream.sh' in l]
    assert re.match(rf'srun {DRIVER} --dd ', main), main
    assert '. /global/' in text and '/knl/view/libexec/iogap/job.sh' in text
    assert '/iogap-spack/knl/view/bin/dd' in main or \
        re.search(r'--dd \S+/dd ', main)
    assert '--bs 1M --count 10000 --reps 3' in main
    assert re.search(flags, main), main


def test_core_spec_variant(scripts):
    [on] = pick(scripts, 'DDSingleStream', 'haswell',
                **base(mode='buffered', core_spec=4))
    [off] = pick(scripts, 'DDSingleStream', 'haswell', **base(mode='buffered'))
    assert '#SBATCH --core-spec=4' in on and '--core-spec' not in off
    assert 'iogap-job: cpus=' in on       # checked from inside the job


@pytest.mark.parametrize('part,cpus', [('haswell', 2), ('knl', 4)])
def test_cpu_bind_variant(scripts, part, cpus):
    [text] = pick(scripts, 'DDSingleStream', part,
                  **base(mode='buffered', cpu_bind='cores'))
    assert f'#SBATCH --cpus-per-task={cpus}' in text
    assert re.search(rf'^srun --cpus-per-task={cpus} --cpu-bind=cores '
                     rf'{DRIVER}', text, re.M)


def test_memory_variants_run_on_flat_mode_nodes(scripts):
    [mcdram] = pick(scripts, 'DDSingleStream', 'knl',
                    **base(mode='dsync', memory='mcdram'))
    [dram] = pick(scripts, 'DDSingleStream', 'knl',
                  **base(mode='dsync', memory='dram'))
    [cache] = pick(scripts, 'DDSingleStream', 'knl', **base(mode='dsync'))
    assert re.search(rf'^srun numactl -m 1 {DRIVER}', mcdram, re.M)
    assert re.search(rf'^srun numactl -m 0 {DRIVER}', dram, re.M)
    for text in (mcdram, dram):
        # ReFrame ANDs the partition's constraint with the variant's
        assert '#SBATCH --constraint=(knl)&(knl,quad,flat)' in text
    assert '#SBATCH -C knl' in cache and 'flat' not in cache
    assert not any('numactl' in t for (n, p, part), t in scripts.items()
                   if part == 'haswell')


@pytest.mark.parametrize('part,clocks', [
    ('knl', [1000000, 1100000, 1200000, 1300000, 1400000]),
    ('haswell', [1200000, 1300000, 1400000, 1600000, 1800000, 2000000,
                 2300000]),
])
def test_each_clock_of_the_sweep_is_pinned_by_its_job(scripts, part, clocks):
    for clock in clocks:
        [text] = pick(scripts, 'DDFrequencySweep', part, mode='dsync',
                      memory='dram' if part == 'knl' else 'default',
                      cpu_freq=clock)
        assert re.search(rf'^srun --cpu-freq={clock} (numactl -m 0 )?'
                         rf'{DRIVER} .*--reads 0', text, re.M)
    [hdf5] = pick(scripts, 'IORFrequencySweep', part, cpu_freq=clocks[-1])
    assert re.search(rf'^srun --cpu-freq={clocks[-1]} {RANKED}\S+/ior -a HDF5 ',
                     hdf5, re.M)
    # The probe runs like the tool: each rank reports the clock it ran at
    assert re.search(rf'^srun --cpu-freq={clocks[-1]} sh \S+/view/libexec/'
                     rf'iogap/rank-probe\.sh$', hdf5, re.M)


def test_core_spec_hdf5_case_writes_a_striped_shared_file(scripts):
    for core_spec in (0, 4):
        [text] = pick(scripts, 'IORCollective', 'knl', api='HDF5',
                      io='collective', striping='tuned', core_spec=core_spec,
                      cpu_bind='default')
        assert 'lfs setstripe -c 72 -S 1m "$IOGAP_DIR"' in text
        # Striping is set-up: done before the calibration launches and the
        # timed write step
        assert text.index('lfs setstripe') < text.index('lfs getstripe') < \
            text.index('iogap_calibrate') < text.index('iogap_begin step=write')
        assert '#SBATCH --ntasks=1024' in text
        assert '#SBATCH --ntasks-per-node=32' in text
        assert ('#SBATCH --core-spec=4' in text) == (core_spec == 4)
        # collective buffering aggregates small interleaved calls: each
        # task's 1 GiB as 16384 segments of one 64 KiB call
        assert '-b 64k -t 64k -s 16384' in text


def test_each_collective_buffer_limits_in_the_cb_cases(scripts):
    '''1024 tasks of 4 MiB per call are 128 MiB per node's aggregator: 4,
    16 and 64 MiB buffers take 32, 8 and 2 rounds a call.'''
    for size in ('4m', '16m', '64m'):
        [text] = pick(scripts, 'IORCollective', 'knl', api='MPIIO',
                      io=f'cb{size}', striping='default', core_spec=0,
                      cpu_bind='default')
        assert '-b 4m -t 4m -s 256' in text
        assert f'IOR_HINT__MPI__cb_buffer_size={size_bytes(size)}' in text
        assert 'cb_nodes' not in text      # the study set none


def test_read_3x_at_48_processes_per_node_runs_on_knl(scripts):
    [text] = pick(scripts, 'IORBench', 'knl', layout='fpp', api='POSIX',
                  mode='buffered', procs_per_node=48, num_nodes=1,
                  darshan='off', cpu_bind='default')
    assert '#SBATCH --ntasks-per-node=48' in text
    assert not [1 for (n, p, pt) in scripts if n == 'IORBench' and
                pt == 'haswell' and '%procs_per_node=48' in p.split()]


@pytest.mark.parametrize('part,target', [('haswell', 'haswell'),
                                         ('knl', 'mic_knl')])
def test_the_tool_stack_is_built_by_a_job_on_the_partition(tmp_path, part,
                                                           target):
    run = run_reframe(tmp_path, '--system', f'cori:{part}', '-n',
                      'DDSingleStream.*mode=direct', '--dry-run')
    assert run.returncode == 0, run.stdout
    [build] = glob.glob(os.path.join(run.out, 'stage', 'cori', part, 'spack',
                                     'ToolStack_*', 'rfm_build.sh'))
    text = open(build).read()
    assert f'#SBATCH -C {part}' in text
    assert re.search(rf'-m iogap spack build --system cori '
                     rf'--partition {part}$', text, re.M)
    assert re.search(rf'^cp \S+/iogap-spack/{part}/spack.lock \.$', text,
                     re.M)
    assert '/share/spack/setup-env.sh' in text
    # The build job's share of the partition is the profile's
    assert '#SBATCH --time=1:0:0' in text
    assert '#SBATCH --cpus-per-task=32' in text


def test_affinity_on_an_under_packed_knl_node_is_nerscs_tip(scripts):
    [bound] = pick(scripts, 'IORAffinity', 'knl', cpu_bind='cores')
    [default] = pick(scripts, 'IORAffinity', 'knl', cpu_bind='default')
    # srun -n 4 -c 64 --cpu-bind=cores: 16 KNL cores of 4 threads per task
    assert '#SBATCH --ntasks=4' in bound and '#SBATCH --ntasks=4' in default
    assert re.search(rf'^srun --cpus-per-task=64 --cpu-bind=cores {RANKED}\S+/ior '
                     r'-a POSIX -F ', bound, re.M)
    assert re.search(rf'^srun {RANKED}\S+/ior -a POSIX -F ', default, re.M)
    # The probe, from the view, is launched like IOR in both
    assert re.search(r'^srun --cpus-per-task=64 --cpu-bind=cores sh \S+/view'
                     r'/libexec/iogap/rank-probe\.sh$', bound, re.M)
    # Haswell's 32 cores cannot hold 4 x 16: no case there
    assert not [k for k in scripts if k[0] == 'IORAffinity' and
                k[2] == 'haswell']


@pytest.mark.parametrize('threads', [1, 8, 16, 32])
def test_fio_threads_share_one_core_with_psync_and_o_direct(scripts,
                                                            threads):
    [text] = pick(scripts, 'FioThreads', 'knl', threads=threads,
                  target='scratch')
    [main] = [l for l in text.splitlines() if '--name=read' in l and
              l.startswith('srun')]
    assert re.match(r'srun /\S+/knl/view/bin/fio --name=read ', main)
    for option in ('--thread', '--cpus_allowed="$IOGAP_CPU"',
                   '--ioengine=psync', '--direct=1', '--rw=read',
                   f'--numjobs={threads}', '--output-format=json'):
        assert f' {option} ' in f' {main} ', option
    # The CPU is the first the probe, launched like fio, may use
    assert re.search(r'^probe=\$\(srun sh \S+/rank-probe\.sh\)$', text,
                     re.M)


def test_every_job_has_a_time_limit_set_from_its_size(scripts):
    '''Cori gives each family its limit (dd 1 h, where its bytes at the
    floor rate of iogap.core.ending.time_limit would give 1:47:51): the
    profile's word is the site's.'''
    for (name, params, part), text in scripts.items():
        assert re.search(r'^#SBATCH --time=\S+$', text, re.M), \
            f'{name} {params} on {part} has no time limit'
    [text] = pick(scripts, 'DDSingleStream', 'knl', **base(mode='dsync'))
    assert '#SBATCH --time=1:0:0' in text
