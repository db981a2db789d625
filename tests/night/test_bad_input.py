'''Bad input at every entry point that reads it: the planner's options and
variables, the nightly's variables, the system profiles and the reference
files. Each is one line naming what is wrong, where (file:line where there
is a file) and how to mend it, a non-zero exit and no traceback; a broken
profile stops no other system's commands. docs/faults.md lists them.'''

import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from iogap.site import profile
from iogap.__main__ import main as iogap
from iogap.errors import EXIT, IogapError, ProfileError, ReferenceFileError
from iogap.site import selection
from iogap.judge import references

#: A placement key misspelt inside a nested extra
TYPO = ('site_configuration["systems"][0]["partitions"][0]["extras"]'
        '["osu_placement"] = {"same_sokcet": ["-x"]}\n')


def clean_env(**more):
    '''This process's environment without the project's settings.'''
    env = {k: v for k, v in os.environ.items()
           if not k.startswith('IOGAP_') and k != 'SLURM_CONF'}
    return dict(env, SLURM_CONF='', **more)


def run(*argv, cwd=ROOT, **env):
    '''``python -m *argv`` as a cron runs it; a hang fails the test.'''
    return subprocess.run([sys.executable, '-m', *argv], cwd=cwd,
                          env=clean_env(**env), capture_output=True,
                          text=True, timeout=120)


def one_line(proc, *said):
    '''The command failed with one line on stderr holding ``said``.'''
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0, text
    assert 'Traceback' not in text, text
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, text
    assert all(s in lines[0] for s in said), lines[0]
    return lines[0]


PLANS = [
    (['--node-hours', 'nan'], {}, "--node-hours: 'nan': give node-hours "
     "above 0"),
    (['--node-hours', '0'], {}, "'0': give node-hours above 0"),
    (['--node-hours', '-5'], {}, "'-5': give node-hours above 0"),
    (['--node-hours', 'inf'], {}, "'inf': give node-hours above 0"),
    (['--node-hours', 'nan%'], {}, "'nan%': give a share of the full night"),
    (['--node-hours', 'x=1,x=2'], {}, 'x is given twice'),
    (['--wall', '0s'], {}, "--wall: '0s': give a wall time above 0"),
    (['--node-hours', '1', '--date', '2026-13-45'], {},
     "--date: '2026-13-45' is not a date (month must be in 1..12): give "
     "YYYY-MM-DD"),
    (['--node-hours', '1', '--canaries', '('], {},
     "--canaries: '(' is not a regular expression"),
    (['--node-hours', '1', '--within', '('], {},
     "--within: '(' is not a regular expression"),
    (['--node-hours', '1', '--night', '-3'], {},
     "--night: '-3': give a whole number of at least 0"),
    ([], {'IOGAP_NIGHT_NODE_HOURS': 'nan'},
     "IOGAP_NIGHT_NODE_HOURS: 'nan': give node-hours above 0"),
    ([], {'IOGAP_NIGHT_WALL': '0'}, "IOGAP_NIGHT_WALL: '0': give a wall "
     "time above 0"),
    (['--node-hours', '1'], {'IOGAP_CANARIES': '('},
     "IOGAP_CANARIES: '(' is not a regular expression"),
    # an "off" word asked for a sweep (and GitLab runs the sweep job)
    (['--node-hours', '1'], {'IOGAP_NIGHT_SWEEP': '0'},
     "IOGAP_NIGHT_SWEEP: '0': to sweep no node, leave it unset"),
    # a partition the profile lacks: the others would be planned unbounded
    (['--node-hours', 'knl=5'], {}, "names partition 'knl', which anyhost "
     "does not have: give one of default"),
    # a plan spans every partition: one named was silently ignored
    (['--system', 'cori:knl', '--node-hours', '100'], {},
     '--system cori:knl: a plan spans every partition'),
]


@pytest.mark.parametrize('argv,env,said', PLANS,
                         ids=[' '.join([*a, *(f'{k}={v}' for k, v in
                                               e.items())])
                              for a, e, _ in PLANS])
def test_a_bad_plan_input_is_one_line(argv, env, said):
    one_line(run('iogap', 'plan', 'night', *argv, **env), said)


def test_a_plan_with_nowhere_to_go_or_no_history_to_read_is_one_line(
        tmp_path):
    garbage = tmp_path / 'results.db'
    garbage.write_bytes(os.urandom(3000))

    def plan(*argv):
        return run('iogap', 'plan', *argv)
    # a history that cannot be read was taken for none: a plan of nothing ran
    one_line(plan('night', '--node-hours', '1', '--db', str(garbage)),
             f'results database {garbage} is not an SQLite database: no '
             f'plan is made of it')
    one_line(plan('night', '--node-hours', '1', '--json', str(tmp_path)),
             f'--json {tmp_path}: cannot write it (Is a directory)')
    notes = tmp_path / 'notes.txt'
    notes.write_text('not a report\n')
    one_line(plan('ran', str(notes)), f'{notes}: not JSON')


NIGHTS = [
    ({'IOGAP_HISTORY_NIGHTS': 'abc'}, "IOGAP_HISTORY_NIGHTS: 'abc' is not a "
     "whole number"),
    ({'IOGAP_NIGHT_NODE_HOURS': 'nan'}, "IOGAP_NIGHT_NODE_HOURS: 'nan': give "
     "node-hours above 0"),
    ({'IOGAP_SELECT': '-n "DDSingleStream'}, 'IOGAP_SELECT: \'-n "DDSingle'
     'Stream\' cannot be split into words (No closing quotation)'),
    ({'IOGAP_NIGHT_JOB': '../elsewhere'}, "IOGAP_NIGHT_JOB: '../elsewhere': "
     "give a name"),
    ({'IOGAP_REFERENCE_DIR': '/nonexistent'}, "IOGAP_REFERENCE_DIR: "
     "'/nonexistent' is not a directory (it does not exist)"),
    ({'IOGAP_SYSTEM': 'nosuch'}, "IOGAP_SYSTEM=nosuch: no profile's system "
     "has that name: give one of anyhost, cori"),
    ({'IOGAP_NIGHT_PARTITION': 'knl'}, 'IOGAP_NIGHT_PARTITION=knl: anyhost '
     'has no such partition: give one of default'),
    ({'IOGAP_NIGHT_SWEEP': 'no'}, "IOGAP_NIGHT_SWEEP: 'no': to sweep no "
     "node, leave it unset"),
    ({'IOGAP_NIGHT_SELECT': '-n DDSingleStream@0',
      'IOGAP_NIGHT_EXTRAS': 'plan_night'}, "IOGAP_NIGHT_EXTRAS: 'plan_night'"
     ": give key=value pairs"),
]


@pytest.mark.parametrize('env,said', NIGHTS, ids=[next(iter(e))
                                                   for e, _ in NIGHTS])
def test_a_bad_nightly_variable_is_one_red_line_before_anything_runs(
        tmp_path, env, said):
    history = tmp_path / 'history'
    proc = run('iogap', 'night', IOGAP_OUTPUT=str(tmp_path / 'out'),
               IOGAP_RESULTS_DB=str(history / 'results.db'), **env)
    assert one_line(proc, said).startswith('iogap night: ')
    assert proc.returncode == EXIT['input']
    assert 'reframe' not in proc.stdout
    assert not history.exists() and not (tmp_path / 'out').exists()


def test_a_verdict_on_reframe_output_that_is_not_there_is_one_line(
        tmp_path):
    '''Its skip reasons were taken for none: a green verdict.'''
    report = os.path.join('tests', 'data', 'plan',
                          'planned-night-minicluster.json')
    for where, said in ((tmp_path / 'none.out', 'is not a file (it does not '
                         'exist)'), (tmp_path, 'is not a file')):
        proc = run('iogap', 'verdict', report, '--stdout', str(where))
        one_line(proc, f"'{where}' {said}")
        assert proc.returncode == EXIT['input']


@pytest.fixture
def systems(tmp_path, monkeypatch):
    '''A systems/ of its own: the shipped profiles, one of them to break.'''
    path = tmp_path / 'systems'
    shutil.copytree(os.path.join(ROOT, 'systems'), path)
    monkeypatch.setattr(selection, 'SYSTEMS_DIR', str(path))
    return path


def lines_of(path):
    return path.read_text().count('\n')


@pytest.mark.parametrize('added,said', [
    ('x = (\n', "syntax error: '(' was never closed: mend that line"),
    ('undefined + 1\n', "NameError: name 'undefined' is not defined: the "
     "file stops there"),
    (TYPO, "system localpair, partition all: extras.osu_placement: unknown "
     "key 'same_sokcet' (did you mean 'same_socket'?"),
    ('site_configuration["systems"][0]["partitions"][1]["extras"]'
     '["plan_node_bandwidth"] = float("nan")\n', 'extras.plan_node_bandwidth:'
     ' nan is not of type \'number\''),
    ('del site_configuration\n', "'site_configuration' is a required "
     "property: see systems/_template.py"),
])
def test_a_mistake_in_a_profile_is_one_line_with_its_file_and_line(
        systems, added, said):
    path = systems / 'localpair.py'
    with open(path, 'a') as fp:
        fp.write(added)
    with pytest.raises(ProfileError) as err:
        profile.load(['x', '--system', 'localpair'], {})
    assert said in str(err.value) and '\n' not in str(err.value)
    assert err.value.path == os.path.relpath(path, ROOT) \
        if str(path).startswith(ROOT) else str(path)
    if 'syntax' in said or 'NameError' in said:
        assert err.value.line == lines_of(path)


@pytest.mark.parametrize('hostnames,said', [
    ('["("]', "HOSTNAMES: '(' is not a regular expression (missing ), "
     "unterminated subpattern at position 0): escape the character"),
    ('"login1"', "HOSTNAMES: 'login1' is not a list of strings"),
    ('[HOST]', 'HOSTNAMES: give a literal list of regular expressions'),
])
def test_unreadable_hostnames_claim_no_host_and_stop_only_their_profile(
        systems, capsys, hostnames, said):
    path = systems / 'localpair.py'
    path.write_text(path.read_text().replace('HOSTNAMES = []',
                                             f'HOSTNAMES = {hostnames}'))
    line = path.read_text().splitlines().index(f'HOSTNAMES = {hostnames}') + 1
    # every other host, and every other system, goes on as before
    assert profile.select(['reframe'], {}, 'laptop')[0] == 'generic'
    [notice] = capsys.readouterr().err.splitlines()
    assert notice.startswith(f'iogap: {path}:{line}: {said}') and \
        notice.endswith('localpair claims no host until it is mended')
    assert profile.load(['x', '--system', 'cori'], {})
    with pytest.raises(ProfileError, match=re.escape(f':{line}: '
                                                     f'{said[:20]}')):
        profile.load(['x', '--system', 'localpair'], {})


def test_a_syntax_error_in_a_sibling_stops_no_other_system(systems, capsys):
    with open(systems / 'localpair.py', 'a') as fp:
        fp.write('x = (\n')
    assert profile.select(['reframe'], {}, 'laptop')[0] == 'generic'
    assert 'syntax error' in capsys.readouterr().err
    # the parameters span the profiles that load, with a notice
    profile._every_shipped_part.cache_clear()
    try:
        names = {p.fullname.split(':')[0]
                 for p in profile._every_shipped_part()}
    finally:
        profile._every_shipped_part.cache_clear()
    assert 'cori' in names and 'localpair' not in names
    assert 'its partitions are left out until it is mended' in \
        capsys.readouterr().err


@pytest.fixture
def repo(tmp_path):
    '''A copy of the project whose localpair profile has a schema error.'''
    path = tmp_path / 'repo'
    shutil.copytree(ROOT, path, ignore=shutil.ignore_patterns(
        '.git', '.venv', 'output', 'build', '__pycache__'))
    with open(path / 'systems' / 'localpair.py', 'a') as fp:
        fp.write(TYPO)
    return path


def test_a_broken_sibling_profile_stops_no_other_systems_command(repo):
    report = os.path.join('tests', 'data', 'plan',
                          'planned-night-minicluster.json')
    proc = run('iogap', 'rebaseline', report, '--dry-run', cwd=repo)
    assert proc.returncode == 0 and '+++ b/reference/minicluster.yaml' in \
        proc.stdout, proc.stdout + proc.stderr
    audit = run('iogap', 'audit', 'reference/cori.yaml', cwd=repo)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    for proc in (proc, audit):
        [notice] = [line for line in proc.stderr.splitlines()
                    if 'localpair' in line]
        assert notice.startswith('iogap: systems/localpair.py:') and \
            "unknown key 'same_sokcet'" in notice


@pytest.mark.parametrize('argv,environ', [
    (['reframe', '--system', 'generic'], {}),
    (['reframe', '--system=generic:default'], {}),
    (['reframe'], {'RFM_SYSTEM': 'generic'}),
])
def test_reframes_builtin_generic_system_is_refused_naming_ours(argv,
                                                                environ):
    '''ReFrame would run its builtin system: every check skipped with a
    key error.'''
    with pytest.raises(ProfileError, match="--system generic is ReFrame's "
                       "builtin system, not a profile: give --system "
                       "anyhost"):
        profile.select(argv, environ, 'laptop')


def test_a_job_option_from_the_environment_is_one_word():
    with pytest.raises(IogapError, match="IOGAP_ACCOUNT: 'm1\\\\nrm -rf ~': "
                       "give one word"):
        profile.load(['x', '--system', 'cori'],
                     {'IOGAP_ACCOUNT': 'm1\nrm -rf ~'})


@pytest.mark.parametrize('content,said', [
    (b'system: anyhost\n\xc6\xfe\n', ':2: byte 17 (0xc6) is not UTF-8 '
     'text: a reference file is YAML; restore it (a backup)'),
    (None, ': cannot be read (Is a directory): give a reference file'),
])
def test_a_reference_file_that_is_no_text_is_one_line(tmp_path, capsys,
                                                       monkeypatch, content,
                                                       said):
    path = tmp_path / 'anyhost.yaml'
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    monkeypatch.setenv('IOGAP_REFERENCE_DIR', str(tmp_path))
    with pytest.raises(ReferenceFileError) as err:
        references.load('anyhost', [])
    assert str(err.value).startswith(f'{path}{said}')
    assert iogap(['audit', str(path)]) == EXIT['input']
    assert capsys.readouterr().err.splitlines() == [
        f'iogap audit: {err.value}']


def test_a_reference_directory_that_is_not_there_is_refused(monkeypatch):
    monkeypatch.setenv('IOGAP_REFERENCE_DIR', '/nonexistent')
    with pytest.raises(ReferenceFileError, match="IOGAP_REFERENCE_DIR: "
                       "'/nonexistent' is not a directory"):
        references.load('anyhost', [])


def test_a_split_nights_job_name_is_a_good_name():
    '''The planner joins the partitions of the job across them with '+'
    (iogap.plan.jobs): the nightly takes that name back.'''
    from iogap import inputs
    assert inputs.name('knl+haswell') == 'knl+haswell'
