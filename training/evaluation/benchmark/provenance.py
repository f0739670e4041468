"""Where a scorecard comes from, and whether a scorecard from elsewhere holds together.

:func:`provenance` is written into every scorecard: the suite and the SHA-256 of its content,
the package version, the policy spec and the SHA-256 of the files behind it (a checkpoint's
archive and metadata, an ONNX file, the module of a ``module:attr`` spec or of a policy
object), the command, the seeds of every scenario and the date.

:func:`check_scorecard` lists what is wrong with a scorecard, one reason per line, so that a
scorecard made on another machine can join the leaderboard: the suite must be one this
package ships and its content hash must match; every scenario must be there with the
scenario's fingerprint, seed and game count; every interval must hold its value; the
normalised scores must follow from the raw ones and the references; the aggregates must be
the ones the blocks give (rliable's bootstrap is seeded, so they are recomputed exactly).
A scorecard that passes holds together; it is not proof that its games were played: re-run
any scenario (``--games``) to check a suspicious number.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import math
import shlex
import sys
from datetime import datetime, timezone
from pathlib import Path

from ...agents.kinds import OUTSIDE
from ...agents.locations import resolve_checkpoint
from ...agents.policy import spec_label
from ...agents.specs import kind
from . import scoring
from .runner import game_count
from .suites import Suite, SuiteError, load_suite

TOLERANCE = 1e-6


def _sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _module_file(module: str) -> dict[str, str]:
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return {}
    if found is None or not found.origin or not Path(found.origin).is_file():
        return {}
    return {f"module {module}": _sha256(Path(found.origin))}


def policy_files(spec) -> dict[str, str]:
    """``{name: sha256}`` of the files that decide how ``spec`` plays: a checkpoint's archive and
    metadata, an ONNX file, the module of outside code; empty for braincards' own kinds (the
    package version names them)."""
    if not isinstance(spec, str):
        return _module_file(type(spec).__module__)
    text = spec.strip()
    if text.startswith("onnx:"):
        path = Path(text[5:].strip())
        return {path.name: _sha256(path)} if path.is_file() else {}
    checkpoint = resolve_checkpoint(text)
    if checkpoint is not None:
        zip_path = Path(checkpoint).with_suffix(".zip")
        return {p.name: _sha256(p) for p in (zip_path, zip_path.with_suffix(".json")) if p.is_file()}
    found = kind(text.partition(":")[0].strip())
    if found is not None:
        return {} if found.origin == "braincards" else _module_file(inspect.getmodule(found.factory).__name__)
    match = OUTSIDE.fullmatch(text)
    return _module_file(match.group(1)) if match else {}


def provenance(suite: Suite, spec, setting: str, command: str | None = None) -> dict:
    """The scorecard's provenance block (see the module docstring)."""
    return {
        "suite": suite.name,
        "suite_sha256": suite.sha256(),
        "setting": setting,
        "policy_spec": spec_label(spec),
        "policy_files": policy_files(spec),
        "command": command or "python " + shlex.join(sys.argv),
        "seeds": {s.id: s.seed for s in suite.scenarios},
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def _interval_problems(where: str, d: dict | None) -> list[str]:
    if not isinstance(d, dict) or not {"value", "lo", "hi"} <= set(d):
        return [f"{where}: not an interval (value, lo, hi)"]
    v, lo, hi = d["value"], d["lo"], d["hi"]
    if v is None:
        return []
    if lo is not None and hi is not None and not lo - TOLERANCE <= v <= hi + TOLERANCE:
        return [f"{where}: value {v} lies outside its interval [{lo}, {hi}]"]
    return []


def _close(a, b) -> bool:
    a = math.nan if a is None else a
    b = math.nan if b is None else b
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= TOLERANCE * max(1.0, abs(b))


def _scenario_problems(suite: Suite, setting: str, row: dict) -> list[str]:
    where = f"scenario {row.get('id')!r}"
    try:
        scenario = suite.scenario(row.get("id"))
    except SuiteError:
        return [f"{where} is not in {suite.name}"]
    out = []
    if row.get("fingerprint") != scenario.fingerprint():
        out.append(f"{where}: fingerprint {row.get('fingerprint')} is not the suite's {scenario.fingerprint()} "
                   "(another config, seats, population, seed or reference)")
    if row.get("seed") != scenario.seed:
        out.append(f"{where}: seed {row.get('seed')} is not the suite's {scenario.seed}")
    quick, games = setting == "quick", int(setting[6:]) if setting.startswith("games=") else None
    expected = game_count(suite, scenario, quick, games)
    if row.get("games") != expected:
        out.append(f"{where}: {row.get('games')} games, the {setting} setting plays {expected}")
    for key in ("raw", "normalised", "win_rate", "mean_score"):
        out += _interval_problems(f"{where} {key}", row.get(key))
    if out:
        return out
    low, high = row["low"]["value"], row["high"]["value"]
    if not _close(row["normalised"]["value"], scoring.normalise(row["raw"]["value"], low, high)):
        out.append(f"{where}: normalised {row['normalised']['value']} does not follow from raw "
                   f"{row['raw']['value']} and the references {low}, {high}")
    blocks = row.get("blocks") or []
    if len(blocks) != suite.blocks:
        out.append(f"{where}: {len(blocks)} blocks, the suite has {suite.blocks}")
    elif all(b is not None for b in blocks) and not _close(sum(blocks) / len(blocks), row["normalised"]["value"]):
        out.append(f"{where}: its blocks average {sum(blocks) / len(blocks)}, not its normalised "
                   f"score {row['normalised']['value']}")
    return out


def check_scorecard(card: dict) -> list[str]:
    """What is wrong with ``card`` (a scorecard read from JSON), one reason each; [] when it
    holds together (see the module docstring)."""
    if not isinstance(card, dict) or card.get("benchmark") != "braincards":
        return ["not a braincards scorecard (no benchmark: braincards)"]
    try:
        suite = load_suite(str(card.get("suite")))
    except SuiteError as err:
        return [str(err)]
    prov = card.get("provenance")
    if not isinstance(prov, dict):
        return ["no provenance (scorecards from braincards benchmark carry one; re-run it)"]
    problems = []
    if prov.get("suite_sha256") != suite.sha256():
        problems.append(f"suite hash {prov.get('suite_sha256')} is not {suite.name}'s {suite.sha256()}: "
                        "the suite file it was run on differs from the shipped one")
    setting = card.get("setting", "")
    if setting not in ("quick", "full") and not (setting.startswith("games=") and setting[6:].isdigit()):
        return problems + [f"unknown setting {setting!r}"]
    rows = card.get("scenarios") or []
    ids = [r.get("id") for r in rows]
    wanted = [s.id for s in suite.scenarios]
    if ids != wanted:
        missing = [i for i in wanted if i not in ids]
        return problems + [f"scenarios {ids} are not the suite's {wanted}" + (f" (missing {missing})" if missing else "")]
    for row in rows:
        problems += _scenario_problems(suite, setting, row)
    if problems:
        return problems
    return _aggregate_problems(suite, card, rows)


def _aggregate_problems(suite: Suite, card: dict, rows: list[dict]) -> list[str]:
    matrix = [[math.nan if r["blocks"][b] is None else r["blocks"][b] for r in rows] for b in range(suite.blocks)]
    expected = scoring.aggregate(matrix)
    out = []
    for key in ("iqm", "mean"):
        got = (card.get("aggregate") or {}).get(key) or {}
        for part in ("value", "lo", "hi"):
            if not _close(got.get(part), expected[key][part]):
                out.append(f"aggregate {key} {part} {got.get(part)} is not what the scenario blocks give "
                           f"({expected[key][part]})")
    return out


__all__ = ["check_scorecard", "policy_files", "provenance"]
