"""What a recipe gives over seeds, and where one run falls.

A training result that reproduces bit for bit on one machine is an anecdote: a different seed
or another CPU's float kernels give another run. ``configs/ranges.yaml`` (package data,
written by ``python benchmarks/reproduce.py record``) holds, per recipe, the end of each
seed's run on the first evaluation table (the team for a cooperative game, the first opponent
for a competitive one): where PPO started, the last evaluation, the best one, each a win rate
with its 95% interval (the recipe's *metric*; a solo game that is never won or lost, such as
Brilliant Boar's, keeps the mean score instead). A recipe is matched by its config without the seed (a run with other
steps or options is another recipe and gets no range).

The *expected range* is the span of the recorded seeds' 95% intervals of the last
evaluation: a run of the same recipe on another seed or machine should end inside it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from braincards.envs import get_spec

from ..evaluation.stats import fmt_interval
from .config import TrainConfig, config_dict
from .yaml_files import read_yaml, shipped_configs_dir

RANGES_FILE = "ranges.yaml"
# what a range can be kept for: its name in words and the digits it is shown with
METRICS = {"win_rate": ("win rate", 3), "mean_score": ("mean score", 2)}


def ranges_path() -> Path:
    """``configs/ranges.yaml`` of the installed package."""
    return shipped_configs_dir() / RANGES_FILE


def load_ranges() -> dict:
    """Recipe name -> its recorded seeds (``{}`` when nothing is recorded yet)."""
    path = ranges_path()
    if not path.is_file():
        return {}
    return read_yaml(path, "ranges file") or {}


def recipe_sha256(cfg: TrainConfig) -> str:
    """The recipe's identity: the SHA-256 of its resolved config, the seed left out."""
    data = config_dict(cfg)
    data.pop("seed", None)
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def first_table(entry: dict) -> str:
    """The evaluation table a range is kept for: the first one an evaluation reports."""
    return next(name for name in entry if name not in ("timesteps", "primary"))


def range_metric(cfg: TrainConfig) -> str:
    """What a recipe's range is kept for: the win rate, or the mean score for a solo game that
    is never won or lost (its win rate is 1 in every game; :attr:`GameSpec.solo_wins`)."""
    return "mean_score" if cfg.num_players == 1 and not get_spec(cfg.game).solo_wins else "win_rate"


def metric_of(entry: dict) -> str:
    """A recorded entry's metric (entries recorded before metrics existed are win rates)."""
    return entry.get("metric", "win_rate")


def metric_name(entry: dict) -> str | None:
    """The entry's metric in words where it is not the win rate (None for a win rate, which the
    tables and lines take as read)."""
    metric = metric_of(entry)
    return None if metric == "win_rate" else METRICS[metric][0]


def shown(entry: dict, value: float) -> str:
    """One of the entry's values with its metric's digits."""
    return f"{value:.{METRICS[metric_of(entry)][1]}f}"


def seed_record(seed: int, summary: dict, metric: str = "win_rate") -> dict:
    """What a range keeps of one run: its seed and, on the first table, the metric (the win rate,
    or the mean score: :func:`range_metric`) where PPO started, at the last evaluation and at
    the best."""
    table = first_table(summary["last"])
    pick = {k: summary[k][table][metric] for k in ("start", "last", "best") if summary.get(k)}
    return {"seed": seed, "table": table, **{k: {key: round(v, 4) for key, v in d.items()} for k, d in pick.items()}}


def expected_range(entry: dict) -> tuple[float, float]:
    """The span of the recorded seeds' 95% intervals of the last evaluation."""
    return (min(s["last"]["lo"] for s in entry["seeds"]), max(s["last"]["hi"] for s in entry["seeds"]))


def range_for(cfg: TrainConfig) -> tuple[str, dict] | None:
    """(recipe name, recorded entry) for this config, or None when it is not a recorded recipe."""
    sha = recipe_sha256(cfg)
    return next(((name, e) for name, e in load_ranges().items() if e.get("config_sha256") == sha), None)


def range_line(cfg: TrainConfig, summary: dict) -> str | None:
    """One line comparing a finished run with its recipe's recorded seeds, or None."""
    found = range_for(cfg)
    if found is None or not summary.get("last"):
        return None
    name, entry = found
    lo, hi = expected_range(entry)
    table, metric = entry["seeds"][0]["table"], metric_of(entry)
    value = summary["last"][table][metric]
    seeds = ", ".join(f"{shown(entry, s['last']['value'])} (seed {s['seed']})" for s in entry["seeds"])
    inside = "inside" if lo <= value["value"] <= hi else "OUTSIDE"
    metric_label = metric_name(entry)
    label = f" {metric_label}" if metric_label else ""
    return (f"{name}, {table}{label}: this run ended at {fmt_interval(value, METRICS[metric][1])}, {inside} the "
            f"expected range {shown(entry, lo)}-{shown(entry, hi)} (recorded runs ended at {seeds}; "
            f"{entry.get('machine', 'machine not recorded')})")


def ranges_table() -> str:
    """The recorded recipes as a Markdown table (the docs' training page shows it)."""
    lines = ["| recipe | table | seeds | where PPO started | last evaluation | best | expected range |",
             "|---|---|---|---|---|---|---|"]
    recorded = load_ranges()
    for name, entry in sorted(recorded.items()):
        seeds = entry["seeds"]

        def values(key, seeds=seeds, entry=entry):
            return ", ".join(shown(entry, s[key]["value"]) if key in s else "-" for s in seeds)

        lo, hi = expected_range(entry)
        metric_label = metric_name(entry)
        table = seeds[0]["table"] + (f" ({metric_label})" if metric_label else "")
        lines.append(f"| `{name}` (`{entry['config']}`) | {table} | "
                     f"{', '.join(str(s['seed']) for s in seeds)} | {values('start')} | {values('last')} | "
                     f"{values('best')} | {shown(entry, lo)}-{shown(entry, hi)} |")
    machines = sorted({e.get("machine", "") for e in recorded.values()})
    lines.append("")
    lines.append("Recorded on " + "; ".join(machines) + " (`python benchmarks/reproduce.py record`).")
    return "\n".join(lines)


__all__ = ["METRICS", "expected_range", "first_table", "load_ranges", "metric_name", "metric_of", "range_for", "range_line",
           "range_metric", "ranges_path", "ranges_table", "recipe_sha256", "seed_record", "shown"]
