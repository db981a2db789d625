'''The paired dd figure: each repetition's I/O bandwidth over its memory
copy's, from a captured real job; and the nightly's detector judging the
paired figures like the raw ones.'''

import json
import os
import shutil
import sqlite3

import pytest

from iogap.judge import acrossnights as cp
from iogap.core import registry, steps
from iogap.core.figures import HIGHER
from iogap.dd.figures import PAIRED, PATTERNS
from iogap.dd.control import paired, ratios
from iogap.dd.parse import dd_record
from iogap.errors import IogapError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
#: A real direct-mode job of this machine (5 repetitions, 256 MiB file,
#: 10000 MiB memory copies)
JOB = os.path.join(ROOT, 'tests', 'data', 'dd', 'paired-direct.out')
NIGHTS = os.path.join(ROOT, 'tests', 'data', 'changepoint',
                      'nights-results.db')


def job_bandwidths():
    with open(JOB) as fp:
        found = [s for s in steps.parse(fp.read()) if dd_record(s)]
    bw = {}
    for s in found:
        nbytes, seconds = dd_record(s)
        bw.setdefault(s['op'], {})[s['rep']] = nbytes / seconds / 1e6
    return bw


def test_a_real_jobs_write_is_paired_repetition_by_repetition():
    bw = job_bandwidths()
    reps = [str(r) for r in range(1, 6)]
    assert sorted(bw['write']) == sorted(bw['memory']) == reps
    want = [bw['write'][r] / bw['memory'][r] for r in reps]
    assert ratios(bw['write'], bw['memory']) == pytest.approx(want)
    product = want[0] * want[1] * want[2] * want[3] * want[4]
    assert paired(bw['write'], bw['memory']) == pytest.approx(
        product ** (1 / 5))


def test_pairing_follows_the_repetition_not_the_order():
    io, memory = {'1': 100.0, '2': 50.0}, {'2': 500.0, '1': 1000.0}
    assert paired(io, memory) == pytest.approx(0.1)


def test_a_repetition_without_its_control_is_a_clear_error():
    with pytest.raises(IogapError, match=r'repetitions \[.1., .2.\] and '
                       r'the memory copies in \[.1.\]'):
        paired({'1': 1.0, '2': 1.0}, {'1': 2.0})


def test_a_bandwidth_that_is_not_positive_is_a_clear_error():
    with pytest.raises(IogapError, match='not positive .*I/O 1: 0.0'):
        paired({'1': 0.0}, {'1': 2.0})


def test_the_paired_figures_are_judged_higher_is_better():
    for pattern in PATTERNS:
        assert registry.better('DDSingleStream',
                               PAIRED.name(pattern=pattern)) == HIGHER


def test_the_nightly_finds_a_step_in_a_paired_figure(tmp_path):
    '''The real nights, each dd case given a paired figure (its write_bw
    over 1000: real night-to-night noise, not a measurement) that drops
    by 30 % on the last three nights: the detector names it.'''
    path = tmp_path / 'results.db'
    shutil.copyfile(NIGHTS, path)
    with sqlite3.connect(path) as conn:
        rows = conn.execute('SELECT uuid, json_blob FROM sessions ORDER BY '
                            'session_start_unix').fetchall()
        for n, (uuid, blob) in enumerate(rows):
            report = json.loads(blob)
            for tc in report['runs'][0]['testcases']:
                pv = tc.get('perfvalues') or {}
                for key in [k for k in pv if k.endswith(':write_bw')]:
                    value = list(pv[key])
                    value[0] *= (0.7 if n >= len(rows) - 3 else 1) / 1000
                    value[4] = 'ratio'
                    pv[key + '_paired'] = value
            conn.execute('UPDATE sessions SET json_blob = ? WHERE uuid = ?',
                         (json.dumps(report), uuid))
    conn.close()
    lines, found, _ = cp.judge(str(path))
    named = [name for name, _ in found]
    assert any(n.endswith(': write_bw_paired') for n in named), lines
    assert not any(n.endswith(': write_bw') for n in named), lines
