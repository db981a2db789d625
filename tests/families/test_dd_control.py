'''The dd control's size is site data: the profile's ``dd_control_size``
reaches the job's command line (``--memory-count``), a bad one is refused
in one line, and the planner counts the control's bytes and time.'''

import re

import pytest

from conftest import copy_of_project, run_reframe
from iogap.site import profile
from iogap.dd.control import control_count
from iogap.errors import IogapError
from iogap.judge import references
from iogap.plan import inventory as cases, cost

MiB = 2**20


def test_the_control_is_the_profiles_size_in_whole_blocks_at_least_the_file():
    assert control_count(MiB, 256, '2g') == 2048
    assert control_count(MiB, 10000, '10000m') == 10000
    assert control_count(4 * MiB, 10, '10m') == 10       # rounded up: 3
    assert control_count(MiB, 4096, '1g') == 4096          # the file's


def test_a_size_that_is_not_one_is_a_clear_error():
    with pytest.raises(IogapError, match=r"^the memory copy's size "
                       r"\(dd_control_size\) '10 GB' is not a size"):
        control_count(MiB, 256, '10 GB')


@pytest.fixture
def cori_cases():
    profile.load(['--system', 'cori'], {})
    references.load('cori', profile.parts())
    return cases.measured()


def test_the_planner_counts_the_control(cori_cases):
    '''Each dd case's estimate holds its memory copies at the partition's
    memory bandwidth: twice the control, twice its time added.'''
    dd = {k: c for k, c in cori_cases.items()
          if c.family in ('DDSingleStream', 'DDFrequencySweep')}
    assert dd
    base = cost.resized(dd, {})
    bigger = cost.resized(dd, {'dd_control_size': '20000m'})
    for key, case in dd.items():
        x = case.part.extras
        copies = x['repetitions'] * 10000 * MiB
        assert base[key].how.endswith('+ control at 5000 MB/s'), base[key].how
        assert bigger[key].seconds - base[key].seconds == pytest.approx(
            copies / x['plan_memory_bandwidth'])


def test_a_paired_latency_costs_its_controls(cori_cases):
    osu = {k: c for k, c in cori_cases.items() if c.family == 'OSULatency'}
    costs = cost.costs(osu)
    paired = [c for c in costs.values() if c.case.params['placement'] in
              ('inter_node', 'cross_socket')]
    one = [c for c in costs.values()
           if c.case.params['placement'] == 'same_socket']
    assert paired and one
    # three repetitions of a control and a measured run, against one run
    assert {c.how for c in paired} == {'estimate: OSU fixed x 6 run(s)'}
    assert {c.how for c in one} == {'estimate: OSU fixed x 1 run(s)'}


@pytest.mark.reframe
def test_the_profiles_control_size_reaches_the_job(tmp_path):
    '''A profile that says 3g: each dd job's driver copies 3072 blocks of
    1 MiB (its file: 256), in a dry run of a copy of the project.'''
    repo = copy_of_project(tmp_path / 'repo')
    generic = repo / 'systems' / 'generic.py'
    text, n = re.subn(r"'dd_control_size': '\w+'", "'dd_control_size': '3g'",
                      generic.read_text())
    assert n == 1, 'systems/generic.py no longer sets dd_control_size'
    generic.write_text(text)
    run = run_reframe(tmp_path, '--system', 'anyhost', '-n',
                      '^DDSingleStream', '--dry-run', root=repo,
                      env={'PYTHONPATH': str(repo)})
    assert run.returncode == 0, run.stdout[-3000:]
    mains = [line for text in run.job_scripts().values()
             for line in text.splitlines() if 'dd-stream.sh' in line]
    assert mains, run.stdout[-3000:]
    for line in mains:
        assert '--count 256 ' in line and '--memory-count 3072 ' in line, \
            line
