'''Output that cannot hold a run's results is refused before anything is
measured (every place a run writes: a file, a broken link, read-only), and
a run whose perflog or run report could not be written is red. The rows
are in docs/faults.md.'''

import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, run_reframe
from iogap.history import runguard
from iogap.errors import IogapError
from test_nightly_faults import (dd_case, dd_run_measuring, one_error_line,
                                 small_fs)  # noqa: F401 (a fixture)

SYSTEM = {'name': 'anyhost', 'partitions': [{'name': 'default'}]}

#: Each place a run writes, relative to its output directory
PLACES = {'output directory': '', 'stage directory': 'stage',
          'job output directory': 'output', 'perflog directory': 'perflogs',
          'run report directory': 'reports', 'log directory': 'logs',
          'results database directory': 'db'}


def check(out, argv=('reframe', '-r')):
    runguard.check(list(argv), {}, SYSTEM, str(out),
                   str(out / 'db' / 'results.db'))


def spoil(path, how):
    '''Make ``path`` a file or a broken link where a directory belongs.'''
    if os.path.isdir(path):
        os.rmdir(path)
    if how == 'file':
        path.write_text('not a directory\n')
    else:
        os.symlink(path.parent / 'gone', path)


@pytest.mark.parametrize('how', ['file', 'broken link'])
@pytest.mark.parametrize('what', sorted(PLACES))
def test_every_place_a_run_writes_is_checked_before_it(tmp_path, what, how):
    out = tmp_path / 'out'
    out.mkdir()
    check(out)                          # all missing: all can be made
    spoil(out / PLACES[what] if PLACES[what] else out, how)
    with pytest.raises(IogapError) as err:
        check(out)
    line = str(err.value)
    assert '\n' not in line and line.startswith(what)
    assert ('is a file, not a directory: move it away' if how == 'file'
            else f'is a broken link to {tmp_path}') in line
    assert line.endswith('or set IOGAP_OUTPUT')


def test_a_place_under_a_file_cannot_be_created(tmp_path):
    out = tmp_path / 'out'
    (out / 'perflogs').mkdir(parents=True)
    spoil(out / 'perflogs' / 'anyhost', 'file')
    with pytest.raises(IogapError, match=r'perflog directory \S+/perflogs/'
                       r'anyhost/default cannot be created: its parent \S+ '
                       r'is a file'):
        check(out)


def test_options_move_the_places_they_name(tmp_path):
    out = tmp_path / 'out'
    stage = tmp_path / 'elsewhere'
    stage.write_text('')
    check(out)
    with pytest.raises(IogapError, match=f'stage directory {stage} is a '
                       f'file'):
        check(out, ('reframe', '-r', f'--stage={stage}'))
    with pytest.raises(IogapError, match=f'run report directory {stage} is '
                       f'a file'):
        check(out, ('reframe', '-r', '--report-file', f'{stage}/r.json'))


def test_a_perflog_that_cannot_take_a_line_is_refused(tmp_path):
    logs = tmp_path / 'out' / 'perflogs' / 'anyhost' / 'default'
    logs.mkdir(parents=True)
    (logs / 'DDSingleStream.log').mkdir()
    with pytest.raises(IogapError, match=r'perflog \S+DDSingleStream.log is '
                       r'a directory, not a file'):
        check(tmp_path / 'out')


def test_a_read_only_place_is_refused(tmp_path, small_fs):
    out = small_fs(size='4m', ro=True)
    with pytest.raises(IogapError, match=f'output directory {out} is not '
                       f'writable'):
        check(out)


@pytest.mark.reframe
@pytest.mark.parametrize('place', ['perflogs', 'reports'])
def test_a_place_that_is_a_file_stops_the_run_before_any_job(tmp_path,
                                                             place):
    '''Before, a perflogs file let the run pass (exit 0, no perflog) and a
    reports file failed it after all its measuring (``file exists``).'''
    out = tmp_path / 'out'
    out.mkdir()
    (out / place).write_text('')
    run = run_reframe(tmp_path, *dd_case('buffered'), '-r')
    assert run.returncode == 1
    [line] = [l for l in one_error_line(run) if l.startswith('ERROR')]
    assert f'{out / place} is a file, not a directory' in line
    assert not os.path.exists(out / 'stage')


@pytest.mark.parametrize('colour', [True, False])
@pytest.mark.parametrize('level', ['warning', 'error'])
def test_a_lost_record_is_noted_whatever_reframes_colours(monkeypatch,
                                                          colour, level):
    '''ReFrame colours its warnings by default, terminal or not: the
    guard once missed them (it took colour and prefix in one pass).'''
    from reframe.core import logging as rlog
    monkeypatch.setattr(rlog.Logger, 'handle', rlog.Logger.handle)
    monkeypatch.setattr(runguard, '_problems', [])
    runguard._note_lost_records()
    logger = rlog.Logger('iogap-test')
    logger.addHandler(rlog.logging.NullHandler())
    said = rlog.LoggerAdapter(logger)
    said.colorize = colour
    getattr(said, level)('could not log performance data for X: [Errno 20]')
    said.warning('another warning')
    assert runguard._problems == [
        'could not log performance data for X: [Errno 20]']


def default_colours(**env):
    '''The environment of a run with ReFrame's default settings.'''
    return {**{k: v for k, v in os.environ.items()
               if not k.startswith('RFM_')}, **env}


@pytest.mark.reframe
@pytest.mark.parametrize('colour', ['default', 'n'])
@pytest.mark.parametrize('place,said', [
    ('perflogs', 'could not log performance data'),
    ('reports', 'no run report was written: run report directory')])
def test_a_record_lost_during_the_run_makes_it_red(tmp_path, place, said,
                                                   colour):
    '''The perflogs or the reports become a file while the job measures:
    ReFrame only warns of the perflog (exit 0 before; with its default
    colours, until issue 51) and stops at the report with ``file exists``;
    the run fails naming why.'''
    (tmp_path / 'scratch').mkdir()
    out = tmp_path / 'out'
    env = default_colours(IOGAP_OUTPUT=str(out),
                          IOGAP_SCRATCH=str(tmp_path / 'scratch'))
    if colour != 'default':
        env['RFM_COLORIZE'] = colour
    proc = dd_run_measuring(env, tmp_path / 'scratch')
    shutil.rmtree(out / place, ignore_errors=True)
    (out / place).write_text('')
    text = proc.communicate(timeout=300)[0]
    assert proc.returncode == 1, text
    [line] = [runguard.plain(l) for l in text.splitlines()
              if 'iogap: the run is not complete' in l]
    assert said in line, text


@pytest.mark.reframe
def test_the_nightly_with_a_perflogs_file_is_red_before_measuring(tmp_path):
    out = tmp_path / 'out'
    out.mkdir()
    (out / 'perflogs').write_text('')
    (tmp_path / 'scratch').mkdir()
    env = dict(os.environ, IOGAP_OUTPUT=str(out),
               IOGAP_SCRATCH=str(tmp_path / 'scratch'),
               IOGAP_SELECT=' '.join(dd_case('buffered')))
    proc = subprocess.run([sys.executable, '-m', 'iogap', 'night'],
                          cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert [l for l in proc.stdout.splitlines() if l.startswith('RED')]
    assert 'perflogs is a file, not a directory' in proc.stdout + proc.stderr
    assert not os.path.exists(out / 'stage')
