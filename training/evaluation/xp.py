"""Cross-play reports over seeds and recipes (``braincards xp RUNS.yaml``), as the zero-shot
coordination literature reports them.

A report names a cooperative table and its agents grouped by *recipe* (each recipe's list
holds the runs of its seeds), and optionally a *held-out* population of partners that no
recipe trained with. Every pair of agents and every agent with every held-out partner plays
one :func:`~.crossplay.crossplay` cell on the same deals, and the cells are pooled into four
figures per recipe (each a team win rate over all the games it pools, Wilson 95%):

* **self-play** - each agent with itself (its seeds' diagonal cells);
* **intra-recipe** - an agent with another seed of its own recipe;
* **inter-recipe** - an agent with an agent of another recipe (a cell counts for both);
* **held-out** - an agent with a held-out partner.

A recipe whose agents coordinate only with themselves shows self-play far above the others.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from braincards.envs import table_config
from braincards.training import files

from .crossplay import crossplay, write_report
from .stats import fmt_interval, interval_dict, wilson_interval

CATEGORIES = ("self-play", "intra-recipe", "inter-recipe", "held-out")
KEYS = {"game", "config", "recipes", "held_out", "games", "seed"}


def check_runs(runs: dict) -> dict:
    """``runs`` (a report's YAML, read) checked: a ValueError names the bad key and what is
    allowed. Returns a normalised copy."""
    if not isinstance(runs, dict):
        raise ValueError(f"a cross-play report is a mapping with keys {sorted(KEYS)}")
    unknown = sorted(set(runs) - KEYS)
    if unknown:
        raise ValueError(f"unknown key {unknown[0]!r} in the cross-play report; allowed: {sorted(KEYS)}")
    recipes = runs.get("recipes")
    if not isinstance(recipes, dict) or not recipes:
        raise ValueError("recipes: give a mapping of recipe name -> its agents (policy specs, one per seed)")
    for name, agents in recipes.items():
        if not isinstance(agents, list) or not agents or not all(isinstance(a, str) for a in agents):
            raise ValueError(f"recipes.{name}: give a non-empty list of policy specs (one per seed)")
    held_out = runs.get("held_out", [])
    if not isinstance(held_out, list) or not all(isinstance(a, str) for a in held_out):
        raise ValueError("held_out: give a list of policy specs (partners no recipe trained with)")
    every = [a for agents in recipes.values() for a in agents] + list(held_out)
    repeated = sorted({a for a in every if every.count(a) > 1})
    if repeated:
        raise ValueError(f"{repeated[0]!r} is named twice; every agent and held-out partner must be distinct")
    if "game" not in runs:
        raise ValueError("game: name the cooperative game, e.g. the_brain")
    return {"game": runs["game"], "config": dict(runs.get("config") or {}), "recipes": dict(recipes),
            "held_out": list(held_out), "games": int(runs.get("games", 100)), "seed": int(runs.get("seed", 0))}


def _category(a: tuple, b: tuple) -> tuple[str, list[str]] | None:
    """The category of a cell between ``a`` and ``b`` (``(recipe or None, index)``) and the
    recipes it counts for (None for two held-out partners)."""
    (ra, ia), (rb, ib) = a, b
    if ra is None and rb is None:
        return None
    if ra is None or rb is None:
        return "held-out", [ra or rb]
    if (ra, ia) == (rb, ib):
        return "self-play", [ra]
    return ("intra-recipe", [ra]) if ra == rb else ("inter-recipe", [ra, rb])


def pool(result: dict, owners: list[tuple]) -> dict:
    """The four figures per recipe from a cross-play ``result`` whose policies belong to
    ``owners`` (``(recipe or None, index)`` in the same order)."""
    counts = {}
    k = len(owners)
    for i in range(k):
        for j in range(i, k):
            found = _category(owners[i], owners[j])
            if found is None:
                continue
            cell, games = result["win_rate"][i][j], result["games"][i][j]
            wins = round(cell["value"] * games)
            for recipe in found[1]:
                won, played = counts.get((recipe, found[0]), (0, 0))
                counts[(recipe, found[0])] = (won + wins, played + games)
    recipes = list(dict.fromkeys(r for r, _ in owners if r is not None))
    return {r: {c: {"games": counts[(r, c)][1], "win_rate": interval_dict(wilson_interval(*counts[(r, c)]))}
                for c in CATEGORIES if (r, c) in counts} for r in recipes}


def xp_report(runs: dict, *, workers: int = 1, out_dir: str | Path | None = None,
              progress: bool | None = None) -> dict:
    """Play the report ``runs`` (see :func:`check_runs` and the module docstring) and pool it.
    Returns ``{"figures": {recipe: {category: {games, win_rate}}}, "crossplay": ...}``; with
    ``out_dir`` also writes ``xp.json``, ``xp.md``, ``xp.png`` and the cross-play matrix
    (``crossplay.csv``, ``crossplay.png``)."""
    runs = check_runs(runs)
    table = table_config(runs["game"], runs["config"])
    owners = [(r, i) for r, agents in runs["recipes"].items() for i in range(len(agents))]
    owners += [(None, i) for i in range(len(runs["held_out"]))]
    policies = [a for agents in runs["recipes"].values() for a in agents] + runs["held_out"]
    result = crossplay(table, None, policies, games=runs["games"], seed=runs["seed"], workers=workers,
                       progress=progress)
    report = {"runs": runs, "figures": pool(result, owners), "crossplay": result}
    if out_dir is not None:
        written = write_report(out_dir, "xp", report, format_xp(report), result)
        plot_xp(report, Path(out_dir) / "xp.png")
        report["files"] = written[:2] + [str(Path(out_dir) / "xp.png")] + written[2:]
    return report


def format_xp(report: dict) -> str:
    """The report's table: a row per recipe, a column per category (Markdown)."""
    lines = ["| recipe | seeds | " + " | ".join(CATEGORIES) + " |", "|---|---:|" + "---|" * len(CATEGORIES)]
    for recipe, by in report["figures"].items():
        cells = [f"{fmt_interval(by[c]['win_rate'])} ({by[c]['games']})" if c in by else "-" for c in CATEGORIES]
        lines.append(f"| {recipe} | {len(report['runs']['recipes'][recipe])} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot_xp(report: dict, path: Path) -> None:
    """Grouped bars: a group per recipe, a bar per category, 95% intervals as whiskers."""
    recipes = list(report["figures"])
    fig, ax = plt.subplots(figsize=(max(5, 1.6 * len(recipes) + 2), 3.6))
    width = 0.8 / len(CATEGORIES)
    for k, category in enumerate(CATEGORIES):
        x = np.arange(len(recipes)) + (k - 1.5) * width
        rates = [report["figures"][r].get(category, {}).get("win_rate") for r in recipes]
        values = [d["value"] if d else np.nan for d in rates]
        errors = [[d["value"] - d["lo"] if d else 0 for d in rates], [d["hi"] - d["value"] if d else 0 for d in rates]]
        ax.bar(x, values, width, yerr=errors, capsize=2, label=category)
    ax.set_xticks(np.arange(len(recipes)), recipes, rotation=15)
    ax.set_ylim(0, 1)
    ax.set_ylabel("team win rate")
    ax.legend(fontsize=7, ncols=2, loc="upper right")
    try:
        files.save_figure(fig, path, dpi=120)
    finally:
        plt.close(fig)

