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


def test_slope_p_is_the_one_sided_t_test():
    xs, ys = [1.0, 1.1, 1.2, 1.3, 1.4], [100, 104, 103, 109, 110]
    fit = stats.fit_statistics(xs, ys)
    # by hand: slope 25, residual sd sqrt(SSE/3), se = sd/sqrt(Sxx)
    resid = [y - (fit['intercept'] + fit['slope'] * x) for x, y in
             zip(xs, ys)]
    se = math.sqrt(sum(r * r for r in resid) / 3 / 0.1)
    assert fit['slope'] == pytest.approx(25.0)
    assert fit['slope_se'] == pytest.approx(se)
    # t = 25 / 5.26 = 4.75 with 3 degrees of freedom: p ~ 0.009
    assert 0.005 < fit['slope_p'] < 0.01
    assert stats.fit_statistics(xs, ys[::-1])['slope_p'] > 0.99


def test_change_bound_is_the_slopes_upper_bound_across_the_range():
    xs, ys = [1.2, 1.3, 1.4] * 3, [45, 46, 44, 46, 44, 45, 44, 45, 46]
    fit = stats.fit_statistics(xs, ys)
    # slope 0, se 3.78 MB/s/GHz, t(0.95, 7 df) = 1.895: 7.16 x 0.2 / 45
    assert fit['change_bound'] == pytest.approx(1.8946 * 3.7796 * 0.2 / 45,
                                                rel=1e-3)
    assert stats.fit_judged(xs, ys, 'change_bound') == \
        pytest.approx(fit['change_bound'])


def test_fit_statistics_need_three_points():
    with pytest.raises(IogapError, match='at least 3 points'):
        stats.fit_statistics([1.2, 1.4], [45, 46])
