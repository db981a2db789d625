'''Repetition statistics and the CPU-frequency fit.'''

import math

import pytest

from iogap.core import stats
from iogap.errors import IogapError


def test_summary():
    s = stats.summary([100.0, 110.0, 90.0])
    assert s['median'] == 100.0 and s['min'] == 90.0 and s['max'] == 110.0
    assert s['cv'] == pytest.approx(10.0)


def test_summary_of_nothing_is_an_error():
    with pytest.raises(IogapError):
        stats.summary([])


def test_fit_recovers_the_study_shape():
    # KNL buffered dd: intercept 41.28 MB/s, BW rising with clock
    freqs = [1.0, 1.1, 1.2, 1.3, 1.4] * 3
    slope, intercept = 190.0, 41.28
    noise = [3, -2, 1, -3, 2, -1, 2, -2, 3, -1, 0, 1, -3, 2, -1]
    bws = [slope * f + intercept + n for f, n in zip(freqs, noise)]
    fit = stats.linear_fit(freqs, bws)
    assert fit['slope'] == pytest.approx(slope, rel=0.05)
    assert fit['intercept'] == pytest.approx(intercept, abs=8)
    assert 0.9 < fit['r2'] <= 1.0


def test_fit_of_flat_noise_has_low_r2():
    # dsync/direct: bandwidth does not follow the clock (study r² 0.03-0.16)
    fit = stats.linear_fit([1.2, 1.3, 1.4] * 3,
                           [45, 46, 44, 46, 44, 45, 44, 45, 46])
    assert fit['r2'] < 0.2


def test_exact_line():
    fit = stats.linear_fit([1, 2, 3], [3, 5, 7])
    assert (fit['slope'], fit['intercept'], fit['r2']) == (2, 1, 1)


def test_one_frequency_is_a_clear_failure_not_nan():
    with pytest.raises(IogapError, match='two distinct x'):
        stats.linear_fit([1.4, 1.4, 1.4], [300, 310, 305])


def test_zero_variance_bandwidth_gives_r2_zero():
    fit = stats.linear_fit([1.2, 1.3, 1.4], [50, 50, 50])
    assert fit['r2'] == 0 and fit['slope'] == 0
    assert not any(math.isnan(v) for v in fit.values())


def test_unpaired_data():
    with pytest.raises(IogapError, match='paired'):
        stats.linear_fit([1, 2], [1])
