"""``benchmark``: one policy (and optionally a second, paired) on a suite -> a scorecard.

The scorecard is a JSON-safe dict: the suite and its version, the setting (``quick``,
``full`` or ``games=N``), the package versions, its provenance (:mod:`.provenance`: the
suite's content hash, the policy's files, command, seeds, date), the policy's metadata, one row per scenario
(seeds, raw results with intervals, references, normalised score), the rliable aggregates,
the performance profile, the wall time and, with ``against``, the paired comparison.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from pathlib import Path

from ...agents.checkpoint import CheckpointConfigWarning
from ...agents.policy import spec_label
from ..harness import run_tasks
from . import scoring
from .provenance import provenance
from .runner import PROFILE_TAUS, policy_metadata, run_policy, scenario_card, setting_name, versions
from .suites import Suite, load_suite


def _card(suite: Suite, spec, results: dict, reps: int) -> dict:
    rows = [scenario_card(suite, s, results[s.id]) for s in suite.scenarios]
    matrix = [[row["blocks"][b] for row in rows] for b in range(suite.blocks)]
    return {
        "policy": policy_metadata(spec),
        "scenarios": rows,
        "aggregate": scoring.aggregate(matrix, reps),
        "profile": {
            "taus": PROFILE_TAUS,
            "fraction_above": scoring.performance_profile(matrix, PROFILE_TAUS),
        },
    }


def _comparison(suite: Suite, a: dict, b: dict, res_a: dict, res_b: dict, reps: int) -> dict:
    rows = []
    for s, ra, rb in zip(suite.scenarios, a["scenarios"], b["scenarios"], strict=True):
        raw = scoring.paired_difference(res_a[s.id]["played"]["values"],
                                        res_b[s.id]["played"]["values"])
        low, high = ra["low"]["value"], ra["high"]["value"]
        scale = scoring.normalise(1.0, 0.0, high - low)  # 1 / (high - low)
        rows.append({
            "id": s.id,
            "difference": raw,
            "normalised_difference": {k: v * scale for k, v in raw.items()},
            "probability_of_improvement": scoring.scenario_poi(ra["blocks"], rb["blocks"]),
            "significant": raw["lo"] > 0 or raw["hi"] < 0,
        })
    blocks_a = [[r["blocks"][k] for r in a["scenarios"]] for k in range(suite.blocks)]
    blocks_b = [[r["blocks"][k] for r in b["scenarios"]] for k in range(suite.blocks)]
    return {
        "policy": b["policy"],
        "card": b,
        "scenarios": rows,
        "probability_of_improvement": scoring.probability_of_improvement(blocks_a, blocks_b, reps),
    }


def benchmark(
    spec,
    suite: str | Suite,
    out: str | Path,
    *,
    against=None,
    quick: bool = True,
    games: int | None = None,
    workers: int = 1,
    progress: bool | None = None,
    runner: Callable = run_tasks,
    reps: int = scoring.BOOTSTRAP_REPS,
    command: str | None = None,
) -> dict:
    """Run ``suite`` (a name, a path or a :class:`Suite`) for the policy ``spec`` and, with
    ``against``, for a second policy on the same games. Partial results go to ``out/partial``
    (a rerun resumes); returns the scorecard (see the module docstring). A checkpoint the suite
    seats at a table other than its own is not warned about: the suite chooses its tables.
    ``command`` is recorded in the provenance (default: this process's command line)."""
    suite = suite if isinstance(suite, Suite) else load_suite(suite)
    if (against is not None and spec_label(against) == spec_label(spec) and against is not spec
            and not isinstance(spec, str)):
        raise ValueError(f"two different policies share the name {spec_label(spec)!r}")
    start = time.perf_counter()
    kw = {"quick": quick, "games": games, "workers": workers, "progress": progress,
          "runner": runner}
    with warnings.catch_warnings():  # a suite seats its policies at its scenarios' tables on purpose
        warnings.simplefilter("ignore", CheckpointConfigWarning)
        res_a = run_policy(suite, spec, Path(out), **kw)
        res_b = None if against is None else run_policy(suite, against, Path(out), **kw)
    card = {
        "benchmark": "braincards",
        "suite": suite.name,
        "suite_version": suite.version,
        "game": suite.game,
        "setting": setting_name(quick, games),
        "blocks": suite.blocks,
        "versions": versions(),
        "provenance": provenance(suite, spec, setting_name(quick, games), command),
        **_card(suite, spec, res_a, reps),
    }
    if against is not None:
        card["against"] = _comparison(suite, card, _card(suite, against, res_b, reps), res_a,
                                      res_b, reps)
    card["wall_seconds"] = round(time.perf_counter() - start, 1)
    card["played_seconds"] = round(sum(r["seconds"] for r in card["scenarios"]), 1)
    return card
