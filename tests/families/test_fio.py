'''fio: several threads reading on one core. The JSON parser on fio's own
captured output (tests/data/fio/SOURCES.md), and a real run with its ratio
judged.'''

import copy
import json
import math
import os
import shutil
import statistics

import pytest
import yaml

from conftest import ROOT, built_view, cases, perf, run_reframe
from iogap.errors import IogapError
from iogap.fio import parse

DATA = os.path.join(ROOT, 'tests', 'data', 'fio')
PLAN = {'ioengine': 'psync', 'direct': 1, 'rw': 'read', 'numjobs': 4,
        'bs': '1m', 'size': 16777216, 'offset_increment': 16777216,
        'runtime': 2, 'cpus_allowed': 0}


def doc():
    return parse.load(os.path.join(DATA, 'read_4threads_cpu0.json'))


def test_every_thread_is_checked_and_the_figures_are_fios_own():
    jobs = parse.threads(doc(), 'read', 4, PLAN)
    got = parse.figures(jobs)
    reads = [j['read'] for j in jobs]
    # fio's group bandwidth: all bytes over the longest thread's runtime
    assert got['bytes'] == sum(r['io_bytes'] for r in reads)
    assert got['read_bw'] == pytest.approx(
        sum(r['io_bytes'] for r in reads) /
        max(r['runtime'] for r in reads) * 1000 / 1e6)
    # ... which fio's per-thread rates add up to, within its rounding
    assert got['read_bw'] == pytest.approx(
        sum(r['bw_bytes'] for r in reads) / 1e6, rel=0.02)
    assert got['read_iops'] == pytest.approx(sum(r['iops'] for r in reads),
                                             rel=0.02)
    means = [r['clat_ns']['mean'] / 1000 for r in reads]
    assert min(means) <= got['clat_mean'] <= max(means)


@pytest.mark.parametrize('expected, plan, message', [
    (8, PLAN, r"fio reported 4 thread\(s\) of job 'read', expected 8"),
    (4, {**PLAN, 'direct': 0}, r'fio thread 0 of .read. ran with direct=1, '
                               r'expected 0'),
    (4, {**PLAN, 'cpus_allowed': 1}, r'ran with cpus_allowed=0, expected 1'),
])
def test_a_run_that_is_not_the_plan_is_refused(expected, plan, message):
    with pytest.raises(IogapError, match=message):
        parse.threads(doc(), 'read', expected, plan)


def test_a_failed_or_idle_thread_is_refused():
    bad = copy.deepcopy(doc())
    bad['jobs'][2]['error'] = 5
    with pytest.raises(IogapError, match='fio thread 2 of .read. failed '
                                         'with error 5'):
        parse.threads(bad, 'read', 4, PLAN)
    bad = copy.deepcopy(doc())
    bad['jobs'][1]['read']['io_bytes'] = 0
    with pytest.raises(IogapError, match='fio thread 1 of .read. read '
                                         'nothing'):
        parse.threads(bad, 'read', 4, PLAN)


def test_output_that_is_not_fios_json_is_one_line(tmp_path):
    with pytest.raises(IogapError, match='fio wrote no JSON output'):
        parse.load(str(tmp_path / 'none.json'))
    (tmp_path / 'cut.json').write_text(open(os.path.join(
        DATA, 'read_4threads_cpu0.json')).read()[:500])
    with pytest.raises(IogapError, match='is not JSON'):
        parse.load(str(tmp_path / 'cut.json'))
    (tmp_path / 'other.json').write_text(json.dumps({'fio version': 'x'}))
    with pytest.raises(IogapError, match='holds no "jobs" list'):
        parse.load(str(tmp_path / 'other.json'))


def fio_available():
    view = built_view()
    return bool((view and os.path.exists(os.path.join(view, 'bin', 'fio')))
                or shutil.which('fio'))


@pytest.mark.reframe
@pytest.mark.skipif(not fio_available(), reason='no fio: neither in a '
                    'built view (./setup.sh with IOGAP_SPACK_ROOT) nor on '
                    'PATH')
def test_threads_on_one_core_are_measured_and_their_ratio_judged(tmp_path):
    # The generic profile measures but does not judge it (too noisy here,
    # reference/anyhost.yaml): what is tested is that the ratio is judged
    reference = tmp_path / 'reference'
    reference.mkdir()
    side = {'test': 'FioThreads', 'partition': 'default', 'var': 'read_bw'}
    (reference / 'anyhost.yaml').write_text(yaml.safe_dump({
        'system': 'anyhost', 'ratios': [{
            'name': 'fio_8_over_1_thread_one_core_read_bw',
            'numerator': {**side, 'params': {'threads': 8}},
            'denominator': {**side, 'params': {'threads': 1}},
            'ref': [1.5, 0, None], 'unit': 'ratio', 'provenance': 'test',
            'noise': {'expected': 3.0, 'cv': 0.01, 'source': 'test'}}],
        'noise': [{'var': '*', 'cv': 0.01, 'source': 'test'}]},
        sort_keys=False))
    run = run_reframe(tmp_path, '-n', 'FioThreads|RatioCheck.*fio', '-S',
                      'FioThreads.runtime=1', '-S',
                      'FioThreads.file_size=64m', '-r',
                      env={'IOGAP_REFERENCE_DIR': str(reference)})
    measured = cases(run, 'FioThreads')
    assert sorted(tc['threads'] for tc in measured) == [1, 8]
    for tc in measured:
        assert tc['result'] == 'pass', tc['fail_reason']
        assert tc['tool_provider'].startswith(('spack-view:', 'PATH:'))
        assert tc['tool_provider'].endswith('/fio')
        assert f'{tc["threads"]} thread(s) on cpu ' in tc['method']
        assert perf(tc, 'read_bw') > 0 and perf(tc, 'clat_mean') > 0
        # each repetition one core, then spread (or the other way), paired
        # ReFrame copies a case's files to its output once every judgement
        # of it passed; while one failed they stay in its stage
        files = tc['outputdir'] if os.listdir(tc['outputdir']) else \
            tc['stagedir']
        bw = {side: [parse.figures(parse.load(os.path.join(
            files, f'fio_{side}_{rep}.json'))['jobs'])['read_bw']
            for rep in range(1, 4)] for side in ('one', 'spread')}
        assert perf(tc, 'read_bw') == pytest.approx(
            statistics.median(bw['one']))
        assert perf(tc, 'read_bw_paired') == pytest.approx(math.exp(
            statistics.fmean(math.log(a / b) for a, b in zip(*bw.values()))))
    [ratio] = cases(run, 'RatioCheck')
    # Judged from the two figures: pass or fail, never skipped
    assert ratio['result'] in ('pass', 'fail')
    assert perf(ratio, 'fio_8_over_1_thread_one_core_read_bw') == \
        pytest.approx(
            perf(*[t for t in measured if t['threads'] == 8], 'read_bw') /
            perf(*[t for t in measured if t['threads'] == 1], 'read_bw'),
            rel=1e-3)
