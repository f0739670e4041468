"""Best responses: how exploitable the shipped competitive agents are.

    python benchmarks/best_responses.py       # measure, write benchmarks/results/best_responses.json

Each best response of ``configs/experiments.yaml: best_responses`` is a PPO network trained
against one frozen shipped agent alone (its recipe: ``configs/<game>/best_response_*.yaml``,
the checkpoint chosen on the training's evaluation seed). Here it plays that agent on
held-out deals (seed :data:`SEED`, never an evaluation seed of training), next to the
game's heuristic on the same deals: the best response's win rate is the approximate
exploitability (0.5 at 2 players: not exploitable by this search), the heuristic's says how
much of it any fixed player already gets.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from datetime import date
from pathlib import Path

from braincards.envs import get_spec
from braincards.training.agents.network import set_torch_threads
from braincards.training.evaluation.evaluate import evaluate

if __package__ in (None, ""):  # run as `python benchmarks/best_responses.py`: the package is importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import experiments  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "best_responses.json"
PLAN = experiments.load()["best_responses"]
SEED = 7  # held out: the training evaluations use seed 12345


def _rate(game: str, config: dict, player: str, target: str, games: int, workers: int) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a checkpoint seated at its own table: nothing to say
        r = evaluate(game, config, seats=[player, target], games=games, seed=SEED, workers=workers, progress=False)
    return r["policies"][player]["win_rate"]


def measure(games: int, workers: int) -> dict:
    rows = []
    for entry in PLAN["runs"]:
        game, config, target = get_spec(entry["game"]).id, entry["config"], entry["target"]
        row = {"game": game, "config": config, "target": target, "best_response": entry["checkpoint"],
               "recipe": entry["recipe"],
               "best_response_win_rate": _rate(game, config, entry["checkpoint"], target, games, workers),
               "heuristic_win_rate": _rate(game, config, "heuristic", target, games, workers)}
        rows.append(row)
        print(f"{target}: best response {row['best_response_win_rate']['value']:.3f}, "
              f"heuristic {row['heuristic_win_rate']['value']:.3f}", flush=True)
    return {"rows": rows, "games": games, "seed": SEED, "measured": date.today().isoformat(), "cpus": os.cpu_count()}


def load() -> dict | None:
    return json.loads(OUT.read_text()) if OUT.is_file() else None


def _interval(d: dict) -> str:
    return f"{d['value']:.3f} [{d['lo']:.3f}, {d['hi']:.3f}]"


def render(record: dict | None) -> list[str]:
    """The results page's best-response section (Markdown lines)."""
    if not record:
        return []
    lines = ["## Best responses: how exploitable the competitive agents are", "",
             "A PPO network trained against one frozen shipped agent alone, then played against it on",
             f"held-out deals (seed {record['seed']}); the heuristic on the same deals beside it. The best",
             "response's seat win rate is the approximate exploitability (0.5 at 2 players: this search",
             "found nothing to exploit). Recipes: `configs/<game>/best_response_*.yaml`;",
             "`python benchmarks/best_responses.py`.", "",
             "| game | agent (frozen) | best response | its win rate | heuristic's win rate |",
             "|---|---|---|---|---|"]
    for r in record["rows"]:
        lines.append(f"| {get_spec(r['game']).title} | `{r['target']}` | `{r['best_response']}` | "
                     f"{_interval(r['best_response_win_rate'])} | {_interval(r['heuristic_win_rate'])} |")
    lines += ["", f"- {record['games']:,} games per cell, measured {record['measured']} on {record['cpus']} CPU cores.", ""]
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--workers", type=int, default=1)
    args = p.parse_args(argv)
    set_torch_threads(1)
    record = measure(args.games, args.workers)
    OUT.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print("\n".join(render(record)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
