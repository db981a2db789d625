'''A newcomer's first hour: a baseline priced and refused over its budget
before anything runs (iogap profile onboard), the sizes written
where the nights read them, a bad partition refused before any step, a
status line per case with the time left, --help on every entry point.'''

import logging
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from iogap.plan import progress
from iogap.errors import EXIT, IogapError
from iogap.site import discover, generate
from iogap.night import baseline, onboard
from iogap.__main__ import COMMANDS


def python_m(*args, timeout=120, cwd=ROOT):
    return subprocess.run([sys.executable, '-m', *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize('module', [
    'iogap', *(f'iogap {c}' for c in COMMANDS), 'iogap profile new',
    'iogap profile onboard', 'iogap night pipeline', 'iogap spack build',
    'iogap.core.iotrace'])
def test_every_entry_point_has_help(module, tmp_path):
    done = python_m(*module.split(), '--help', cwd=tmp_path)
    text = done.stdout + done.stderr
    assert done.returncode == 0, text
    assert text.startswith('usage:') and len(text.splitlines()) > 3, text


def test_a_budget_the_smallest_baseline_exceeds_is_refused_first():
    done = python_m('iogap', 'profile', 'onboard', 'anyhost', '--budget',
                    '0.001')
    assert done.returncode == EXIT['input'] and done.stdout == ''
    [line] = done.stderr.splitlines()
    assert 'exceeds the budget of 0.001 node-hours' in line, line
    assert 'give --budget' in line and 'GB written' in line


def test_a_bad_budget_is_refused_by_its_option():
    done = python_m('iogap', 'profile', 'onboard', 'anyhost', '--budget', 'x')
    assert done.returncode == 2 and done.stdout == ''
    assert "'x' is not a positive number of node-hours" in \
        done.stderr.splitlines()[-1]


def test_the_cost_is_printed_and_the_largest_size_within_budget_chosen():
    done = python_m('iogap', 'profile', 'onboard', 'anyhost', '--budget', '1',
                    '--dry-run')
    assert done.returncode == 0, done.stderr
    [line] = done.stdout.splitlines()
    # the generic profile's dd_count (256) caps the ladder; 5 runs fit
    assert 'dd count=256, 5 runs' in line and 'node-hours' in line, line
    assert 'GB written' in line and '2 cases' in line


def test_choose_takes_size_first_then_runs():
    points = [(16, 3, 0.1, 0, 0), (16, 5, 0.2, 0, 0), (64, 3, 0.3, 0, 0),
              (64, 5, 0.5, 0, 0)]
    assert baseline.choose(points, 0.35)[:2] == (64, 3)
    assert baseline.choose(points, 0.2)[:2] == (16, 5)
    with pytest.raises(IogapError, match='give --budget 0.1 or more'):
        baseline.choose(points, 0.05)


def test_the_chosen_size_is_written_where_nights_read_it(tmp_path):
    generated = tmp_path / 'site.py'
    generated.write_text("x = {\n    'partitions': [{\n        'extras': {\n"
                         "            'scratch_root': '/s',\n        },\n"
                         "    }, {\n        'extras': {\n"
                         "            'scratch_root': '/s',\n        },\n"
                         "    }],\n}\n")
    onboard.set_dd_count(str(generated), 64)
    text = generated.read_text()
    assert text.count("'dd_count': 64,") == 2
    assert eval(compile(text, 'site', 'exec'), {}, ns := {}) is None
    assert [p['extras']['dd_count'] for p in ns['x']['partitions']] == \
        [64, 64]
    onboard.set_dd_count(str(generated), 256)
    assert generated.read_text().count("'dd_count': 256,") == 2


def _cluster(*up):
    cluster = discover.Cluster.__new__(discover.Cluster)
    cluster.partitions = [{'PartitionName': p, 'State': 'UP'} for p in up]
    return cluster


def test_a_partition_that_is_not_up_is_refused_before_any_step(monkeypatch,
                                                                 capsys):
    stepped = []
    cluster = _cluster('knl', 'haswell')
    cluster.step = lambda *a, **k: stepped.append(a)
    cluster.probe = lambda *a: stepped.append(a)
    cluster.mpi = 'pmix'
    monkeypatch.setattr(discover, 'Cluster', lambda: cluster)
    args = type('Args', (), dict(system='nosuchsite', partitions='knl,nosuch',
                                 force=False))
    with pytest.raises(IogapError) as err:
        generate.write(args)
    assert "'nosuch' is not a partition that is up" in str(err.value)
    assert 'up: knl, haswell' in str(err.value)
    assert stepped == [] and capsys.readouterr().err == ''
    assert cluster.chosen(None) == ['knl', 'haswell']
    assert cluster.chosen('haswell') == ['haswell']


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_each_finished_case_says_what_is_left():
    clock = Clock()
    plan = {('DD %m=a', 'p'): 10.0, ('DD %m=b', 'p'): 30.0}
    follow = progress.Progress(plan, clock)
    line = '[ {} ] {}DD %m={} /0123abcd @sys:p+builtin'
    assert follow.line('plain text') == 'plain text'
    for case in 'ab':
        follow.line(line.format('RUN     ', '', case))
    clock.now = 20.0          # twice as slow as planned
    done = follow.line(line.format('      OK', '(1/3) ', 'a'))
    # b's 30 s and one unseen case at the mean (20 s), at pace 20/10
    assert done.endswith('(about 1 min 40 s left)'), done
    clock.now = 80.0
    coloured = '[ \x1b[32m      OK\x1b[0m ] (2/3) DD %m=b /0123abcd @sys:p+e'
    assert follow.line(coloured).endswith('(about 40 s left)')
    assert follow.line(line.format('    FAIL', '(3/3) ', 'c')).endswith(
        '(all done)')


def test_a_case_the_planner_does_not_cost_counts_a_few_seconds():
    follow = progress.Progress({}, Clock())
    assert follow.seconds(('AbsoluteCheck %target=x', 'p')) == \
        progress.UNPLANNED_SECONDS


def test_reframe_adjusts_the_progress_stream_as_its_own(monkeypatch):
    '''-v and -q change the level of ReFrame's 'stream' handlers.'''
    from reframe.core.logging import LoggerAdapter
    handler = progress.ProgressHandler()
    handler._rfm_type = 'iogap_progress'   # as ReFrame sets it
    logger = logging.Logger('t')
    logger.addHandler(handler)
    assert LoggerAdapter(logger).std_stream_handlers == [handler]


#: The plain direct dd case of the generic profile, and its parameters
DD_DIRECT = '^DDSingleStream(?=.*%mode=direct)(?=.*%darshan=off)' \
    '(?=.*%core_spec=0)(?=.*%cpu_bind=default)'
DD_PARAMS = {'mode': 'direct', 'core_spec': 0, 'cpu_bind': 'default',
             'memory': 'default', 'darshan': 'off'}


@pytest.fixture(scope='module')
def absolute(tmp_path_factory):
    '''The generic references with one absolute entry: the direct dd's
    write bandwidth, a floor any disk meets.'''
    import yaml
    refs = tmp_path_factory.mktemp('refs')
    with open(os.path.join(ROOT, 'reference', 'anyhost.yaml')) as fp:
        data = yaml.safe_load(fp)
    data['absolute'] = [{
        'test': 'DDSingleStream', 'partition': 'default',
        'params': DD_PARAMS, 'var': 'write_bw', 'ref': [2.5, -0.5, None],
        'unit': 'MB/s', 'provenance': 'tests/test_onboard.py: a floor',
        'noise': {'cv': 0.1}}]
    (refs / 'anyhost.yaml').write_text(yaml.safe_dump(data))
    return {'IOGAP_REFERENCE_DIR': str(refs)}


@pytest.mark.reframe
def test_reframe_shows_the_reference_and_one_line_per_case(tmp_path,
                                                            absolute):
    from conftest import run_reframe
    described = run_reframe(tmp_path / 'd', '-n', 'AbsoluteCheck',
                            '--describe', env=absolute)
    assert described.returncode == 0, described.stdout
    assert '"write_bw": [\n          2.5,\n          -0.5,\n          ' \
        'null,\n          "MB/s"' in described.stdout, described.stdout
    run = run_reframe(tmp_path, '-n', DD_DIRECT, '-n', 'AbsoluteCheck',
                      '-S', 'DDSingleStream.count=16', '-r',
                      '--performance-report', env=absolute)
    assert run.returncode == 0, run.stdout
    ran, report = run.stdout.split('PERFORMANCE REPORT')
    # one status line per case, no line per figure
    assert not [l for l in ran.splitlines() if l.startswith('P:')]
    status = [l for l in ran.splitlines() if l.startswith('[       OK ]')]
    assert [l.split(')')[0] for l in status] == [
        '[       OK ] (1/3', '[       OK ] (2/3', '[       OK ] (3/3']
    assert all(l.endswith(' left)') for l in status[:-1]), status
    assert status[-1].endswith('(all done)')
    assert '; 1 judgement(s) reached a verdict: 1 passed, 0 failed' in \
        run.stdout
    [row] = [l for l in report.splitlines() if 'AbsoluteCheck' in l]
    # the figure's value and its absolute band: 2.5 MB/s less 50 %
    pvar, punit, value, lower, upper, result = \
        [c.strip() for c in row.split('│')[3:9]]
    assert (pvar, punit, lower, upper, result) == \
        ('write_bw', 'MB/s', '1.25', 'inf', 'pass'), report
    assert float(value) > 1.25, report
    log = os.path.join(run.out, 'perflogs', 'anyhost', 'default',
                       'AbsoluteCheck.log')
    with open(log) as fp:
        line = fp.read()
    assert '(ref=2.5 l=-0.5 u=None pass)' in line, line


def _night(tmp_path, monkeypatch, result):
    '''A night's run report whose one judgement gave ``result``.'''
    import json
    import yaml
    entry = {'test': 'DDSingleStream', 'partition': 'knl', 'var': 'write_bw'}
    (tmp_path / 'site.yaml').write_text(yaml.safe_dump({'absolute': [
        entry, dict(entry, var='read_once_bw'), dict(entry, var='x')]}))
    monkeypatch.setenv('IOGAP_REFERENCE_DIR', str(tmp_path))
    judge = {'name': 'AbsoluteCheck %target=t', 'tags': ['judge'],
             'judgement': 'DDSingleStream@knl:', 'result': result,
             'perfvalues': {'s:p:write_bw': [1, 'pass'],
                            's:p:read_once_bw': [1, result]}}
    report = {'session_info': {}, 'runs': [{'testcases': [
        judge, {'name': 'DDSingleStream', 'tags': ['dd'], 'result': 'pass',
                'perfvalues': {'s:p:write_bw': [1, None]}}]}]}
    path = tmp_path / 'night.json'
    path.write_text(json.dumps(report))
    return str(path)


def test_a_night_says_how_much_it_judged(tmp_path, monkeypatch):
    '''The onboarding night counts as the nightly does (iogap.judge.coverage):
    a figure is judged when its judgement gave it a verdict.'''
    path = _night(tmp_path, monkeypatch, 'fail')
    assert baseline.night_verdict(0, path, 'site').startswith(
        'COVERAGE: judged 2 of the 2 figures this job\'s share judges '
        '(100%), by 1 of 1 judgements')
    assert baseline.night_verdict(0, _night(tmp_path, monkeypatch, 'pass'),
                                  'site').startswith('COVERAGE: judged 2')


def test_a_first_night_that_failed_fails_the_onboarding(tmp_path,
                                                        monkeypatch):
    '''A RED first night is the command's error (exit 1, one line naming
    the failed judgement), not a line of output after which it exits 0.'''
    path = _night(tmp_path, monkeypatch, 'fail')
    with pytest.raises(IogapError) as err:
        baseline.night_verdict(1, path, 'site')
    text = str(err.value)
    assert '\n' not in text and 'DDSingleStream@knl' in text
    assert text.startswith('the first judged night failed (reframe exit 1)')
    assert 'references are kept' in text and path in text


def test_the_last_line_says_how_much_was_judged():
    follow = progress.Progress({}, Clock())
    last = '[  PASSED  ] Ran 2/2 test case(s) from 2 check(s) (0 failure(s))'
    assert follow.line(last).endswith('; nothing judged (no judgement ran)')
    for n, (status, name) in enumerate((
            ('OK', 'DD %m=a'), ('OK', 'AbsoluteCheck %target=x'),
            ('FAIL', 'RatioCheck %ratio=y')), 1):
        follow.line(f'[ {status:>7} ] ({n}/3) {name} /0123abcd @s:p+e')
    assert follow.line(last).endswith(
        '; 2 judgement(s) reached a verdict: 1 passed, 1 failed')


def test_cases_behind_a_fixture_count_at_the_planned_mean():
    '''A serial run, or cases waiting for their fixture: only the fixture
    has started, and what is left is the profile's cases at their plan.'''
    clock = Clock()
    follow = progress.Progress({('DD %m=a', 'p'): 40.0,
                                ('DD %m=b', 'p'): 20.0}, clock)
    follow.line('[ RUN      ] ToolStack ~s:p /0123abcd @s:p+e')
    clock.now = 1.0
    done = follow.line('[       OK ] (1/3) ToolStack ~s:p /0123abcd @s:p+e')
    assert done.endswith('(about 1 min 00 s left)'), done


def test_only_the_baselines_own_figures_count_as_judged(tmp_path,
                                                         monkeypatch):
    '''A reference file's other entries (the generic ratios) are not what
    the baseline made judgeable.'''
    import yaml
    entry = {'test': 'DDSingleStream', 'partition': 'knl', 'var': 'write_bw'}
    (tmp_path / 'site.yaml').write_text(yaml.safe_dump({
        'absolute': [entry, dict(entry, test='IORBench')],
        'ratios': [{'name': 'r'}],
        'unjudged': [dict(entry, var='read_3x_bw', reason='too noisy'),
                     dict(entry, partition='haswell', reason='too noisy')]}))
    monkeypatch.setenv('IOGAP_REFERENCE_DIR', str(tmp_path))
    case = type('Case', (), {'family': 'DDSingleStream', 'partition': 'knl'})
    assert baseline.judged('site', [case]) == (
        1, [('DDSingleStream knl read_3x_bw', 'too noisy')])


def test_a_skipped_case_keeps_its_reason_last():
    '''The nightly (iogap/judge/verdict.py) reads a skip's reason from the
    brackets that end its line.'''
    from iogap.judge import verdict
    follow = progress.Progress({}, Clock())
    line = ('[     SKIP ] (1/3) DD %m=a /0123abcd @s:p+e [no dd: not on '
            'PATH]')
    assert follow.line(line) == line
    assert verdict._SKIP.match(follow.line(line)).groups()[2] == \
        'no dd: not on PATH'


def test_a_further_round_runs_only_the_cases_left_too_noisy(tmp_path,
                                                             monkeypatch):
    '''More runs go to the cases whose figures the first round left too
    noisy to judge (their test, partition and parameters), as many as the
    budget left buys at the planner's cost.'''
    import yaml
    entry = {'test': 'DDSingleStream', 'partition': 'knl', 'var': 'write_bw',
             'params': {'mode': 'direct', 'darshan': 'off'}}
    (tmp_path / 'site.yaml').write_text(yaml.safe_dump({'unjudged': [
        dict(entry, reason='too noisy to judge: spread 50%'),
        dict(entry, params={'mode': 'buffered'}, reason='too noisy'),
        dict(entry, test='OSULatency', reason='no run measured it')]}))
    monkeypatch.setenv('IOGAP_REFERENCE_DIR', str(tmp_path))
    case = lambda family, part, name: type('Case', (), {
        'family': family, 'partition': part, 'name': family + name,
        'node_hours': 0.1})
    found = {1: case('DDSingleStream', 'knl', ' %darshan=off %mode=direct'),
             2: case('DDSingleStream', 'haswell',
                     ' %darshan=off %mode=direct'),
             3: case('DDSingleStream', 'knl', ' %darshan=on %mode=direct'),
             4: case('OSULatency', 'knl', ' %mode=direct %darshan=off')}
    assert list(baseline.too_noisy('site', found)) == [1]
    from iogap.plan import cost
    monkeypatch.setattr(cost, 'costs', lambda cases, **_: cases)
    assert baseline.more_runs(found, 16, 1.0) == (2, pytest.approx(0.8))
    assert baseline.more_runs({1: found[1]}, 16, 0.35) == (
        3, pytest.approx(0.3))
    assert baseline.more_runs({1: found[1]}, 16, 0.1) == (
        0, pytest.approx(0.2))


def test_a_round_that_judges_fewer_keeps_the_best_reference(tmp_path,
                                                            monkeypatch):
    '''Round 1 judged the dd write bandwidth; round 2's pooled runs left
    it too noisy: round 1's reference is written back, not `unjudged`.'''
    import yaml
    monkeypatch.setenv('IOGAP_REFERENCE_DIR', str(tmp_path))
    path = tmp_path / 'site.yaml'
    entry = {'test': 'DDSingleStream', 'partition': 'knl', 'var': 'write_bw'}
    first = yaml.safe_dump({'absolute': [dict(entry, ref=[1, -0.1, None])]})
    case = type('Case', (), {'family': 'DDSingleStream', 'partition': 'knl'})
    said = []
    path.write_text(first)
    count, _, best = onboard.kept('site', {1: case}, None, 1, said.append)
    assert count == 1 and best == (1, first, 1) and said == []
    path.write_text(yaml.safe_dump({'unjudged': [dict(
        entry, reason='too noisy to judge: spread 60%')]}))
    count, unjudged, best = onboard.kept('site', {1: case}, best, 2,
                                         said.append)
    assert (count, unjudged, path.read_text()) == (1, [], first)
    assert said == ['round 2 leaves 0 figure(s) judgeable, round 1 1: its '
                    'references are kept']
    assert baseline.judged('site', [case]) == (1, [])


def test_the_cost_of_a_case_never_run_is_calibrated_on_those_that_ran():
    '''OSU's 60 s a run and dd's 30 s of start-up, against what the cases
    that ran took: a case that never ran (or another size) is priced at
    the measured over the estimated seconds of its family's.'''
    from iogap.plan import cost, inventory
    from iogap.site import profile
    profile.load(['x', '--system', 'anyhost'], {})
    found = baseline.matching(inventory.measured(), [
        f'^DDSingleStream(?=.*%darshan=off){baseline.PLAIN}',
        baseline.SELECT[1]])
    dd = {k: c for k, c in found.items() if c.family == 'DDSingleStream'}
    osu = [c for c in found.values() if c.family == 'OSULatency']
    ran = next(iter(dd.values()))
    history = {ran.history_key: [10.0, 12.0, 11.0],
               osu[0].history_key: [13.0, 15.0, 14.0]}
    estimate = {k: c.seconds for k, c in cost.costs(found).items()}
    priced = cost.costs(found, history=history)
    factor = 11.0 / estimate[ran.key]
    for key, one in priced.items():
        if one.case.history_key in history:
            assert one.how.startswith('measured: median of 3 run(s)')
        elif one.case.family == 'DDSingleStream':
            assert one.seconds == pytest.approx(estimate[key] * factor)
            assert f'x {factor:.2g} as measured over estimated on 1 ' \
                'case(s) that ran' in one.how
    resized = cost.resized(found, {'dd_count': 16}, history)
    assert resized[osu[0].key].seconds == pytest.approx(14.0)
    assert resized[ran.key].seconds == pytest.approx(factor * cost.resized(
        {ran.key: ran}, {'dd_count': 16})[ran.key].seconds)
