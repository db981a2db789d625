'''The study's effects over nights (iogap.judge.effects): the closed-form
rates the audit prints agree with simulated series (fixed seeds), an
effect that vanishes or reverses fails within the nights the audit states,
a healthy one passes, and the site's own history replaces the assumed
noise once it is long enough.'''

import math
import os

import numpy as np
import pytest

from conftest import ROOT
from iogap.judge import effects

GAIN = {'name': 'gain', 'ratio': 'r', 'healthy': 1.5, 'vanished': 1.0,
        'nights': 5, 'provenance': 'test'}
DROP = {'name': 'lower', 'ratio': 'r', 'healthy': 0.8, 'vanished': 1.0,
        'nights': 15, 'provenance': 'test'}


def simulate(entry, cv, true, alpha, stress, seed, count=200000,
             scale=1.0):
    '''Share of simulated series (log-normal nights of spread ``scale``
    times the assumed ``cv``, around ``true``) the judgement fails.'''
    rng = np.random.default_rng(seed)
    logs = math.log(true) + scale * cv * rng.standard_normal(
        (count, entry['nights']))
    limit = effects.threshold(entry, cv, alpha, stress)
    mean = logs.mean(axis=1)
    return float(np.mean(mean < limit if entry['healthy'] >
                         entry['vanished'] else mean > limit))


@pytest.mark.parametrize('entry', [GAIN, DROP])
def test_the_closed_form_rates_agree_with_simulated_nights(entry):
    (rate, stressed), caught = effects.rates(entry, 0.141, 0.001, 1.5)
    assert stressed == pytest.approx(0.001, rel=1e-6)
    assert simulate(entry, 0.141, entry['healthy'], 0.001, 1.5, 1,
                    scale=1.5) == pytest.approx(0.001, abs=0.0003)
    assert simulate(entry, 0.141, entry['healthy'], 0.001, 1.5, 2) == \
        pytest.approx(rate, abs=0.0002)
    assert simulate(entry, 0.141, entry['vanished'], 0.001, 1.5, 3) == \
        pytest.approx(caught, abs=0.003)


def test_the_nights_needed_are_the_fewest_that_catch_9_in_10():
    need = effects.nights_needed(GAIN, 0.141, 0.001, 1.5)
    assert need == 5
    assert effects.rates({**GAIN, 'nights': need}, 0.141, 0.001, 1.5)[1] \
        >= 0.9
    assert effects.rates({**GAIN, 'nights': need - 1}, 0.141, 0.001,
                         1.5)[1] < 0.9
    # a 21 % gain at 14 % a night takes 20 nights; none within 30 at 40 %
    assert effects.nights_needed({**GAIN, 'healthy': 1.21}, 0.141, 0.001,
                                 1.5) == 20
    assert effects.nights_needed({**GAIN, 'healthy': 1.21}, 0.4, 0.001,
                                 1.5) is None


def series(true, cv, nights, seed):
    return list(true * np.exp(cv * np.random.default_rng(seed)
                              .standard_normal(nights)))


def test_a_vanished_or_reversed_effect_fails_and_a_healthy_one_passes():
    healthy = series(1.5, 0.141, 5, 4)
    assert effects.judge(GAIN, healthy, 0.141, 0.001, 1.5)[0] is True
    for gone in (1.0, 0.8):      # vanished, reversed
        tail = series(gone, 0.141, 5, 5)
        passed, why = effects.judge(GAIN, healthy + tail, 0.141, 0.001, 1.5)
        assert passed is False and 'last 5 nights' in why
    passed, why = effects.judge(DROP, series(1.1, 0.141, 15, 6), 0.141,
                                0.001, 1.5)
    assert passed is False and 'at most' in why


def test_too_few_nights_are_not_judged():
    passed, why = effects.judge(GAIN, [1.5, 1.5], 0.141, 0.001, 1.5)
    assert passed is None and '2 of the 5 nights' in why


def test_the_sites_own_spread_replaces_the_assumed_one():
    # a quiet site (2 % a night): its threshold moves close to healthy, so
    # a 20 % loss of the gain fails there, though not at the assumed 14 %
    before = series(1.5, 0.02, effects.SITE_NIGHTS, 7)
    after = [1.25] * 5
    assert effects.judge(GAIN, after, 0.141, 0.001, 1.5)[0] is True
    passed, why = effects.judge(GAIN, before + after, 0.141, 0.001, 1.5)
    assert passed is False and f'the {effects.SITE_NIGHTS} nights before' \
        in why


def test_the_series_divides_by_the_other_ratio_on_common_nights():
    values = {'a': {0: 2.0, 1: 3.0, 2: 4.0}, 'b': {1: 1.5, 2: 2.0}}
    entry = {**GAIN, 'ratio': 'a', 'over': 'b'}
    assert effects.series(entry, lambda n: values.get(n, {})) == [2.0, 2.0]


def test_the_nightly_judges_coris_effects_from_its_ratios_series(cori):
    # the series the nightly reads back (iogap.judge.acrossnights.series):
    # core specialization's gain holds 30 nights, then is gone for the 4
    # it pools (5 % a night: the site's own spread, of the 30 before)
    from iogap.judge import acrossnights as nightly
    from iogap.judge import audit, references
    ref = references.File(os.path.join(ROOT, 'reference', 'cori.yaml'),
                          'cori', cori, enforce=False)
    rows = audit.rows(ref)
    name = 'knl_core_spec_gain_hdf5_collective_write_bw'
    key = ('cori:knl', f'RatioCheck %ratio={name}', name)
    gains = series(1.21, 0.05, 30, 8) + series(1.0, 0.05, 4, 9)
    for nights, verdict in ((30, 'held'), (34, 'gone')):
        found = {key: list(enumerate(gains[:nights]))}
        [(effect, status, why)] = nightly.verdicts(ref, rows, found,
                                                   nights - 1)
        assert (effect, status) == ('knl_core_spec_gain', verdict), why
    assert 'the 30 nights before' in why
    # an effect none of whose ratios was judged tonight is not judged
    assert nightly.verdicts(ref, rows, {key: [(0, 1.2)]}, 1) == []


def test_a_quiet_site_judges_the_fewer_nights_its_spread_needs():
    # 2 % a night: 1 night catches the gain's loss 9 in 10, so a loss
    # two nights old fails there, though 3 healthy nights of the entry's
    # 5 would hide it
    before = series(1.5, 0.02, effects.SITE_NIGHTS, 7)
    assert effects.nights_needed(GAIN, effects.noise.spread(before), 0.001,
                                 1.5) < 5
    passed, why = effects.judge(GAIN, before + [1.5] * 3 + [1.0] * 2, 0.141,
                                0.001, 1.5)
    assert passed is False and 'last 1 nights' in why, why
    # healthy, the same quiet history passes
    passed, _ = effects.judge(GAIN, before + series(1.5, 0.02, 5, 10),
                              0.141, 0.001, 1.5)
    assert passed is True
