'''Measure, then judge, for real: a failed absolute bound hides no ratio,
ratios survive --repeat, a precondition that does not hold makes a ratio
not applicable, a partial selection skips with the missing side,
and re-baselining from repeats gives references the next run meets.'''

import os
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT, cases, run_reframe
from iogap.judge import split_skips, unexpected_skips

pytestmark = pytest.mark.reframe

DD = ['-x', 'darshan=on', '-S', 'DDSingleStream.count=32', '-S',
      'DDSingleStream.repetitions=3']
RATIO = {'name': 'dsync_over_direct_write_bw',
         'numerator': {'test': 'DDSingleStream', 'partition': 'default',
                       'params': {'mode': 'dsync'}, 'var': 'write_bw'},
         'denominator': {'test': 'DDSingleStream', 'partition': 'default',
                         'params': {'mode': 'direct'}, 'var': 'write_bw'},
         # A band no healthy host leaves: what is tested is that the ratio
         # is computed, judged and stored, not how this host's disk does
         'ref': [1.0, -0.99, 99.0], 'unit': 'ratio', 'provenance': 'test'}


def precondition(at_most):
    '''A precondition on the direct write's speed over memory's.'''
    side = {'test': 'DDSingleStream', 'partition': 'default',
            'params': {'mode': 'direct'}}
    return {'what': 'the device writes slower than memory',
            'numerator': {**side, 'var': 'write_bw'},
            'denominator': {**side, 'var': 'memory_bw'}, 'at_most': at_most}


def refdir(tmp_path, **lists):
    path = tmp_path / 'reference'
    path.mkdir(exist_ok=True)
    (path / 'anyhost.yaml').write_text(yaml.safe_dump(
        {'system': 'anyhost', **lists, 'noise': [
            {'var': '*', 'cv': 0.01, 'source': 'test'}]}, sort_keys=False))
    return {'IOGAP_REFERENCE_DIR': str(path)}


def test_a_failed_absolute_bound_hides_no_ratio(tmp_path):
    env = refdir(tmp_path, ratios=[RATIO], absolute=[{
        'test': 'DDSingleStream', 'partition': 'default',
        'params': {'mode': 'dsync', 'cpu_bind': 'default'},
        'var': 'write_bw', 'ref': [1e9, -0.1, None], 'unit': 'MB/s',
        'provenance': 'an impossible floor'}])
    run = run_reframe(tmp_path, '-n', 'DDSingleStream.*%cpu_bind=default.*'
                      '%mode=(dsync|direct)|Check', *DD, '-r', env=env)
    assert run.returncode != 0
    [absolute] = cases(run, 'AbsoluteCheck')
    assert absolute['result'] == 'fail'
    assert 'write_bw' in absolute['fail_reason']
    [ratio] = cases(run, 'RatioCheck')
    assert ratio['result'] == 'pass', ratio['fail_reason']
    for tc in cases(run, 'DDSingleStream'):
        assert tc['result'] == 'pass'       # measuring never judges
    log = os.path.join(run.out, 'perflogs', 'anyhost', 'default',
                       'RatioCheck.log')
    assert 'dsync_over_direct_write_bw=' in open(log).read()


def test_ratios_survive_repeat_and_reach_the_results_database(tmp_path):
    env = refdir(tmp_path, ratios=[RATIO])
    run = run_reframe(tmp_path, '-n', 'DDSingleStream.*%cpu_bind=default.*'
                      '%mode=(dsync|direct)|RatioCheck', *DD, '--repeat', '2',
                      '-r', env=env)
    assert run.returncode == 0, run.stdout
    assert 'could not resolve' not in run.stdout
    ratios = cases(run, 'RatioCheck')
    assert len(ratios) == 2 and all(r['result'] == 'pass' for r in ratios)
    stored = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), 'reframe'), '-C',
         'reframe_config.py', '--list-stored-testcases=now-1d:now/mean:/'],
        cwd=ROOT, capture_output=True, text=True,
        env=dict(os.environ, IOGAP_OUTPUT=run.out, **env))
    assert 'dsync_over_direct_write_bw' in stored.stdout, stored.stdout + \
        stored.stderr


def test_a_precondition_that_does_not_hold_makes_the_ratio_not_applicable(
        tmp_path):
    '''The precondition is measured first: one no host meets (a write at
    most 1e-9 of memory speed) skips the ratio as not applicable, with the
    figures measured, in the run report and the perflog; one every host
    meets lets it be judged. Neither fails.'''
    never = {**RATIO, 'name': 'never_applies',
             'precondition': precondition(1e-9)}
    always = {**RATIO, 'name': 'always_applies',
              'precondition': precondition(1e9)}
    env = refdir(tmp_path, ratios=[never, always])
    run = run_reframe(tmp_path, '-n', 'DDSingleStream.*%cpu_bind=default.*'
                      '%mode=(dsync|direct)|RatioCheck', *DD, '-r', env=env)
    ratios = {tc['judgement']: tc for tc in cases(run, 'RatioCheck')}
    skipped = ratios['never_applies']
    assert skipped['result'] == 'skip', run.stdout
    reason = run.skip_reason(skipped['display_name'])
    assert reason.startswith('not applicable on this host: the device '
                             'writes slower than memory does not hold '
                             '(write_bw '), reason
    assert 'needs at most 1e-09' in reason
    assert skipped['not_applicable'] in reason
    judged = ratios['always_applies']
    assert judged['result'] == 'pass', judged['fail_reason']
    assert 'precondition the device writes slower than memory: write_bw' \
        in judged['method']
    log = open(os.path.join(run.out, 'perflogs', 'anyhost', 'default',
                            'RatioCheck.log')).read()
    assert 'not applicable on this host: the device writes' in log
    assert 'always_applies=' in log

    # Declared conditional by its precondition: an expected skip
    report = run.report()
    reference = env['IOGAP_REFERENCE_DIR'] + '/anyhost.yaml'
    assert unexpected_skips(report, reference) == []
    [na] = split_skips(report, reference)[0]
    assert na['judgement'] == 'never_applies'


def test_a_ratio_across_partitions_skips_naming_the_missing_side(tmp_path):
    run = run_reframe(tmp_path, '--system', 'localpair:one', '-n',
                      'RatioCheck.*one_over_all', '-S', 'DDSingleStream.count=16', '-r')
    [ratio] = cases(run, 'RatioCheck')
    assert ratio['result'] == 'skip'
    assert 'needs DDSingleStream on localpair:all, which this run did not ' \
        'select' in run.skip_reason(ratio['display_name'])


def test_rebaselined_references_pass_next_time_and_a_moved_one_fails(
        tmp_path):
    env = refdir(tmp_path, ratios=[RATIO])
    # 128 MiB: a cached re-read of 32 MiB takes milliseconds, and its
    # scheduling jitter makes a band from 5 runs a coin toss
    selection = ['-n', 'DDSingleStream.*%cpu_bind=default.*%mode=(dsync|'
                 'direct)|Check', '-x', 'darshan=on', '-S',
                 'DDSingleStream.count=128', '-S',
                 'DDSingleStream.repetitions=3']
    first = run_reframe(tmp_path / 'a', *selection, '--repeat', '5', '-r',
                        env=env)
    [report] = [os.path.join(first.out, 'reports', f)
                for f in os.listdir(os.path.join(first.out, 'reports'))]
    patch = tmp_path / 'rebaseline.patch'
    proc = subprocess.run([sys.executable, '-m', 'iogap', 'rebaseline', report,
                           '--patch', str(patch)], cwd=ROOT, text=True,
                          capture_output=True, env=dict(os.environ, **env))
    assert proc.returncode == 0, proc.stderr
    data = yaml.safe_load(open(env['IOGAP_REFERENCE_DIR'] +
                               '/anyhost.yaml'))
    assert 'kept hand-set dsync_over_direct_write_bw' in proc.stdout
    # Every judged figure is asserted or named too noisy, never both:
    # two modes, three patterns, each raw and paired with its memory copy
    judged = {(e['params']['mode'], e['var'])
              for e in data.get('absolute', [])}
    noisy = {(e['params']['mode'], e['var'])
             for e in data.get('unjudged', [])}
    assert len(judged | noisy) == 12 and not judged & noisy
    for entry in data.get('unjudged', []):
        assert entry['reason'].startswith('too noisy to judge: spread ')
    if not judged:
        pytest.skip('this machine is too noisy now: every figure was named '
                    'too noisy to judge (the model at work, nothing to '
                    'check next)')
    for entry in data.get('absolute', []):
        assert entry['noise']['runs'] == 5
        assert -0.5 <= entry['ref'][1] < 0 and entry['ref'][2] is None
    # each figure it changes, with why, then the diff
    head, diff = patch.read_text().split('--- a/', 1)
    assert head and all(l.startswith('# ') for l in head.splitlines())

    def failing(name):
        run = run_reframe(tmp_path / name, *selection, '-r', env=env)
        absolute = cases(run, 'AbsoluteCheck')
        assert len(absolute) == len({m for m, _ in judged}), run.stdout
        return {tc['display_name']: tc['fail_reason'] for tc in absolute
                if tc['result'] != 'pass'}

    # A band is a test with a false-alarm rate: one session outside it is
    # the host's chance, the same band failed by the next one is not
    second = failing('b')
    if second:
        again = failing('b2')
        assert not set(second) & set(again), (second, again)

    moved = data['absolute'][0]
    moved['ref'][0] *= 10
    (tmp_path / 'reference' / 'anyhost.yaml').write_text(
        yaml.safe_dump(data, sort_keys=False))
    third = run_reframe(tmp_path / 'c', *selection, '-r', env=env)
    assert third.returncode != 0
    failed = [tc for tc in cases(third, 'AbsoluteCheck')
              if tc['result'] == 'fail']
    assert any(moved['var'] in tc['fail_reason'] for tc in failed), \
        [tc['fail_reason'] for tc in failed]
