'''A ratio over a curve (iogap.judge.readings.RatioCheck with ``over``
and ``at``): the study's file-per-process gap, Haswell/KNL over 1 to 32
processes per node (1.52x), judged as the geometric mean of the points'
ratios. It passes at the study's values and fails once the gap vanishes;
its cases are the sweep's, its noise a point's (the points may move
together), each night a guard against a gross fault and the gap itself
judged over the nights its effect pools. A curve that names no sweep, or
points a partition does not run, is refused in one line.'''

import json
import math

import numpy as np
import pytest
import yaml

from iogap.site import profile
from iogap.errors import IogapError, ReferenceFileError
from iogap.judge import audit, effects, readings, references

pytestmark = pytest.mark.usefixtures('cori')

NAME = 'haswell_over_knl_ior_fpp_buffered_write_bw_1_to_32procs'
POINTS = [1, 2, 4, 8, 16, 32]


@pytest.fixture
def ref():
    return references.File('reference/cori.yaml', 'cori', profile.parts())


def curve(ref):
    return next(e for e in ref.data['ratios'] if e['name'] == NAME)


def reader(entry):
    '''The judgement's own reading of its entry, without a ReFrame run
    (as the plan reads it).'''
    cls = readings.RatioCheck
    return type('Reader', (), {'ratio': entry, 'sides': cls.sides,
                               'cases': cls.cases, 'judged': cls.judged,
                               'check_precondition':
                                   cls.check_precondition})()


def passes(entry, knl, haswell):
    '''Whether the curve of these per-point bandwidths is within its
    band (ReFrame's relative bounds).'''
    figures = [f for h, k in zip(haswell, knl)
               for f in ({'write_bw': h}, {'write_bw': k})]
    value, (ref, lower, upper), _ = reader(entry).judged(figures)[NAME]
    return value, (lower is None or value >= ref * (1 + lower)) and \
        (upper is None or value <= ref * (1 + upper))


def test_its_cases_are_both_partitions_at_each_point_of_the_study(ref):
    cases = reader(curve(ref)).cases()
    assert [(part, p['procs_per_node']) for _, part, p in cases] == \
        [(part, n) for n in POINTS for part in ('haswell', 'knl')]
    assert {(p['layout'], p['api'], p['mode']) for _, _, p in cases} == \
        {('fpp', 'POSIX', 'buffered')}


def nights(ref, knl, haswell, count):
    '''The curve's effect judged over ``count`` nights of these
    per-point bandwidths, each night's noise drawn as the audit assumes
    it (fixed seed): ``(passed, message)``.'''
    entry = curve(ref)
    effect = next(e for e in ref.data['effects'] if e['ratio'] == NAME)
    [row] = [r for r in ref.audit if r.name == effect['name']]
    rng = np.random.default_rng(39)
    values = []
    for _ in range(count):
        noisy = [(h * math.exp(0.1 * rng.standard_normal()),
                  k * math.exp(0.1 * rng.standard_normal()))
                 for h, k in zip(haswell, knl)]
        values.append(passes(entry, [k for _, k in noisy],
                             [h for h, _ in noisy])[0])
    limits = audit.budget(ref)
    return effects.judge(effect, values, row.noise, limits['effect'],
                         limits['stress'])


def test_it_passes_at_the_studys_gap_and_fails_once_the_gap_vanishes(ref):
    entry = curve(ref)
    knl = [300.0 * n ** 0.7 for n in POINTS]
    study = [1.52 * k for k in knl]
    value, ok = passes(entry, knl, study)
    assert value == pytest.approx(1.52) and ok
    # the gap uneven over the curve, widest at one process: about 1.5
    value, ok = passes(entry, knl, [k * g for k, g in zip(
        knl, [2.0, 1.9, 1.7, 1.4, 1.2, 1.05])])
    assert value == pytest.approx(1.5, abs=0.01) and ok
    # each night a guard against a gross fault: KNL twice Haswell fails
    assert passes(entry, knl, [k / 2 for k in knl]) == \
        (pytest.approx(0.5), False)
    # the gap itself over the nights the effect pools: at the study's
    # values it passes, with no gap (or a gap at one point only) it fails
    assert nights(ref, knl, study, 5)[0] is True
    passed, message = nights(ref, knl, knl, 5)
    assert passed is False and 'at least 1.13 needed' in message
    assert nights(ref, knl, [k * (1.52 if n == 1 else 1.0)
                             for k, n in zip(knl, POINTS)], 5)[0] is False
    # fewer nights than it pools: not judged yet
    assert nights(ref, knl, knl, 4)[0] is None


def test_a_point_that_divides_by_zero_is_named(ref):
    figures = [{'write_bw': 1.0}] * 12
    figures[7] = {'write_bw': 0.0}
    with pytest.raises(IogapError, match=r'the denominator is 0 at '
                       r'procs_per_node=8$'):
        reader(curve(ref)).judged(figures)


def test_its_noise_is_a_points_not_averaged_down_and_within_budget(ref):
    [row] = [r for r in ref.audit if r.name == NAME]
    # 10 % a side, 14.1 % a point; the six points may move together
    assert row.noise == pytest.approx(0.1 * 2 ** 0.5)
    assert 'RMS of its 6 points' in row.source
    assert row.stress_rate <= audit.budget(ref)['judgement'] / 100
    [effect] = [r for r in ref.audit if r.kind == 'effects' and
                r.entry['ratio'] == NAME]
    assert effect.stress_rate == pytest.approx(audit.budget(ref)['effect'])
    # the gap's disappearance caught 9 in 10 within the 7 nights
    assert effect.detects[0] == effect.entry['nights'] <= 7


def load(tmp_path, entry):
    data = {'system': 'cori', 'ratios': [entry],
            'noise': [{'var': '*', 'cv': 0.1, 'source': 'assumed'}]}
    path = tmp_path / 'cori.yaml'
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return references.File(str(path), 'cori', profile.parts())


@pytest.mark.parametrize('change, message', [
    (lambda e: e.pop('at'), r"ratios\[0\]: 'at' is a dependency of 'over'"),
    (lambda e: e.update(over='threads'), r"ratios\[0\]\.over: IORBench "
     r"\(numerator\) has no parameter 'threads'"),
    (lambda e: e['numerator']['params'].update(procs_per_node=4),
     r"ratios\[0\]\.numerator\.params: fixes procs_per_node"),
    (lambda e: e.update(at=[1, 64]), r"ratios\[0\]\.numerator\.params: "
     r"IORBench with .*'procs_per_node': 64.* is not generated on "
     r"partition haswell"),
])
def test_a_curve_that_cannot_be_run_is_refused_in_one_line(
        tmp_path, ref, change, message):
    entry = json.loads(json.dumps(curve(ref)))
    change(entry)
    with pytest.raises(ReferenceFileError, match=message) as err:
        load(tmp_path, entry)
    assert '\n' not in str(err.value)
