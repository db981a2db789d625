'''Re-baselining never hides a regression (iogap.night.rebaseline): a figure
that failed its reference in the runs keeps its entry, neither widened
nor moved to unjudged; unjudged entries for figures the runs did not
measure are kept; the patch says per figure what it changes and why; a
figure left unjudged comes with what would let it be judged, and at what
cost.'''

import json
import os
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT

PARAMS = {'core_spec': 0, 'cpu_bind': 'default', 'memory': 'default',
          'darshan': 'off', 'mode': 'direct'}
NAME = 'DDSingleStream@default:' + ','.join(
    f'{k}={v}' for k, v in sorted(PARAMS.items()))
#: Hand-kept: a figure this night does not measure (dsync, bound)
ASIDE = {'test': 'DDSingleStream', 'partition': 'default',
         'params': {**PARAMS, 'mode': 'dsync', 'cpu_bind': 'cores'},
         'var': 'read_3x_bw', 'reason': 'too noisy to judge: spread 80% '
         'over 3 run(s) (baseline 2026-11-01)'}
REFERENCE = {'system': 'anyhost', 'absolute': [
    {'test': 'DDSingleStream', 'partition': 'default',
     'params': {'mode': 'direct', 'cpu_bind': 'default'}, 'var': 'write_bw',
     'ref': [100.0, -0.1, None], 'unit': 'MB/s',
     'provenance': 'baseline 2026-11-01 host=x runs=abc',
     'noise': {'cv': 0.02, 'runs': 5, 'detects': 0.126}}],
    'unjudged': [ASIDE]}


def report(i, write, read_once, read_3x):
    '''A night: the dd case (write slowed to half: a regression) and the
    absolute judgement that failed it.'''
    mb = lambda v: [v, 0, None, None, 'MB/s', 'pass']
    dd = {'name': 'DDSingleStream %mode=direct', 'display_name':
          'DDSingleStream %mode=direct', 'system': 'anyhost',
          'partition': 'default', 'environ': 'builtin', 'result': 'pass',
          'fixture': False, 'fail_phase': None, **PARAMS, 'perfvalues': {
              'anyhost:default:write_bw': mb(write),
              'anyhost:default:read_once_bw': mb(read_once),
              'anyhost:default:read_3x_bw': mb(read_3x)}}
    judged = {'name': 'AbsoluteCheck %target=x', 'display_name':
              'AbsoluteCheck %target=x', 'judgement': NAME,
              'system': 'anyhost', 'partition': 'default', 'environ':
              'builtin', 'result': 'fail', 'fixture': False, 'fail_phase':
              'performance', 'tags': ['judge'], 'perfvalues': {
                  'anyhost:default:write_bw': [write, 100.0, -0.1, None,
                                               'MB/s', 'fail']}}
    return {'session_info': {'uuid': f'night{i}'},
            'runs': [{'testcases': [dd, judged]}]}


def test_a_regression_is_kept_and_every_change_is_said(tmp_path):
    refdir = tmp_path / 'reference'
    refdir.mkdir()
    path = refdir / 'anyhost.yaml'
    path.write_text(yaml.safe_dump(REFERENCE, sort_keys=False))
    reports = []
    # read once: steady; the cached re-read: 9 % spread over 3 runs
    for i, (w, r1, r3) in enumerate([(50, 300, 1000), (52, 301, 1100),
                                     (48, 299, 920)]):
        reports.append(tmp_path / f'r{i}.json')
        reports[-1].write_text(json.dumps(report(i, w, r1, r3)))
    patch = tmp_path / 'rebaseline.patch'
    proc = subprocess.run(
        [sys.executable, '-m', 'iogap', 'rebaseline', *map(str, reports),
         '--patch', str(patch)], cwd=ROOT, capture_output=True, text=True,
        env=dict(os.environ, IOGAP_REFERENCE_DIR=str(refdir)))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = yaml.safe_load(path.read_text())

    # The regressed figure: as it was, not unjudged
    [write] = [e for e in data['absolute'] if e['var'] == 'write_bw']
    assert write == REFERENCE['absolute'][0]
    assert not [e for e in data['unjudged'] if e['var'] == 'write_bw']
    # The figure the night did not measure: still listed
    assert ASIDE in data['unjudged']
    # Every change said per figure, in the output and the patch
    said = [l.split('rebaseline: ', 1)[1] for l in proc.stdout.splitlines()
            if l.startswith('rebaseline: ')]
    assert f'KEPT DDSingleStream@default:{NAME.split(":", 1)[1]} write_bw: ' \
           f'failed tonight: 50, 52, 48 MB/s against 100; a regression is ' \
           f'never re-baselined (edit the file by hand to accept it)' in said
    assert any(l.startswith('ADD DDSingleStream@default:') and 'read_once_bw'
               in l and 'spread 0.7% over 3 run(s)' in l for l in said), said
    [noisy] = [l for l in said if l.startswith('UNJUDGED ')]
    assert 'read_3x_bw: too noisy to judge: spread 19% over 3 run(s)' in noisy
    # ... with what would let it be judged, and the cost of each way
    [judgeable] = [l for l in said if l.startswith('JUDGEABLE ')]
    assert f'JUDGEABLE {NAME} read_3x_bw: spread 19% over 3 run(s)' in \
        f'JUDGEABLE {judgeable}' and \
        '--repeat 5 (5 x ' in judgeable and 'dd_count x2 of the' in judgeable, \
        judgeable
    # The patch opens with the same lines; git reads the diff after them
    head = patch.read_text().split('--- a/')[0].splitlines()
    assert head == [f'# {l}' for l in said if l.split()[0] in (
        'ADD', 'CHANGE', 'UNJUDGED', 'REMOVE', 'KEPT', 'JUDGEABLE')]
    stat = subprocess.run(['git', 'apply', '--numstat', str(patch)],
                          cwd=ROOT, capture_output=True, text=True)
    assert stat.returncode == 0 and stat.stdout.strip(), stat.stderr


def test_an_entry_set_by_hand_is_explained_by_its_provenance():
    from iogap.judge import baselinediff
    old = {'ratios': [{'name': 'r', 'ref': [1.0, -0.2, None], 'unit': 'x',
                       'provenance': 'CUG17 fig 3', 'noise': {'cv': 0.05,
                                                              'source': 'x'}}]}
    new = {'ratios': [{**old['ratios'][0], 'ref': [2.0, -0.2, None]}]}
    assert baselinediff.explain(old, new, ({}, {})) == [
        'CHANGE r: 1 x (-20%) -> 2 x (-20%), as its provenance says '
        '(CUG17 fig 3)']


def test_the_figures_spread_over_runs_sets_its_band_not_one_repetitions(
        tmp_path):
    '''dd's figure is the median of its repetitions: a job whose
    repetitions vary by 31 % does not make a figure that varies by 0.7 %
    over three runs unjudgeable; one run alone takes the job's spread.'''
    refdir = tmp_path / 'reference'
    refdir.mkdir()
    path = refdir / 'anyhost.yaml'
    reports = []
    for i, r1 in enumerate([300, 301, 299]):
        night = report(i, 100, r1, 1000)
        [dd, _] = night['runs'][0]['testcases']
        dd['perfvalues']['anyhost:default:read_once_bw_cv'] = [
            31.0, 0, None, None, '%', 'pass']
        night['runs'][0]['testcases'] = [dd]
        reports.append(tmp_path / f'r{i}.json')
        reports[-1].write_text(json.dumps(night))

    def rebaseline(*paths):
        path.write_text(yaml.safe_dump({'system': 'anyhost'}))
        proc = subprocess.run(
            [sys.executable, '-m', 'iogap', 'rebaseline', *map(str, paths)],
            cwd=ROOT, capture_output=True, text=True,
            env=dict(os.environ, IOGAP_REFERENCE_DIR=str(refdir)))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        data = yaml.safe_load(path.read_text())
        return {e['var']: e['noise']['cv'] for e in data.get('absolute') or []}, [
            e['var'] for e in data.get('unjudged') or []]

    spreads, unjudged = rebaseline(*reports)
    assert spreads['read_once_bw'] == pytest.approx(0.0071, abs=0.0002)
    assert 'read_once_bw' not in unjudged
    spreads, unjudged = rebaseline(reports[0])
    assert 'read_once_bw' in unjudged and 'read_once_bw' not in spreads


def test_the_patch_keeps_a_hand_formatted_file_as_it_is(tmp_path):
    '''The shipped generic references (block style, comments, quoted
    provenances) with the entries above: re-baselining adds two lines and
    rewrites none, so that a site can review it as a diff.'''
    refdir = tmp_path / 'reference'
    refdir.mkdir()
    path = refdir / 'anyhost.yaml'
    with open(os.path.join(ROOT, 'reference', 'anyhost.yaml')) as fp:
        old = fp.read() + yaml.safe_dump(
            {k: v for k, v in REFERENCE.items() if k != 'system'},
            sort_keys=False)
    path.write_text(old)
    reports = []
    for i, (w, r1, r3) in enumerate([(50, 300, 1000), (52, 301, 1100),
                                     (48, 299, 920)]):
        reports.append(tmp_path / f'r{i}.json')
        reports[-1].write_text(json.dumps(report(i, w, r1, r3)))
    proc = subprocess.run(
        [sys.executable, '-m', 'iogap', 'rebaseline', *map(str, reports)],
        cwd=ROOT, capture_output=True, text=True,
        env=dict(os.environ, IOGAP_REFERENCE_DIR=str(refdir)))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    new = path.read_text().splitlines()
    added = [l for l in new if l not in old.splitlines()]
    assert [l for l in old.splitlines() if l not in new] == []
    assert len(added) == 2, added
    assert 'var: read_once_bw' in added[0] and 'read_3x_bw' in added[1]
