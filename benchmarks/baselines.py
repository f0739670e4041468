"""The rule baselines: each game's rule players (its ``heuristic`` styles, and for reference
The Brain's ``greedy``) at every table of ``configs/experiments.yaml: baselines``, on held-out
deals, written to ``benchmarks/results/baselines/<game>.json`` and rendered into the results
page's "Rule baselines" section.

    python benchmarks/baselines.py --regenerate [--workers 2]   # measure, then render the page

The Brain: the team win rate with the player in every seat. Oh My Brain and Brilliant Boar:
the player's seat win rate with the default heuristic in every other seat (seats rotate), so
a style is measured against the old baseline; the default's own row is the chance rate.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import date
from pathlib import Path

from braincards.envs import get_spec
from braincards.training.agents.network import set_torch_threads
from braincards.training.evaluation.evaluate import evaluate

if __package__ in (None, ""):  # run as `python benchmarks/baselines.py`: the package is importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import experiments  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "benchmarks" / "results" / "baselines"
PLAN = experiments.load()["baselines"]


def table_name(config: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in config.items())


def measure(game: str, plan: dict, games: int, seed: int, workers: int) -> dict:
    """One game's record: per table, per player, the win rate and mean score (95% intervals)."""
    cooperative = get_spec(game).cooperative
    rows = []
    for config in plan["tables"]:
        n = config["num_players"]
        for player in plan["players"]:
            seats = [player] * n if cooperative or player == "heuristic" else [player] + ["heuristic"] * (n - 1)
            t = time.perf_counter()
            r = evaluate(game, config, seats=seats, games=games, seed=seed, workers=workers, progress=False)
            d = r["team"] if cooperative else r["policies"][player]
            rows.append({"table": config, "player": player, "win_rate": d["win_rate"],
                         "mean_score": d["mean_score"], "seconds": round(time.perf_counter() - t, 1)})
            print(f"{game} {table_name(config)} {player}: {d['win_rate']['value']:.3f}", flush=True)
    return {"game": game, "games": games, "seed": seed, "rows": rows, "measured": date.today().isoformat(),
            "cpus": os.cpu_count()}


def load() -> list[dict]:
    order = list(PLAN["per_game"])
    found = [json.loads(p.read_text()) for p in FOLDER.glob("*.json")]
    return sorted(found, key=lambda r: order.index(r["game"]) if r["game"] in order else len(order))


def _interval(d: dict) -> str:
    return f"{d['value']:.3f} [{d['lo']:.3f}, {d['hi']:.3f}]"


def render(records: list[dict]) -> list[str]:
    """The results page's "Rule baselines" section (Markdown lines): a table per game, a row
    per table of the game, a column per player."""
    if not records:
        return []
    lines = ["## Rule baselines", "",
             "Each game's rule players (see [Agents](agents.md#rule-baselines)). The Brain: the team's win",
             "rate with the player in every seat. Oh My Brain and Brilliant Boar: the player's seat win",
             "rate with the default `heuristic` in every other seat, so each style is measured against",
             "the default (whose own column is the chance rate). Held-out deals: the careful The Brain",
             "player was designed on other seeds. `python benchmarks/baselines.py --regenerate`.", ""]
    for rec in records:
        players = list(dict.fromkeys(r["player"] for r in rec["rows"]))
        lines += [f"### {get_spec(rec['game']).title}", "",
                  "| table | " + " | ".join(f"`{p}`" for p in players) + " |", "|---|" + "---|" * len(players)]
        cells: dict[str, dict[str, str]] = {}
        for r in rec["rows"]:
            cells.setdefault(table_name(r["table"]), {})[r["player"]] = _interval(r["win_rate"])
        for table, by in cells.items():
            lines.append(f"| {table} | " + " | ".join(by.get(p, "-") for p in players) + " |")
        lines += ["", f"- {rec['games']:,} games per cell (the same deals in every cell of a row), seed "
                      f"{rec['seed']}, measured {rec['measured']} on {rec['cpus']} CPU cores.", ""]
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--regenerate", action="store_true", help="measure every game of the plan")
    p.add_argument("--only", action="append", default=None, metavar="GAME")
    p.add_argument("--games", type=int, default=PLAN["games"])
    p.add_argument("--workers", type=int, default=1)
    args = p.parse_args(argv)
    if args.regenerate:
        set_torch_threads(1)
        FOLDER.mkdir(parents=True, exist_ok=True)
        for game in args.only or list(PLAN["per_game"]):
            record = measure(game, PLAN["per_game"][game], args.games, PLAN["seed"], args.workers)
            (FOLDER / f"{game}.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print("\n".join(render(load())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
