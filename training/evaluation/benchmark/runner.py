"""Running a suite: every scenario for one policy, resumable, then its scorecard.

Each scenario's games (and each reference's) are written to ``OUT/partial/`` atomically as
soon as they are played; a run started again with the same ``OUT`` reads them back and
plays only what is missing. Every number is a function of the suite, the policy and the
game count alone, so a resumed run gives exactly the numbers of an uninterrupted one.
"""

from __future__ import annotations

import json
import platform
import re
import sys
import time
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from tqdm import tqdm

from braincards.envs import table_config
from braincards.training.files import write_json

from ...agents.checkpoint import CheckpointError, read_metadata
from ...agents.locations import resolve_checkpoint
from ...agents.policy import spec_label
from ..harness import run_tasks, validate_specs
from . import scoring
from .scenarios import play_scenario, reference_value
from .suites import Scenario, Suite

PROFILE_TAUS = [round(0.05 * i, 2) for i in range(0, 31)]  # 0 .. 1.5


def slug(text: str) -> str:
    """A file-name-safe form of a policy spec."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "policy"


def game_count(suite: Suite, scenario: Scenario, quick: bool, games: int | None) -> int:
    """The games played of a scenario: ``games`` when given (a multiple of the suite's blocks,
    at most the scenario's full count), else its quick or full count."""
    if games is None:
        return scenario.num_games(quick)
    games = int(games)
    if games < suite.blocks or games % suite.blocks or games > scenario.games:
        raise ValueError(
            f"games={games} must be a multiple of the suite's blocks "
            f"({suite.blocks}) and at most {scenario.games} ({scenario.id})"
        )
    return games


def setting_name(quick: bool, games: int | None) -> str:
    return f"games={games}" if games is not None else ("quick" if quick else "full")


def policy_metadata(spec) -> dict:
    """What a scorecard says about the evaluated policy: its spec, and for a checkpoint the
    game, env config, algorithm and timesteps of its metadata."""
    label = spec_label(spec)
    out: dict = {"spec": label}
    path = resolve_checkpoint(label) if isinstance(spec, str) else None
    if path is not None:
        try:
            meta = read_metadata(path)
        except CheckpointError:
            return out
        out["checkpoint"] = {k: meta.get(k) for k in ("game", "env_config", "algo", "timesteps",
                                                      "seed", "created")}
    return out


def _cached(path: Path, key: dict, compute: Callable[[], dict]) -> dict:
    """The record at ``path`` if it was made for ``key``; else ``compute()``, written atomically."""
    if path.is_file():
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            record = None
        if isinstance(record, dict) and record.get("key") == key:
            return record
    t = time.perf_counter()
    record = {"key": key, **compute(), "seconds": round(time.perf_counter() - t, 2)}
    write_json(path, record)
    return record


def _run_scenario(suite_name: str, scenario: Scenario, spec, who: dict, n: int, partial: Path,
                  **kw) -> dict:
    """One scenario's references and focal games, each read from ``partial`` or played
    (``who``: the policy's metadata, so that a retrained checkpoint is played again)."""
    label = spec_label(spec)
    base = {"suite": suite_name, "scenario": scenario.id, "games": n,
            "fingerprint": scenario.fingerprint()}
    refs = {}
    for end in ("low", "high"):
        ref = getattr(scenario, end)
        refs[end] = _cached(partial / "references" / f"{scenario.id}.{end}.json",
                            {**base, "reference": ref.describe()},
                            lambda ref=ref: reference_value(scenario, ref, n, **kw))
    played = _cached(partial / slug(label) / f"{scenario.id}.json", {**base, "policy": who},
                     lambda: play_scenario(scenario, spec, n, **kw))
    return {"played": played, **refs, "games": n}


def run_policy(suite: Suite, spec, out: Path, *, quick: bool = True, games: int | None = None,
               workers: int = 1, progress: bool | None = None,
               runner: Callable = run_tasks) -> dict:
    """Every scenario of ``suite`` for policy ``spec``, resuming from ``out/partial``.
    Returns ``{scenario id: {"played": ..., "low": ..., "high": ..., "games": n}}``."""
    label = spec_label(spec)
    partial = Path(out) / "partial"
    counts = [game_count(suite, s, quick, games) for s in suite.scenarios]
    validate_specs(table_config(suite.game, suite.scenarios[0].config), {"focal": spec})  # a bad spec fails now
    who = policy_metadata(spec)
    bar = tqdm(total=sum(counts), desc=f"{suite.name} {label}", unit="game", file=sys.stderr,
               disable=not (sys.stderr.isatty() if progress is None else progress))
    results = {}
    try:
        for scenario, n in zip(suite.scenarios, counts, strict=True):
            results[scenario.id] = _run_scenario(
                suite.name,
                scenario,
                spec,
                who,
                n,
                partial,
                workers=workers,
                progress=progress,
                runner=runner,
            )
            bar.update(n)
    finally:
        bar.close()
    return results


def versions() -> dict:
    out = {"python": platform.python_version()}
    for dist in ("braincards", "torch", "rliable"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = None
    return out


def scenario_card(suite: Suite, scenario: Scenario, res: dict) -> dict:
    """One scenario's row of a scorecard: raw results with intervals, and the normalised score."""
    played, low, high = res["played"], res["low"]["value"], res["high"]["value"]
    raw = scoring.raw_interval(played["values"], scenario.metric)
    return {
        "id": scenario.id,
        "fingerprint": scenario.fingerprint(),
        "measures": scenario.measures,
        "config": scenario.config,
        "focal": list(scenario.focal),
        "background": dict(scenario.background),
        "games": res["games"],
        "seed": scenario.seed,
        "metric": scenario.metric,
        "win_rate": scoring.raw_interval(played["wins"], "win"),
        "mean_score": scoring.raw_interval(played["scores"], "score"),
        "raw": raw,
        "low": {k: v for k, v in res["low"].items() if k not in ("key",)},
        "high": {k: v for k, v in res["high"].items() if k not in ("key",)},
        "normalised": scoring.normalised_interval(raw, low, high),
        "blocks": scoring.block_scores(played["values"], suite.blocks, low, high),
        "truncated": played["truncated"],
        "seconds": played["seconds"],
    }
