'''System profiles: only the selected one is loaded; the schema refuses a
mistake in one line; the documentation is generated from the schema; a new
site is one file in systems/ and one in reference/.'''

import copy
import os
import runpy
import shutil
import subprocess

import pytest

from conftest import ROOT, Run, reframe_cmd
from iogap.site import profile
from iogap.errors import IogapError, ProfileError
from iogap.site import extras as schema, selection


@pytest.mark.parametrize('argv,environ,host,stem', [
    (['reframe', '--system', 'cori:knl'], {}, 'x', 'cori'),
    (['reframe', '--system=localpair'], {}, 'x', 'localpair'),
    (['reframe'], {'RFM_SYSTEM': 'cori'}, 'x', 'cori'),
    (['reframe'], {}, 'cori07', 'cori'),
    (['reframe'], {}, 'nid001234', 'generic'),     # any Cray compute node
    (['reframe'], {}, 'laptop', 'generic'),
    (['reframe', '--system', 'anyhost'], {}, 'cori07', 'generic'),
    (['reframe', '--system', 'nosuch'], {}, 'x', 'generic'),
])
def test_the_system_reframe_will_pick_is_the_one_loaded(argv, environ, host,
                                                        stem):
    assert profile.select(argv, environ, host)[0] == stem


def test_only_the_selected_file_runs(tmp_path, monkeypatch):
    systems = tmp_path / 'systems'
    shutil.copytree(os.path.join(ROOT, 'systems'), systems)
    (systems / 'broken.py').write_text('HOSTNAMES = []\nraise SystemExit(1)\n')
    monkeypatch.setattr(selection, 'SYSTEMS_DIR', str(systems))
    assert profile.load(['x', '--system', 'localpair'], {})
    with pytest.raises(SystemExit):
        profile.load(['x', '--system', 'broken'], {})


def test_defaults_are_filled_and_hardware_comes_from_the_processor(cori):
    [knl] = [p for p in cori if p.fullname == 'cori:knl']
    assert knl.num_cores == 68 and knl.extras['repetitions'] == 3
    assert knl.extras['core_spec_cores'] == 4


GOOD = {'name': 'p', 'scheduler': 'slurm', 'launcher': 'srun',
        'features': ['cpubind', 'corespec'],
        'resources': [{'name': 'core_spec', 'options': ['-S {cores}']}],
        'processor': {'num_cpus': 4, 'num_cpus_per_core': 1,
                      'num_sockets': 1, 'num_cpus_per_socket': 4},
        'extras': {'scratch_root': '/scratch/x',
                   'cpu_bind_options': ['--cpu-bind=cores']}}


#: Keys of the partition itself, not of its extras
OWN = ('resources', 'features', 'scheduler', 'max_jobs', 'env_vars',
       'featurs')


def broken(**changes):
    part = copy.deepcopy(GOOD)
    for key, value in changes.items():
        if key in OWN:
            part[key] = value
        elif key == 'processor':
            if value is None:
                del part['processor']
            else:
                part['processor'].update(value)
        else:
            part['extras'][key] = value
    return part


#: Every profile mistake tried, and the line that refuses it
MISTAKES = [
    (broken(dd_cuont=5), "extras: unknown key 'dd_cuont' (did you mean "
     "'dd_count'?"),
    (broken(dd_count='10'), "extras.dd_count: '10' is not of type "
     "'integer'"),
    (broken(dd_count=0), 'extras.dd_count: 0 is less than the minimum of 1'),
    (broken(dd_count=1024.0), "extras.dd_count: 1024.0 is not of type "
     "'integer' (write the integer 1024)"),
    (broken(dd_control_size='10 GB'), "extras.dd_control_size: '10 GB' "
     "does not match"),
    (broken(features=['cpufreq'], cpu_freqs_khz=[1.2e6, 2.4e6]),
     "extras.cpu_freqs_khz.0: 1200000.0 is not of type 'integer' (write the "
     "integer 1200000)"),
    (broken(features=['cpufreq'], cpu_freqs_khz=[1200000]),
     'extras.cpu_freqs_khz: [1200000] is too short'),
    (broken(scratch_root='scratch'), "extras.scratch_root: 'scratch' does "
     "not match '^/'"),
    (broken(ior_time_limit='an hour'), "extras.ior_time_limit: 'an hour' "
     "does not match"),
    (broken(account=42), "extras.account: 42 is not of type 'string'"),
    (broken(features=['cpubind', 'corespc']), "unknown feature 'corespc' "
     "(did you mean 'corespec'?"),
    (broken(features=['lustr']), "unknown feature 'lustr' (did you mean "
     "'lustre'?"),
    (broken(processor=None), "no 'processor' entry: add num_cpus"),
    (broken(processor={'num_cpus': 64.0}), "processor.num_cpus: 64.0 is not "
     "of type 'integer' (write the integer 64)"),
    (broken(processor={'num_sockets': None}), "processor.num_sockets: None "
     "is not of type 'integer'"),
    (broken(features=['spack'], spack_env='/s', spack_overlay='nosuch'),
     'extras.spack_overlay: systems/spack/nosuch.yaml: no such overlay '
     '(write it with `spack external find`'),
    (broken(features=['spack'], spack_env='/s'), "feature +spack needs "
     "extras['spack_overlay']"),
    (broken(cpu_bind_options=[]), "feature +cpubind needs "
     "extras['cpu_bind_options']"),
    (broken(resources=[]), "feature +corespec needs a 'core_spec' resource"),
    (broken(features=['multinode']), 'feature +multinode needs '
     'extras["max_nodes"] >= 2'),
    (broken(features=['cpufreq']), "feature +cpufreq needs "
     "extras['cpu_freqs_khz']"),
    (broken(features=['mcdram'], numa_nodes={'dram': 0}),
     "extras.numa_nodes: 'mcdram' is a required property"),
    # Site data ReFrame takes and then hangs on, fails inside, or drops
    (broken(max_jobs=-1), 'max_jobs: -1 is less than the minimum of 1'),
    (broken(max_jobs=0), 'max_jobs: 0 is less than the minimum of 1'),
    (broken(env_vars=[['OMPI_ALLOW_RUN_AS_ROOT']]), "env_vars.0: "
     "['OMPI_ALLOW_RUN_AS_ROOT'] is too short (each is [name, value])"),
    (broken(featurs=['mpi']), "unknown key 'featurs' (did you mean "
     "'features'? known keys: access,"),
    (broken(processor={'num_sockets': 2}), 'processor.num_cpus: 4, but 2 '
     'socket(s) x 4 CPUs are 8'),
    (broken(processor={'num_cpus_per_core': 3}), 'processor.num_cpus_per_'
     'core: 3 does not divide the 4 CPUs of a socket'),
    # A local partition's node is this host
    (broken(scheduler='local', processor={
        'num_cpus': 4096, 'num_cpus_per_socket': 4096}),
     f'processor.num_cpus: 4096, but this host, where its jobs run, has '
     f'{os.cpu_count()}'),
    (broken(scheduler='local', scratch_root='/nonexistent/dir/scratch',
            processor={'num_cpus': 1, 'num_cpus_per_socket': 1}),
     'extras.scratch_root: /nonexistent/dir/scratch: its parent '
     '/nonexistent/dir is no directory on this host'),
]


@pytest.mark.parametrize('part,message', MISTAKES)
def test_a_mistake_is_one_line_naming_system_partition_and_key(part,
                                                               message):
    with pytest.raises(ProfileError) as err:
        schema.validate_partition('site', part)
    assert str(err.value).startswith('system site, partition p: ')
    assert message in str(err.value) and '\n' not in str(err.value)


#: Overlays Spack would refuse after its bootstrap, and what says so
OVERLAYS = [
    (b'packages: [\n', 'bad.yaml:2: not YAML: expected the node content'),
    (b'', 'bad.yaml: is empty'),
    (b'\x7fELF\x02\x01\x01\x00\xff\xfe', 'bad.yaml: cannot be read as '
     'text'),
    (b'packagse: {}\ndefinitions: [{iogap_arch: [platform=linux]}]\n',
     "bad.yaml:1: unknown key 'packagse' (did you mean 'packages'?"),
    (b'packages: {}\n', 'bad.yaml: definitions: no iogap_arch'),
    (b'packages: {mpi: openmpi}\ndefinitions: [{iogap_arch: [x]}]\n',
     "bad.yaml:1: packages.mpi: 'openmpi' is not of type 'object'"),
]


@pytest.mark.parametrize('text,message', OVERLAYS)
def test_an_overlay_is_read_when_the_profile_loads(tmp_path, monkeypatch,
                                                   text, message):
    (tmp_path / 'bad.yaml').write_bytes(text)
    monkeypatch.setattr(schema, 'OVERLAYS', str(tmp_path))
    with pytest.raises(ProfileError) as err:
        schema.validate_partition('site', broken(spack_overlay='bad'))
    said = str(err.value)
    assert said.startswith('system site, partition p: extras.spack_'
                           'overlay: ') and '\n' not in said
    assert message in said, said
    monkeypatch.undo()
    for name in ('generic', 'cori'):
        schema.validate_partition('site', broken(spack_overlay=name))


def systems_with(tmp_path, monkeypatch, text):
    '''A systems/ holding the generic profile with ``text`` appended.'''
    systems = tmp_path / 'systems'
    shutil.copytree(os.path.join(ROOT, 'systems'), systems)
    with open(systems / 'generic.py', 'a') as fp:
        fp.write(text)
    monkeypatch.setattr(selection, 'SYSTEMS_DIR', str(systems))
    return systems / 'generic.py'


@pytest.mark.parametrize('text,message', [
    ("import copy\nsite_configuration['systems'][0]['partitions'].append("
     "copy.deepcopy(partition))\n", "system anyhost: two partitions are "
     "named 'default': ReFrame would drop the second"),
    ("site_configuration['systems'][0]['descrr'] = 'x'\n", "system anyhost: "
     "unknown key 'descrr' (did you mean 'descr'?"),
    ("partition['featurs'] = ['mpi']\n", "system anyhost, partition "
     "default: unknown key 'featurs'"),
    ("site_configuration['environments'] = [{'name': 'builtin', 'featurs': "
     "['tools']}]\n", "environment builtin: unknown key 'featurs' (did you "
     "mean 'features'?"),
])
def test_a_system_mistake_names_its_file_and_line(tmp_path, monkeypatch,
                                                  text, message):
    path = systems_with(tmp_path, monkeypatch, text)
    with pytest.raises(ProfileError) as err:
        profile.load(['x', '--system', 'anyhost'], {})
    assert message in str(err.value) and '\n' not in str(err.value)
    assert err.value.path == str(path) and err.value.line


def test_a_core_spec_that_leaves_no_core_is_said_once(tmp_path, monkeypatch,
                                                      capsys):
    '''Its variant is not generated, and the load says why, once.'''
    systems_with(tmp_path, monkeypatch, (
        "partition['features'].append('corespec')\n"
        "partition['resources'] = [{'name': 'core_spec', 'options': "
        "['--core-spec={cores}']}]\n"
        f"partition['extras']['core_spec_cores'] = {os.cpu_count()}\n"))
    for _ in range(2):
        profile.load(['x', '--system', 'anyhost'], {})
        [part] = profile.parts()
        assert 'corespec' not in part.features
    [said] = capsys.readouterr().err.splitlines()
    assert said.endswith(f'system anyhost, partition default: no core-spec '
                         f'variant: extras.core_spec_cores ({os.cpu_count()})'
                         f' leaves none of the node\'s {os.cpu_count()} cores '
                         f'to the job'), said


def test_a_site_feature_declared_as_its_own_is_not_refused():
    schema.validate_partition('site', broken(
        features=['cpubind', 'gpu'], site_features=['gpu']))


def profiles(tmp_path, monkeypatch, **patterns):
    '''A systems/ of the generic profile and one profile per
    ``name=[patterns]``.'''
    systems = tmp_path / 'systems'
    systems.mkdir()
    shutil.copy(os.path.join(ROOT, 'systems', 'generic.py'), systems)
    for name, pats in patterns.items():
        (systems / f'{name}.py').write_text(f'HOSTNAMES = {pats!r}\n')
    monkeypatch.setattr(selection, 'SYSTEMS_DIR', str(systems))


def test_a_host_two_profiles_claim_is_refused_naming_both(tmp_path,
                                                          monkeypatch):
    profiles(tmp_path, monkeypatch, alpha=[r'^login\d+$'],
             beta=[r'^log', r'^x'])
    with pytest.raises(ProfileError) as err:
        profile.select(['reframe'], {}, 'login3')
    assert str(err.value) == (
        'host login3 matches the HOSTNAMES of 2 profiles (alpha: '
        '^login\\d+$; beta: ^log, ^x): narrow the patterns, or pass --system')
    assert profile.select(['reframe', '--system', 'beta'], {},
                          'login3')[0] == 'beta'


def test_a_slurm_host_no_profile_claims_is_refused_naming_them(
        tmp_path, monkeypatch):
    profiles(tmp_path, monkeypatch, alpha=[r'^login\d+$'], beta=[])
    conf = tmp_path / 'slurm.conf'
    conf.write_text('ClusterName=x\n')
    environ = {'SLURM_CONF': str(conf)}
    with pytest.raises(ProfileError) as err:
        profile.select(['reframe'], environ, 'daint-ln1')
    assert str(err.value) == (
        f'host daint-ln1 runs Slurm ({conf}) but no profile\'s HOSTNAMES '
        f'match it (alpha: ^login\\d+$; beta: none): add a pattern, write a '
        f'profile (iogap profile new <system>), or pass --system '
        f'anyhost for the generic one')
    assert profile.select(['reframe', '--system', 'anyhost'], environ,
                          'daint-ln1')[0] == 'generic'
    if not any(os.path.exists(p) for p in profile.SLURM_CONFS):
        assert profile.select(['reframe'], {}, 'daint-ln1')[0] == 'generic'


def test_account_qos_reservation_and_mpi_type_are_profile_data():
    fragment = profile.load(['x', '--system', 'cori'],
                            {'IOGAP_ACCOUNT': 'm1234',
                             'IOGAP_RESERVATION': 'iogap'})
    [knl] = [p for p in fragment['systems'][0]['partitions']
             if p['name'] == 'knl']
    assert {'--qos=regular', '--account=m1234', '--reservation=iogap'} <= \
        set(knl['access'])
    fragment = profile.load(['x', '--system', 'minicori'], {})
    part = fragment['systems'][0]['partitions'][0]
    assert ['SLURM_MPI_TYPE', 'pmix'] in part['env_vars']
    assert not any(a.startswith('--account') for a in part['access'])


def test_the_good_partition_and_the_shipped_profiles_pass():
    schema.validate_partition('site', GOOD)
    for name in profile.system_names():
        profile.load(['x', '--system', name], {})


def test_docs_table_is_generated_from_the_schema():
    generate = runpy.run_path(os.path.join(ROOT, 'docs', 'generate.py'))
    with open(os.path.join(ROOT, 'docs', 'reference', 'profile.md')) as fp:
        assert generate['profile']() in fp.read(), (
            'regenerate docs/reference/profile.md: python docs/generate.py '
            'profile')


@pytest.mark.reframe
def test_a_new_site_is_one_file_in_systems_and_one_in_reference(tmp_path):
    '''A fictional two-partition Slurm system made from the template; its
    dry-run job scripts carry core-spec, binding, clock and placement.'''
    repo = tmp_path / 'repo'
    shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns(
        '.git', '.venv', 'output', 'build', '__pycache__'))
    text = (repo / 'systems' / '_template.py').read_text()
    (repo / 'systems' / 'acme.py').write_text(
        text.replace("'name': 'template'", "'name': 'acme'"))
    (repo / 'reference' / 'acme.yaml').write_text(
        'system: acme\nratios:\n- {name: big_over_cpu_direct, numerator: '
        '{test: DDSingleStream, partition: big, params: {mode: direct}, '
        'var: write_bw}, denominator: {test: DDSingleStream, partition: cpu, '
        'params: {mode: direct}, var: write_bw}, ref: [1.0, -0.3, 0.3], '
        'unit: ratio, provenance: test}\nnoise:\n- {var: write_bw, cv: 0.05, '
        'source: test}\n')
    out = tmp_path / 'out'
    proc = subprocess.run(
        reframe_cmd() + ['-C', 'reframe_config.py', '--system', 'acme', '-n',
                         'DDSingleStream|DDFrequencySweep|RatioCheck',
                         '--dry-run'],
        cwd=repo, capture_output=True, text=True, timeout=300,
        env=dict(os.environ, IOGAP_OUTPUT=str(out), RFM_COLORIZE='n',
                 IOGAP_HOME=str(repo)))
    run = Run(proc, str(out))
    assert proc.returncode == 0, run.stdout + proc.stderr
    scripts = run.job_scripts()
    texts = '\n'.join(scripts.values())
    assert '#SBATCH --core-spec=2' in texts
    assert '--cpu-bind=cores' in texts and '#SBATCH --cpus-per-task=2' in \
        texts
    assert '--cpu-freq=1200000' in texts and '--cpu-freq=2500000' in texts
    assert '#SBATCH -C bigmem' in texts and '#SBATCH -p cpu' in texts
    assert 'RatioCheck %ratio=big_over_cpu_direct' in run.stdout


def test_imported_without_a_run_the_parameters_span_every_profile():
    from iogap.dd.stream import DDSingleStream
    # Cori's four specialized cores and the minicluster's one, whichever
    # profile a test loaded before
    assert {0, 1, 4} <= set(DDSingleStream.param_space['core_spec'])
    # A run's variant numbers need its own span before any check imports
    profile.load(['x', '--system', 'localpair'], {})
    with pytest.raises(IogapError, match='span every profile, not '
                       'localpair: their variant numbers'):
        profile.parametrize(profile.current())
