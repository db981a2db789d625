'''The ratio engine for real: the local two-partition profile, re-baselined,
then failing once its reference is moved outside the tolerance.'''

import os
import shutil
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT, run_reframe

pytestmark = pytest.mark.reframe


def ratio_run(tmp_path, refdir, tag):
    return run_reframe(tmp_path / tag, '--system', 'localpair', '-n',
                       'RatioCheck', '--exec-policy=serial', '-r',
                       env={'IOGAP_REFERENCE_DIR': str(refdir)})


def rebaseline(refdir, report, *args):
    return subprocess.run([sys.executable, '-m', 'iogap.rebaseline', report,
                           *args], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, IOGAP_REFERENCE_DIR=str(refdir)))


def ratios_of(run):
    return {tc['display_name'].split('=', 1)[1].split()[0]: tc
            for tc in run.testcases() if tc['name'].startswith('RatioCheck')}


@pytest.fixture(scope='module')
def flow(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp('ratios')
    refdir = tmp_path / 'reference'
    shutil.copytree(os.path.join(ROOT, 'reference'), refdir)
    path = refdir / 'localpair.yaml'
    data = yaml.safe_load(path.read_text())
    data['ratios'][0]['provenance'] = 'hand-set for the test'
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    (tmp_path / 'first').mkdir()
    first = ratio_run(tmp_path, refdir, 'first')
    report = max((os.path.join(first.out, 'reports', f) for f in
                  os.listdir(os.path.join(first.out, 'reports'))),
                 key=os.path.getmtime)
    return tmp_path, refdir, path, first, report


def test_ratio_checks_depend_on_both_partitions(flow):
    _, _, _, first, _ = flow
    ratios = ratios_of(first)
    assert len(ratios) == 3, first.stdout
    tc = ratios['one_over_all_cached_read_bw']
    deps = {tuple(d) if isinstance(d, list) else d
            for d in tc['dependencies_actual']}
    assert any('one' in str(d) for d in deps) and \
        any('all' in str(d) for d in deps), deps
    for tc in ratios.values():
        assert tc['result'] in ('pass', 'fail'), tc['fail_reason']
        [(value, *_)] = tc['perfvalues'].values()
        assert value > 0


def test_rebaseline_keeps_hand_set_and_prints_a_diff(flow):
    _, refdir, path, _, report = flow
    before = path.read_text()
    proc = rebaseline(refdir, report, '--only', 'ratios')
    assert proc.returncode == 0, proc.stderr
    assert 'kept hand-set ratio one_over_all_cached_read_bw' in proc.stdout
    assert proc.stdout.startswith('---') and '+  provenance: baseline' in \
        proc.stdout
    after = yaml.safe_load(path.read_text())['ratios']
    assert after[0]['provenance'] == 'hand-set for the test'
    assert before != path.read_text()


def test_next_run_passes_against_the_baseline_then_fails_when_moved(flow):
    tmp_path, refdir, path, _, report = flow
    # Ratios only: absolute re-baselining is proven on the generic profile
    proc = rebaseline(refdir, report, '--force', '--only', 'ratios')
    assert proc.returncode == 0, proc.stderr
    data = yaml.safe_load(path.read_text())
    assert all(r['provenance'].startswith('baseline') for r in data['ratios'])
    assert not data.get('absolute')

    (tmp_path / 'second').mkdir()
    second = ratio_run(tmp_path, refdir, 'second')
    assert second.returncode == 0, second.stdout
    assert all(tc['result'] == 'pass' for tc in second.testcases())

    moved = data['ratios'][1]
    moved['ref'][0] *= 100
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    (tmp_path / 'third').mkdir()
    third = ratio_run(tmp_path, refdir, 'third')
    assert third.returncode != 0
    tc = ratios_of(third)[moved['name']]
    assert tc['result'] == 'fail'
    assert 'failed to meet reference' in tc['fail_reason']
    assert moved['name'] in tc['fail_reason']
    assert 'failed to meet reference' in third.stdout
