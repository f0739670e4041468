"""Confidence intervals without scipy: Wilson score intervals for rates, Student t
intervals for means (the t quantile from the regularized incomplete beta function)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

Z95 = NormalDist().inv_cdf(0.975)  # 1.959963984540054


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float, float]:
    """(rate, low, high): the Wilson score interval of ``successes`` out of ``trials``."""
    if trials <= 0:
        return (math.nan, math.nan, math.nan)
    if not 0 <= successes <= trials:
        raise ValueError(f"successes={successes} must be in 0..trials={trials}")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == trials else min(1.0, centre + half)
    return (p, lo, hi)


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (Lentz's method)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """Student's t distribution function."""
    x = df / (df + t * t)
    tail = 0.5 * betainc(df / 2.0, 0.5, x)
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (bisection)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p={p} must be in (0, 1)")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return (lo + hi) / 2.0


def t_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high): the Student t interval of the mean of ``values``.

    One value gives (value, nan, nan); constant values give a zero-width interval.
    """
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = math.fsum(values) / n
    if n == 1:
        return (mean, math.nan, math.nan)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile(0.5 + confidence / 2, n - 1) * math.sqrt(var / n)
    return (mean, mean - half, mean + half)


def interval_dict(triple: tuple[float, float, float]) -> dict[str, float]:
    value, lo, hi = triple
    return {"value": value, "lo": lo, "hi": hi}


def fmt_interval(d: dict, digits: int = 3) -> str:
    """``0.512 [0.481, 0.543]``."""
    v, lo, hi = d["value"], d["lo"], d["hi"]
    if math.isnan(v):
        return "-"
    if math.isnan(lo):
        return f"{v:.{digits}f}"
    return f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"
