'''A job script is laid out from named sections: only the measured command
(and its launcher) sits inside a timed step, whatever the order in which
families and variants add their lines. Proven on the job script of every
case of every profile, dry-run.'''

import re
import shutil

import pytest

from conftest import built_view, run_reframe
from iogap.core import steps
from iogap.core.jobscript import JobSections

#: A timed command: the launcher and its options, each with at most one
#: value (no launcher with the local one), the rank wrapper (tracing the
#: tool's bytes every so many), Darshan's
#: ``env``, one measured tool by its path or name, and the tool's
#: arguments, with nothing the shell would chain
_MEASURED = re.compile(
    r"^((srun|mpirun|mpiexec)( -\S+( [^-/.'\s]\S*)?)* )?"
    r"(\S*/ranked\.sh'?( --trace \d+)? )?"
    r"(env LD_PRELOAD=\S+ DARSHAN_LOGFILE=\S+ )?"
    r"'?(/\S*/)?(ior|mdtest|osu_\w+|fio)'?( [^;&|<>`]*)?$")

_STEP = re.compile(r'^iogap_(run|calibrate \d+) (.*?) -- (.*)$')


def timed_commands(text):
    '''``[(labels, command)]``: each timed step of a job script, checked to
    hold one command and nothing else; a problem raises AssertionError.'''
    lines = [line for line in text.splitlines() if line.strip()]
    found = []
    for i, line in enumerate(lines):
        if line.startswith('iogap_begin '):
            assert lines[i + 2:i + 3] == ['iogap_end'], \
                f'after {line!r} come {lines[i + 1:i + 4]}, not one command ' \
                f'and iogap_end'
            found.append((line.split(' ', 1)[1], lines[i + 1]))
        elif m := _STEP.match(line):
            found.append((m.group(2), m.group(3)))
        elif line == 'iogap_end':
            assert lines[i - 2].startswith('iogap_begin '), \
                f'iogap_end at line {i} ends no step'

    for labels, command in found:
        assert _MEASURED.match(command), \
            f'step {labels} times {command!r}, not a launched tool'

    return found


def test_a_step_holds_its_command_whatever_order_the_sections_fill():
    job = JobSections()
    job.step('srun ior -w', repeat=3, step='calibrate').after.append('rm c')
    main = job.step(step='write')
    job.step('srun ior -r', step='read').prepare.append('evict')
    main.after.append('bytes')
    # A variant that adds its set-up last still comes first
    job['setup'].append('lfs setstripe')
    job['teardown'].append('rm')
    job['probe'].append('probe')
    assert job.layout() == (
        ['lfs setstripe', 'probe',
         'iogap_calibrate 3 step=calibrate -- srun ior -w', 'rm c',
         steps.begin(step='write')],
        [steps.end(), 'bytes', 'evict',
         steps.run('srun ior -r', step='read'), 'rm'])


def test_steps_run_in_order_and_a_job_has_one_main_step():
    job = JobSections()
    job.step('srun osu -c', run='validate').prepare.append('p')
    job.step(run='measure')
    pre, post = job.layout()
    assert pre == ['p', steps.run('srun osu -c', run='validate'),
                   steps.begin(run='measure')]
    assert post == [steps.end()]
    with pytest.raises(ValueError):
        job.step(run='again')


def test_launcher_options_come_in_one_order():
    job = JobSections()
    job.launcher['binding'] += ['--cpu-bind=cores']
    job.launcher['placement'] += ['--distribution=block']
    job.launcher['cpu_freq'] = ['--cpu-freq=1200000']
    assert job.launcher_options() == ['--cpu-freq=1200000',
                                      '--distribution=block',
                                      '--cpu-bind=cores']


def test_the_checker_takes_launched_tools_and_refuses_anything_else():
    good = ('iogap_begin step=write\nsrun -n 4 /v/ranked.sh env '
            'LD_PRELOAD=/v/lib/libdarshan.so DARSHAN_LOGFILE=$PWD/d/w '
            '/v/bin/ior -w\niogap_end\n'
            'iogap_calibrate 5 step=calibrate -- mpirun -np 2 --bind-to core '
            './ranked.sh --trace 65536 /v/bin/ior -w\n'
            'iogap_run step=layout -- /v/bin/fio --name=layout\n')
    assert [labels for labels, _ in timed_commands(good)] == [
        'step=write', 'step=calibrate', 'step=layout']
    bad = 'iogap_begin step=write\nlfs setstripe -c 4 x\nsrun /v/ior\n' \
          'iogap_end\n'
    with pytest.raises(AssertionError, match='not one command'):
        timed_commands(bad)
    with pytest.raises(AssertionError, match='not a launched tool'):
        timed_commands('iogap_run step=read -- printf x > hints.txt\n')
    with pytest.raises(AssertionError, match='not a launched tool'):
        timed_commands('iogap_run step=read -- srun sh -c "lfs setstripe; '
                       '/v/bin/ior -r"\n')
    with pytest.raises(AssertionError, match='not a launched tool'):
        timed_commands('iogap_run step=read -- srun lfs getstripe ior -r\n')


#: What each profile's dry run leaves out: on Cori, IORBench beyond one node
#: (its scripts differ from the one-node ones only in task counts; the full
#: sweep is too many cases for CI)
SKIPPED = {'cori': ['-x', r'^IORBench.*%num_nodes=([2-9]|\d\d)']}

#: A measuring test's job sources the helpers (a judgement's does not)
_MEASURES = re.compile(r'^\. \S*job\.sh$', re.M)


@pytest.mark.reframe
@pytest.mark.parametrize('system', ['cori', 'minicori', 'minicluster',
                                    'localpair', 'anyhost'])
def test_every_case_times_only_its_measured_command(tmp_path, system):
    run = run_reframe(tmp_path, '--system', system, '--dry-run',
                      *SKIPPED.get(system, []), timeout=1800)
    assert run.returncode == 0, run.stdout[-3000:]
    scripts = run.job_scripts()
    assert scripts, run.stdout[-3000:]
    families = set()
    for (name, params, part), text in scripts.items():
        try:
            found = timed_commands(text)
        except AssertionError as err:
            raise AssertionError(f'{name} {params} on {part}: {err}')
        # dd-stream.sh labels its own steps; every other measuring test
        # times its main step in the job script
        if _MEASURES.search(text) and not name.startswith('DD'):
            assert found, f'{name} {params} on {part}: no timed step'
            families.add(name)
        assert not found or 'dd-stream.sh' not in text

    # Without the tools (no view, nothing on PATH) a host profile's other
    # families skip at set-up and write no script
    assert families or (system in ('localpair', 'anyhost') and
                        built_view() is None and not shutil.which('ior')), \
        sorted(scripts)
