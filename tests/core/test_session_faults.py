'''What a reframe invocation checks and leaves, under ReFrame's default
settings: every ``-S`` value refused in one line before anything runs,
and no file of ReFrame's own left in the temporary directory.'''

import glob
import os
import subprocess

import pytest

from conftest import ROOT, reframe_cmd
from iogap.core import session
from iogap.dd.stream import DDSingleStream
from iogap.errors import IogapError
from iogap.pio.mdtest import MDTestBench

BAD = [('count', 'abc', "'abc' is not a whole number"),
       ('count', '0', 'give a whole number of at least 1'),
       ('count', '-1', 'give a whole number of at least 1'),
       ('reads', '-2', 'give a whole number of at least 0'),
       ('block_size', 'abc', "'abc' is not a size above 0"),
       ('block_size', '0M', "'0M' is not a size above 0")]


@pytest.mark.parametrize('name,text,said', BAD)
def test_a_bad_setting_is_refused_naming_why(name, text, said):
    with pytest.raises((ValueError, IogapError), match=said):
        session._checked(DDSingleStream, name, text)


@pytest.mark.parametrize('test,name,text', [
    (DDSingleStream, 'count', '16'), (DDSingleStream, 'reads', '0'),
    (DDSingleStream, 'block_size', '1M'), (MDTestBench, 'file_bytes', '0'),
    (DDSingleStream, 'num_tasks', '0'), (DDSingleStream, 'nosuch', 'x')])
def test_a_good_setting_or_reframes_own_is_left_to_reframe(test, name,
                                                           text):
    session._checked(test, name, text)


def reframe(tmp_path, *args):
    '''reframe with ReFrame's default settings and a temporary directory
    of the test's own.'''
    env = {k: v for k, v in os.environ.items() if not k.startswith('RFM_')}
    (tmp_path / 'tmp').mkdir(exist_ok=True)
    (tmp_path / 'scratch').mkdir(exist_ok=True)
    env.update(TMPDIR=str(tmp_path / 'tmp'), IOGAP_OUTPUT=str(
        tmp_path / 'out'), IOGAP_SCRATCH=str(tmp_path / 'scratch'))
    return subprocess.run(reframe_cmd() + ['-C', 'reframe_config.py',
                                           *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


DD = ('-n', 'DDSingleStream.*%cpu_bind=default.*%darshan=off.*'
            '%mode=buffered', '-S', 'DDSingleStream.repetitions=1')


@pytest.mark.reframe
@pytest.mark.parametrize('name,text,said', BAD[:3] + BAD[4:5])
def test_a_bad_setting_stops_the_run_in_one_line(tmp_path, name, text,
                                                 said):
    '''``count=abc`` gave 65 lines and two tracebacks; ``count=0`` ran the
    profile's count, ``-1`` failed as "dd failed, no error message".'''
    proc = reframe(tmp_path, *DD, '-S', f'DDSingleStream.{name}={text}',
                   '-r')
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1 and 'Traceback' not in out, out
    [line] = [l for l in out.splitlines() if 'ERROR' in l]
    assert f'-S DDSingleStream.{name}={text}: ' in line and said in line
    assert not os.path.exists(tmp_path / 'out' / 'stage')


@pytest.mark.reframe
def test_a_listing_and_a_run_leave_nothing_in_the_temporary_directory(
        tmp_path):
    '''ReFrame logs its start to an ``rfm-*.log`` there, for every call:
    a listing now drops it, a run's log begins with it.'''
    listed = reframe(tmp_path, '-l')
    assert listed.returncode == 0, listed.stdout
    assert os.listdir(tmp_path / 'tmp') == []
    assert not os.path.exists(tmp_path / 'out')
    ran = reframe(tmp_path, *DD, '-S', 'DDSingleStream.count=16', '-r')
    assert ran.returncode == 0, ran.stdout
    assert os.listdir(tmp_path / 'tmp') == []
    [log] = glob.glob(str(tmp_path / 'out' / 'logs' / 'reframe_*.log'))
    text = open(log).read()
    assert text.index('Loading configuration file') < \
        text.index('Initializing runtime')
    assert f"Log file(s) saved in '{log}'" in ran.stdout
