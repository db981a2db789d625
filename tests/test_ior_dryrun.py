'''The IOR and mdtest family on Cori, proven by its dry-run job scripts.'''

import os
import re

import pytest

from conftest import _DRY, run_reframe

#: ReFrame matches -n against display names without spaces
SELECTION = [
    'IORBench%core_spec=0%cpu_bind=default',
    'IORBench%core_spec=4%cpu_bind=cores%striping=default%layout=fpp'
    '%api=POSIX%mode=direct',
    '^IORCollective%core_spec=0%cpu_bind=default',
    '^MDTestBench%core_spec=0%cpu_bind=default',
]
SWEEP = {'haswell': [1, 2, 4, 8, 16, 32],
         'knl': [1, 2, 4, 8, 16, 32, 64, 68]}


@pytest.fixture(scope='module')
def dry(tmp_path_factory):
    args = [a for p in SELECTION for a in ('-n', p)]
    run = run_reframe(tmp_path_factory.mktemp('ior-cori'), '--system', 'cori',
                      '--dry-run', *args)
    assert run.returncode == 0, run.stdout
    return run


@pytest.fixture(scope='module')
def scripts(dry):
    '''Like ``Run.job_scripts``, but a skipped case (also printed as DRY)
    has no script.'''
    scripts = {}
    for line in dry.stdout.splitlines():
        if m := _DRY.match(line):
            name, params, uid, syspart, env = m.groups()
            path = os.path.join(dry.out, 'stage', *syspart.split(':'), env,
                                f'{name}_{uid}', 'rfm_job.sh')
            if os.path.exists(path):
                with open(path) as fp:
                    scripts[(name, params, syspart.split(':')[1])] = fp.read()

    assert scripts, dry.stdout
    return scripts


def pick(scripts, name, part, **params):
    defaults = dict(core_spec=0, cpu_bind='default')
    if name.startswith('IOR'):
        defaults['striping'] = 'default'
    params = dict(defaults, **params)
    found = [text for (n, p, pt), text in scripts.items()
             if n == name and pt == part and
             all(f'%{k}={v}' in p.split() for k, v in params.items())]
    assert len(found) == 1, f'{name} {params} on {part}: {len(found)} found'
    return found[0]


def steps(text, tool='ior'):
    return [l for l in text.splitlines() if l.startswith('srun ') and
            f'/bin/{tool} ' in l]


@pytest.mark.parametrize('part', ['haswell', 'knl'])
def test_job_is_sized_for_the_largest_point(scripts, part):
    text = pick(scripts, 'IORBench', part, layout='fpp', api='POSIX',
                mode='buffered')
    top = SWEEP[part][-1]
    assert f'#SBATCH --ntasks={4 * top}\n' in text
    assert f'#SBATCH --ntasks-per-node={top}\n' in text
    assert '#SBATCH --time=2:0:0' in text and '#SBATCH --exclusive' in text


@pytest.mark.parametrize('part', ['haswell', 'knl'])
def test_every_point_is_a_step_with_its_geometry(scripts, part):
    text = pick(scripts, 'IORBench', part, layout='ssf', api='MPIIO',
                mode='fsync')
    geometry = [re.search(r'--nodes=(\d+) --ntasks=(\d+) '
                          r'--ntasks-per-node=(\d+)', l).groups()
                for l in steps(text)]
    points = [(n, p) for n in (1, 4) for p in SWEEP[part]]
    # A write step and a read step per point, in sweep order
    assert geometry == [(str(n), str(n * p), str(p)) for n, p in points
                        for _ in (0, 1)]


@pytest.mark.parametrize('layout,api,mode,flags', [
    ('fpp', 'POSIX', 'buffered', '-a POSIX -F -b 1g -t 1m'),
    ('fpp', 'POSIX', 'direct', '-a POSIX -F --posix.odirect -b 1g -t 1m'),
    ('ssf', 'MPIIO', 'fsync', '-a MPIIO -b 1g -t 1m'),
    ('ssf', 'HDF5', 'buffered', '-a HDF5 -b 1g -t 1m'),
])
def test_api_layout_and_mode_flags(scripts, layout, api, mode, flags):
    text = pick(scripts, 'IORBench', 'knl', layout=layout, api=api, mode=mode)
    writes = [l for l in steps(text) if ' -w -W -k' in l]
    reads = [l for l in steps(text) if ' -r -R -C -k' in l]
    assert len(writes) == len(reads) == 16
    for write, read in zip(writes, reads):
        assert f'/knl/view/bin/ior {flags} ' in write and flags in read
        seed = re.search(r' -G (\d+) ', write).group(1)
        assert f' -G {seed} -i 3 ' in write and f' -G {seed} -i 3 ' in read
        assert (' -e ' in write) == (mode == 'fsync') and ' -e ' not in read
        assert re.search(r'-O summaryFormat=JSON -O summaryFile=ior_n\d_p\d+'
                         r'_write\.json$', write)
    assert ('iogap_evict n4_p68' in text) == (mode != 'direct')


def test_mpiio_and_hdf5_direct_skip_with_the_reason(dry):
    skips = [l for l in dry.stdout.splitlines() if 'SKIP' in l and
             'IORBench' in l]
    assert len(skips) == 2 * 2 * 2 * 2      # layouts x APIs x stripes x parts
    assert all('IOR 4.0.0 silently ignores --posix.odirect' in l
               for l in skips)
    assert all('%mode=direct' in l and '%api=POSIX' not in l for l in skips)


@pytest.mark.parametrize('layout,count', [('fpp', 1), ('ssf', 72)])
def test_lustre_striping_variant(scripts, layout, count):
    tuned = pick(scripts, 'IORBench', 'haswell', layout=layout, api='POSIX',
                 mode='buffered', striping='tuned')
    default = pick(scripts, 'IORBench', 'haswell', layout=layout, api='POSIX',
                   mode='buffered')
    lines = tuned.splitlines()
    setstripe = lines.index(f'lfs setstripe -c {count} -S 1m "$IOGAP_DIR"')
    assert setstripe < min(i for i, l in enumerate(lines) if '/bin/ior' in l)
    assert 'lfs getstripe -d "$IOGAP_DIR"' in lines
    assert 'lfs ' not in default


def test_core_spec_and_binding_shrink_the_sweep(scripts):
    text = pick(scripts, 'IORBench', 'knl', core_spec=4, cpu_bind='cores',
                layout='fpp', api='POSIX', mode='direct')
    assert '#SBATCH --core-spec=4' in text
    assert '#SBATCH --ntasks-per-node=64\n' in text    # 68 - 4 cores
    assert '#SBATCH --cpus-per-task=4' in text
    assert all(l.startswith('srun --cpus-per-task=4 --nodes=') and
               ' --cpu-bind=cores ' in l for l in steps(text))
    assert '--ntasks-per-node=68' not in text


@pytest.mark.parametrize('api', ['MPIIO', 'HDF5'])
def test_collective_hints_and_geometry(scripts, api):
    text = pick(scripts, 'IORCollective', 'knl', api=api)
    assert '#SBATCH --ntasks=1024\n' in text             # 32 nodes x 32
    for size, nbytes in (('4m', 4194304), ('16m', 16777216),
                         ('64m', 67108864)):
        assert (f"printf '%s\\n' IOR_HINT__MPI__cb_buffer_size={nbytes} "
                f'IOR_HINT__MPI__romio_cb_write=enable '
                f'IOR_HINT__MPI__romio_cb_read=enable > hints_cb{size}.txt'
                in text)
    ior = steps(text)
    assert len(ior) == 2 * 5
    assert all('--nodes=32 --ntasks=1024 --ntasks-per-node=32' in l
               for l in ior)
    hint = f'--{api.lower()}.hintsFileName=hints_cb'
    assert [(' -c ' in l, hint in l) for l in ior[::2]] == [
        (False, False), (True, False), (True, True), (True, True),
        (True, True)]
    assert all(f'-a {api} ' in l and ' -F ' not in l for l in ior)


@pytest.mark.parametrize('directory', ['unique', 'shared'])
def test_mdtest_steps(scripts, directory):
    text = pick(scripts, 'MDTestBench', 'knl', directory=directory)
    md = steps(text, 'mdtest')
    assert len(md) == 2 * len(SWEEP['knl'])
    assert md[-1].startswith('srun --nodes=4 --ntasks=272 '
                             '--ntasks-per-node=68 ')
    assert md[-1].endswith(' -d "$IOGAP_DIR/md_n4_p68" -F -C -T -E -r '
                           '-n 5000 -i 3' + (' -u' if directory == 'unique'
                                             else '') +
                           ' -w 4096 -e 4096 -X')
    assert '#SBATCH --time=1:0:0' in text
