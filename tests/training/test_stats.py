"""Confidence intervals on synthetic cases with known values."""

from __future__ import annotations

import math

import pytest

from braincards.training.evaluation.stats import t_cdf, t_interval, t_quantile, wilson_interval


@pytest.mark.parametrize(
    "df, q",  # two-sided 95% critical values from any t table
    [(1, 12.7062), (2, 4.3027), (5, 2.5706), (10, 2.2281), (30, 2.0423), (100, 1.9840)],
)
def test_t_quantile_matches_tables(df, q):
    assert t_quantile(0.975, df) == pytest.approx(q, abs=1e-4)
    assert t_quantile(0.025, df) == pytest.approx(-q, abs=1e-4)
    assert t_cdf(q, df) == pytest.approx(0.975, abs=1e-5)


def test_t_interval_known_case():
    # mean 3, s = sqrt(2.5), se = s / sqrt(5), t(0.975, 4) = 2.776445
    mean, lo, hi = t_interval([1, 2, 3, 4, 5])
    half = 2.776445105 * math.sqrt(2.5 / 5)
    assert mean == 3
    assert lo == pytest.approx(3 - half, abs=1e-6) and hi == pytest.approx(3 + half, abs=1e-6)
    assert t_interval([2.0, 2.0, 2.0]) == (2.0, 2.0, 2.0)
    m, lo, hi = t_interval([7.0])
    assert m == 7.0 and math.isnan(lo) and math.isnan(hi)
    assert all(math.isnan(x) for x in t_interval([]))


def test_wilson_known_cases():
    # p = 0.5, n = 100: [0.4038, 0.5962]
    p, lo, hi = wilson_interval(50, 100)
    assert p == 0.5 and lo == pytest.approx(0.403832, abs=1e-5) and hi == pytest.approx(0.596168, abs=1e-5)
    # 0 of 10: [0, 0.2775]; 10 of 10: [0.7225, 1]
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.0, 0.277533), abs=1e-5)
    assert wilson_interval(10, 10) == pytest.approx((1.0, 0.722467, 1.0), abs=1e-5)
    # 1 of 20 (asymmetric): [0.00889, 0.2361]
    _, lo, hi = wilson_interval(1, 20)
    assert lo == pytest.approx(0.008887, abs=1e-5) and hi == pytest.approx(0.236128, abs=1e-5)
    with pytest.raises(ValueError):
        wilson_interval(5, 3)
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
