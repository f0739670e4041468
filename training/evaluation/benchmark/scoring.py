"""Scores: the normalised score of a scenario, the suite's aggregates (rliable) and the
paired comparison of two policies.

* **Normalised score** ``(m - low) / (high - low)``: 0 = the scenario's ``low`` reference,
  1 = its ``high`` reference, both measured on the same games. Intervals are the raw
  metric's (Wilson for a win rate, Student t for a mean score) mapped through the same line.
* **Aggregates**: a scenario's games are cut into ``blocks`` consecutive blocks (each a
  small evaluation run of its own); the block scores form rliable's ``runs x tasks`` matrix,
  whose interquartile mean (IQM) and mean get stratified-bootstrap 95% intervals.
* **Paired comparison**: A and B play the same games of a scenario, so the difference per
  game has a Student t interval; the probability of improvement is rliable's
  ``P(X > Y) + P(X = Y) / 2`` over the two policies' block scores.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from rliable import library as rly
from rliable import metrics

from ..stats import interval_dict, t_interval, wilson_interval

BOOTSTRAP_REPS = 2000
BOOTSTRAP_SEED = 0


def raw_interval(values: list[float], metric: str) -> dict:
    """The raw metric's 95% interval: Wilson for a win rate, t for a mean score."""
    if metric == "win":
        return interval_dict(wilson_interval(int(round(sum(values))), len(values)))
    return interval_dict(t_interval(values))


def normalise(value: float, low: float, high: float) -> float:
    """``(value - low) / (high - low)``; NaN when the references coincide."""
    if not math.isfinite(high - low) or abs(high - low) < 1e-12:
        return math.nan
    return (value - low) / (high - low)


def normalised_interval(raw: dict, low: float, high: float) -> dict:
    """The raw interval mapped to the normalised scale (the references taken as fixed)."""
    return {k: normalise(raw[k], low, high) for k in ("value", "lo", "hi")}


def block_scores(values: list[float], blocks: int, low: float, high: float) -> list[float]:
    """The normalised score of each of ``blocks`` consecutive blocks of games."""
    size = len(values) // blocks
    return [normalise(sum(values[b * size:(b + 1) * size]) / size, low, high)
            for b in range(blocks)]


def _bootstrap(data, func, reps: int) -> dict:
    """rliable's stratified-bootstrap estimate of ``func`` on ``data`` (seeded)."""
    # rliable's StratifiedBootstrap draws its indices from NumPy's global generator (it
    # ignores random_state), so the global generator is seeded here and restored after
    saved = np.random.get_state()
    np.random.seed(BOOTSTRAP_SEED)
    try:
        with warnings.catch_warnings():  # arch deprecates random_state; rliable passes it
            warnings.simplefilter("ignore", FutureWarning)
            point, interval = rly.get_interval_estimates(
                {"x": data}, lambda *x: np.array([func(*x)]), reps=reps,
                random_state=np.random.RandomState(BOOTSTRAP_SEED))
    finally:
        np.random.set_state(saved)
    return {"value": float(point["x"][0]), "lo": float(interval["x"][0][0]),
            "hi": float(interval["x"][1][0])}


def aggregate(matrix: list[list[float]], reps: int = BOOTSTRAP_REPS) -> dict:
    """IQM and mean of a ``blocks x scenarios`` matrix of normalised scores, with rliable's
    stratified-bootstrap 95% intervals (seeded: the same matrix gives the same numbers).
    Scenarios whose references coincide (NaN) are left out."""
    m = np.asarray(matrix, dtype=float)
    m = m[:, ~np.isnan(m).any(axis=0)]
    if m.size == 0:
        nan = {"value": math.nan, "lo": math.nan, "hi": math.nan}
        return {"iqm": nan, "mean": nan, "scenarios": 0}
    return {
        "iqm": _bootstrap(m, metrics.aggregate_iqm, reps),
        "mean": _bootstrap(m, metrics.aggregate_mean, reps),
        "scenarios": int(m.shape[1]),
    }


def performance_profile(matrix: list[list[float]], taus: list[float]) -> list[float]:
    """rliable's score distribution: the fraction of (block, scenario) scores above each tau."""
    m = np.asarray(matrix, dtype=float)
    m = m[:, ~np.isnan(m).any(axis=0)]
    profile, _ = rly.create_performance_profile({"x": m}, np.asarray(taus), reps=1)
    return [float(v) for v in profile["x"]]


def paired_difference(a: list[float], b: list[float]) -> dict:
    """A minus B on the same games: the mean difference with its paired t 95% interval."""
    if len(a) != len(b):
        raise ValueError(f"a paired comparison needs the same games: {len(a)} vs {len(b)}")
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    if all(d == 0 for d in diffs):
        return {"value": 0.0, "lo": 0.0, "hi": 0.0}
    return interval_dict(t_interval(diffs))


def probability_of_improvement(blocks_a: list[list[float]], blocks_b: list[list[float]],
                               reps: int = BOOTSTRAP_REPS) -> dict:
    """rliable's average probability of improvement of A over B (``blocks x scenarios``
    matrices), with its stratified-bootstrap 95% interval."""
    x, y = np.asarray(blocks_a, dtype=float), np.asarray(blocks_b, dtype=float)
    keep = ~(np.isnan(x).any(axis=0) | np.isnan(y).any(axis=0))
    x, y = x[:, keep], y[:, keep]
    return _bootstrap((x, y), metrics.probability_of_improvement, reps)


def scenario_poi(blocks_a: list[float], blocks_b: list[float]) -> float:
    """rliable's probability of improvement of A over B on one scenario (its block scores)."""
    x = np.asarray(blocks_a, dtype=float)[:, None]
    y = np.asarray(blocks_b, dtype=float)[:, None]
    return float(metrics.probability_of_improvement(x, y))
