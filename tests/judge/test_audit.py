'''The false-alarm budget: every shipped judgement's rate and detection,
refusal of a file over budget (one line, file:line and the fix), waivers,
and docs/reference/audit.md in sync with the module.'''

import copy
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import yaml

from conftest import ROOT
from iogap.site import profile
from iogap.core import stats
from iogap.errors import ReferenceFileError
from iogap.judge import audit, references
from iogap.judge.audit import model
from iogap.history import load as load_report
from iogap.report import plot_judge

pytestmark = pytest.mark.usefixtures('cori')

SYSTEMS = ['anyhost', 'cori', 'localpair', 'minicluster', 'minicori']

RATIO = {'system': 'cori', 'ratios': [{
    'name': 'r',
    'numerator': {'test': 'DDSingleStream', 'partition': 'knl',
                  'params': {'mode': 'direct'}, 'var': 'write_bw'},
    'denominator': {'test': 'DDSingleStream', 'partition': 'haswell',
                    'params': {'mode': 'direct'}, 'var': 'write_bw'},
    'ref': [0.78, -0.15, 0.15], 'unit': 'ratio', 'provenance': 'study'}],
    'noise': [{'var': '*', 'cv': 0.10, 'source': 'assumed'}]}


def load(tmp_path, data, enforce=True):
    path = tmp_path / 'cori.yaml'
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return references.File(str(path), 'cori', profile.parts(), enforce)


def test_a_judgement_over_budget_is_refused_in_one_line(tmp_path):
    # both sides 10 %: a +-15 % band fails about 29 % of healthy nights,
    # 48 % at 1.5x that noise, the column the budget holds at
    with pytest.raises(ReferenceFileError) as err:
        load(tmp_path, RATIO)
    message = str(err.value)
    assert '\n' not in message
    assert message.startswith(f'{tmp_path}/cori.yaml:')
    assert 'ratios[0].ref: fails 47.7% of healthy nights at 1.5x its ' \
        'noise' in message and 'budget 1%' in message
    assert re.search(r'noise 14.1%, 2\d\.\d% at it', message)
    assert 'waiver:' in message and 'iogap audit' in message


def test_a_waiver_admits_it_and_the_audit_still_shows_the_rate(tmp_path):
    data = copy.deepcopy(RATIO)
    data['ratios'][0]['waiver'] = 'kept for the test'
    with pytest.raises(ReferenceFileError, match=r'cori.yaml:1: system: the night '
                       r'fails 47\.7% of healthy runs at 1\.5x the assumed '
                       r'noise \(budget 10%'):
        load(tmp_path, data)
    data['budget'] = {'waiver': 'the night too'}
    ref = load(tmp_path, data)
    [row] = ref.audit
    assert row.rate == pytest.approx(0.29, abs=0.01)
    assert row.stress_rate == pytest.approx(0.477, abs=0.01)
    # what a judgement logs: its entry as a ReFrame parameter holds it
    assert ref.rate_of(copy.deepcopy(row.entry)) == row.rate


def test_a_judgement_without_known_noise_is_refused(tmp_path):
    data = copy.deepcopy(RATIO)
    del data['noise']
    with pytest.raises(ReferenceFileError, match='no noise known for '
                       'DDSingleStream write_bw'):
        load(tmp_path, data)


def test_a_judgement_that_cannot_fail_is_refused(tmp_path):
    data = copy.deepcopy(RATIO)
    data['ratios'][0]['ref'] = [0.78, -1.0, None]       # floor at 0
    with pytest.raises(ReferenceFileError, match='no regression of its figures '
                       'fails it'):
        load(tmp_path, data)


def test_a_band_from_both_sides_noise_meets_its_rate(tmp_path):
    data = copy.deepcopy(RATIO)
    [row] = load(tmp_path, data, enforce=False).audit or \
        audit.rows(load(tmp_path, data, enforce=False))
    data['ratios'][0]['ref'][1:] = model.band_from_noise(row, 0.01, 1.5)
    [row] = load(tmp_path, data).audit
    assert 0.009 < row.stress_rate <= 0.01 and row.rate < 0.0003
    # the closed form agrees with drawing both sides at 1.5x their noise
    rng = np.random.default_rng(1)
    ratio = 0.78 * np.exp(0.15 * rng.standard_normal((2, 200000)))
    lo, hi = model._bounds(row.entry)
    ratio = ratio[0] / ratio[1] * 0.78
    assert np.mean((ratio < lo) | (ratio > hi)) == pytest.approx(0.01,
                                                                 abs=0.002)


def test_an_r2_cap_fires_on_flat_noise_and_the_slope_bound_does_not():
    # the figure: r2 over 5 clocks exceeds 0.32 a third of the time
    xs = [1.0, 1.1, 1.2, 1.3, 1.4]
    ys = np.exp(0.015 * np.random.default_rng(2).standard_normal((20000, 5)))
    fit = stats.fit_statistics(xs, ys)
    assert np.mean(fit['r2'] > 0.32) == pytest.approx(0.32, abs=0.03)
    assert np.mean(fit['change_bound'] > 0.14) < 0.002
    # a clock dependence of 20 % over the range is seen on every night
    slope = ys * (0.8 + 0.2 * (np.array(xs) - 1.0) / 0.4)
    assert np.mean(stats.fit_statistics(xs, slope)['change_bound'] > 0.14) \
        > 0.99


def test_the_report_shows_a_judgements_rate_beside_its_band():
    report = {'runs': [{'testcases': [{
        'name': 'RatioCheck %ratio=r', 'display_name': 'RatioCheck %ratio=r',
        'system': 'cori', 'partition': 'knl', 'result': 'pass',
        'method': 'study', 'false_alarms': 0.0123,
        'perfvalues': {'cori:knl:r': [0.8, 0.78, -0.15, 0.15, 'ratio',
                                      'pass']}}]}]}
    [row] = load_report.rows_of(report, None)
    assert row.false_alarms == 0.0123 and plot_judge.rate(0.0123) == '1.2 %'


def test_docs_audit_is_in_sync_and_every_judgement_can_pass_and_fail():
    proc = subprocess.run(
        [sys.executable, '-m', 'iogap', 'audit', '--markdown'] +
        [f'reference/{s}.yaml' for s in SYSTEMS], cwd=ROOT,
        capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    with open(os.path.join(ROOT, 'docs', 'reference', 'audit.md')) as fp:
        assert fp.read() == proc.stdout, 'regenerate docs/reference/' \
            'audit.md: iogap audit --markdown reference/{' + \
            ','.join(SYSTEMS) + '}.yaml > docs/reference/audit.md'
    # each shipped judgement: within budget at 1.5x its noise or waived,
    # and some regression of its figures fails it 9 nights in 10
    rows = [line.split(' | ') for line in proc.stdout.splitlines()
            if line.startswith('| ') and not line.startswith('| judgement')]
    assert len(rows) > 70
    for name, _, _, rate, stress, catches, cases, _ in rows:
        if cases.strip() == '0':
            continue
        assert catches != 'never', name
        assert '(waiver)' in rate or stress == '0' or \
            float(stress.split()[0]) <= 1.0, name
    # and every file's night within its budget at 1.5x
    nights = re.findall(r'at 1.5x it: worst [^,]*, the whole night '
                        r'([\d.]+) %', proc.stdout)
    assert len(nights) == len(SYSTEMS)
    assert all(float(n) <= 10 for n in nights), nights


EFFECT = {'name': 'e', 'ratio': 'r', 'healthy': 1.0, 'vanished': 0.78,
          'nights': 3, 'provenance': 'study'}


def test_an_effect_too_short_to_catch_its_disappearance_is_refused(tmp_path):
    data = copy.deepcopy(RATIO)
    data['ratios'][0]['ref'] = [0.78, -0.5, 0.7]
    data['ratios'][0]['waiver'] = 'its band is not under test here'
    data['effects'] = [{**EFFECT, 'healthy': 0.78, 'vanished': 0.6}]
    with pytest.raises(ReferenceFileError, match=r'effects\[0\]\.nights: 3 '
                       r'nights do not catch the effect\'s disappearance 9 '
                       r'in 10 at 1\.5x the noise 14\.1%: pool 1[0-9] '):
        load(tmp_path, data)
    data['effects'][0]['vanished'] = 0.4
    [_, row] = load(tmp_path, data).audit
    assert row.kind == 'effects' and row.stress_rate == \
        pytest.approx(0.001) and row.detects[0] <= 3


def test_an_effect_must_name_a_ratio_of_the_file(tmp_path):
    data = copy.deepcopy(RATIO)
    data['effects'] = [{**EFFECT, 'over': 'nope'}]
    with pytest.raises(ReferenceFileError, match=r"effects\[0\]\.over: names "
                       r"no ratio of this file \('nope'\)"):
        load(tmp_path, data)


@pytest.mark.parametrize('cv', [0.0375, 0.06, 0.1])
def test_a_rebaselined_band_meets_the_budget_on_either_side(tmp_path, cv):
    '''Re-baselining's band (noise.band) passes the audit it is loaded
    through, above the reference (a latency) as below (a bandwidth).'''
    from iogap.judge import noise
    entries = []
    for var, upper in (('latency_8B', True), ('latency_1024B', True)):
        tol, detects = noise.band(cv, upper=upper)
        entries.append({'test': 'OSULatency', 'partition': 'knl',
                        'var': var, 'ref': [1.0, None, tol], 'unit': 'us',
                        'provenance': 'baseline', 'noise': {
                            'cv': cv, 'runs': 8, 'detects': detects}})
    tol, detects = noise.band(cv)
    entries.append({'test': 'DDSingleStream', 'partition': 'knl',
                    'params': {'mode': 'direct'}, 'var': 'write_bw',
                    'ref': [100.0, -tol, None], 'unit': 'MB/s',
                    'provenance': 'baseline', 'noise': {
                        'cv': cv, 'runs': 8, 'detects': detects}})
    rows = load(tmp_path, {'system': 'cori', 'absolute': entries,
                           'budget': {'waiver': 'one judgement at a time'}
                           }).audit
    assert rows and max(r.stress_rate for r in rows) <= 0.01


def test_generic_sync_over_direct_holds_at_its_recorded_spread():
    '''anyhost.yaml's dsync_over_direct_write_bw assumes the spread its
    runs recorded (CV 0.77 over 18 runs), not 10 %: healthy plain-disk
    runs at 1.41 and 1.37 (bench/mechanisms.py, 128 MiB) pass, the budget
    holds at 1.5x it, and sync at buffered speed on a slow device (the
    throttled disk's buffered over direct, 60.7 at the least) fails.'''
    profile.load(['--system', 'anyhost'], {})
    ref = references.File(os.path.join(ROOT, 'reference', 'anyhost.yaml'),
                          'anyhost', profile.parts())
    [row] = [r for r in ref.audit if r.name == 'dsync_over_direct_write_bw']
    assert row.noise == row.entry['spread']['cv']
    assert row.stress_rate <= audit.budget(ref)['judgement']
    value, _, upper = row.entry['ref']
    cap = value * (1 + upper)
    assert max(1.41, 1.37) <= cap < 60.7
