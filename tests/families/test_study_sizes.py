'''Every size a profile prescribes runs somewhere: the generic profile's
own sizes in the suite (``./setup.sh suite``), every other profile's here,
for real on this machine. For each family, every value of its size
settings that a profile in systems/ (or a new profile, by the vocabulary's
defaults) gives is one run of the generic profile at that size: one case
per dd mode (Cori's 10 GB dd among them), one case of every other family
(Cori's 1 GiB IOR block per task among them, in IORBench and
in IORCollective's 16,384 interleaved segments). A size setting this table
does not know fails the unit test below, so a new one cannot go unrun.'''

import re

import pytest

from conftest import (built_view, cases, copy_of_project, needs_tools,
                      run_reframe)
from iogap.site import extras as schema, selection
from iogap.site import profile

#: check -> (its size settings, the variables that take them, a selection
#: of the check's cases that run at that size: -n's regex)
SIZED = {
    'DDSingleStream': (('dd_count', 'dd_block_size', 'dd_control_size'),
                       ('count', 'block_size', 'control_size'),
                       r'^DDSingleStream(?=.*%cpu_bind=cores)'),
    'IORBench': (('ior_block_size', 'ior_transfer_size'),
                 ('block_size', 'transfer_size'),
                 r'^IORBench(?=.*%cpu_bind=default)(?=.*%darshan=off)'
                 r'(?=.*%procs_per_node=2)(?=.*%layout=fpp)(?=.*%api=POSIX)'
                 r'(?=.*%mode=buffered)'),
    'IORCollective': (('ior_collective_transfer_size', 'ior_block_size'),
                      ('transfer_size', 'block_size'),
                      r'^IORCollective(?=.*%cpu_bind=default)'
                      r'(?=.*%api=MPIIO)(?=.*%io=collective)'),
    'MDTestBench': (('mdtest_files_per_proc', 'mdtest_file_bytes'),
                    ('files_per_proc', 'file_bytes'),
                    r'^MDTestBench(?=.*%cpu_bind=default)(?=.*%darshan=off)'
                    r'(?=.*%procs_per_node=2)(?=.*%directory=unique)'),
    'OSULatency': (('osu_max_size',), ('max_size',),
                   r'^OSULatency(?=.*%cpu_bind=default)'),
    'OSUAllreduce': (('osu_collective_max_size',), ('max_size',),
                     r'^OSUAllreduce(?=.*%cpu_bind=default)'),
    'FioThreads': (('fio_file_size', 'fio_block_size'),
                   ('file_size', 'block_size'), r'^FioThreads'),
}

#: Size settings that are parameters of a check (a case per value, for
#: the partitions of the run's system): setting -> (check, the case's
#: name for a value, a selection of the check's cases)
PARAMETERS = {
    'ior_cb_buffer_sizes': ('IORCollective', 'cb{}',
                            r'^IORCollective(?=.*%cpu_bind=default)'
                            r'(?=.*%api=MPIIO)'),
}

#: Size settings that cannot run here, and why
NOT_HERE = {
    'lustre_stripes': 'striping of a Lustre file system; none here',
}


def _size_settings():
    '''The vocabulary's settings that size what a case moves.'''
    return {key for key in schema.EXTRAS
            if key.endswith(('_size', '_sizes', '_count', '_bytes',
                             '_per_proc', '_stripes'))}


def _values(check):
    '''``{values: profiles}``: every distinct value of ``check``'s size
    settings, over every profile and a new profile's defaults.'''
    keys = SIZED[check][0]
    found = {tuple(schema.default(k) for k in keys): {'a new profile'}}
    for stem, path in selection.system_files().items():
        for system in profile.read(stem, path, {})[0]['systems']:
            for part in system['partitions']:
                values = tuple(part['extras'][k] for k in keys)
                found.setdefault(values, set()).add(stem)

    return found


def _sizes_to_run():
    '''(check, values, profiles): the values no suite run covers.'''
    runs = []
    for check in SIZED:
        for values, stems in sorted(_values(check).items(), key=str):
            if 'generic' not in stems:
                runs.append(pytest.param(
                    check, values, id=f'{check}-' + '-'.join(map(str, values)),
                    marks=[] if check == 'DDSingleStream' else [needs_tools]))

    return runs


def test_every_size_setting_of_the_vocabulary_is_run_or_says_why():
    known = {k for keys, _, _ in SIZED.values() for k in keys}
    assert _size_settings() - known - set(PARAMETERS) - set(NOT_HERE) == \
        set()
    assert set(PARAMETERS) | set(NOT_HERE) <= _size_settings()


def test_the_study_sizes_are_among_those_run():
    '''Cori's 10 GB dd and 1 GiB IOR block per task are not the generic
    profile's, so they run here.'''
    wanted = {(c, v) for c, v in [p.values[:2] for p in _sizes_to_run()]}
    assert ('DDSingleStream', (10000, '1M', '10000m')) in wanted
    assert ('IORBench', ('1g', '1m')) in wanted
    # Cori's collective cases: 1 GiB per task in 16,384 64 KiB segments
    assert ('IORCollective', ('64k', '1g')) in wanted


@pytest.mark.reframe
@pytest.mark.parametrize('check, values', _sizes_to_run())
def test_a_profile_size_runs_here(tmp_path, check, values):
    keys, variables, selection_ = SIZED[check]
    sized = [a for var, value in zip(variables, values)
             for a in ('-S', f'{check}.{var}={value}')]
    run = run_reframe(tmp_path, '-n', selection_, *sized,
                      '-S', f'{check}.repetitions=1', '-r', timeout=3600)
    found = cases(run, check)
    assert found, run.stdout
    failed = [(tc['display_name'], tc['fail_reason']) for tc in found
              if tc['result'] != 'pass']
    assert not failed, failed


def _parameter_values(key):
    '''Every value of the list setting ``key`` over every profile, less
    the generic profile's (the suite's).'''
    found, generic = set(), set(schema.default(key) or [])
    for stem, path in selection.system_files().items():
        for system in profile.read(stem, path, {})[0]['systems']:
            for part in system['partitions']:
                (generic if stem == 'generic' else found).update(
                    part['extras'][key])
    return sorted(found - generic)


@pytest.mark.reframe
@needs_tools
@pytest.mark.parametrize('key', sorted(PARAMETERS))
def test_every_profiles_parameter_size_runs_here(tmp_path, key):
    '''A copy of the project whose generic profile gives ``key`` every
    other profile's values (Cori's cb_buffer_size of 16 and 64 MiB): one
    case per value, run for real.'''
    check, case, selection_ = PARAMETERS[key]
    values = _parameter_values(key)
    assert values, f'every profile\'s {key} is the generic one\'s'
    repo = copy_of_project(tmp_path / 'repo')
    generic = repo / 'systems' / 'generic.py'
    text, n = re.subn(rf"'{key}': \[.*?\]", f"'{key}': {values!r}",
                      generic.read_text())
    assert n == 1, f'systems/generic.py no longer sets {key}'
    generic.write_text(text)
    names = '|'.join(case.format(v.lower()) for v in values)
    run = run_reframe(tmp_path, '-n', f'{selection_}(?=.*%io=({names})\\b)',
                      '-S', f'{check}.repetitions=1', '-r', root=repo,
                      timeout=1800, env={'PYTHONPATH': str(repo),
                                         'IOGAP_SPACK_VIEW':
                                         built_view() or ''})
    found = cases(run, check)
    assert {tc['display_name'].split('%io=')[1].split()[0]
            for tc in found} == {case.format(v.lower()) for v in values}, \
        run.stdout[-3000:]
    failed = [(tc['display_name'], tc['fail_reason']) for tc in found
              if tc['result'] != 'pass']
    assert not failed, failed
