"""The held-out protocol: every shipped network re-measured on deals that no choice of a
checkpoint, a training step or a config ever saw, beside the references at its table.

Selection uses seed 0 (the Results rows, on which checkpoints were picked), the training
runs' own evaluation games and seed 101 (the careful The Brain heuristic was tuned on it).
The held-out seeds are ``configs/experiments.yaml: heldout.seeds``, and nothing else may use
them (``tests/test_heldout.py`` checks the configs and the other plans). Each network is
measured at the first evaluation table of its training config (*team*, *solo*, *vs
heuristic* or, for a best response, *with* its partner) with ``heldout.games`` games per
seed, and the per-seed counts are added up. The references at each table are the rule
player in the learner's seats, and for The Brain's team tables ``greedy`` and ``pimc`` in
every seat, on the same deals.

    python benchmarks/heldout.py --regenerate [--only NAME] [--references]   # measure
    python benchmarks/heldout.py                                                # print the section

Records go to ``benchmarks/results/heldout/`` and the results page's "Held-out deals"
section is rendered from them.
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
from braincards.training.agents.checkpoint import read_metadata
from braincards.training.agents.locations import resolve_checkpoint
from braincards.training.agents.network import set_torch_threads
from braincards.training.agents.specs import make_policy
from braincards.training.evaluation.evaluate import evaluate
from braincards.training.evaluation.stats import wilson_interval
from braincards.training.learning.config import stored_train_config
from braincards.training.learning.schedule import evaluation_tables

if __package__ in (None, ""):  # run as `python benchmarks/heldout.py`: the package is importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import experiments  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "benchmarks" / "results" / "heldout"
SELECTION = ROOT / "benchmarks" / "results"  # the Results rows (seed 0): where checkpoints were chosen
PLAN = experiments.load()["heldout"]


def table_key(game: str, env: dict, table: str) -> str:
    """One table's name in the records: the game, its options and the evaluation's name."""
    return f"{game} {json.dumps(env, sort_keys=True)} {table}"


def first_table(name: str):
    """(config, table name, seats) of a shipped checkpoint's first evaluation table."""
    path = resolve_checkpoint(name)
    cfg = stored_train_config(read_metadata(path), f"{name}.json")
    table, seats = evaluation_tables(cfg)[0]
    return cfg, table, list(seats)


WORKERS = 1  # evaluation processes (--workers): the same results as one


def play(game: str, env: dict, seats: list, who, games: int, seeds: list[int]) -> dict:
    """``who``'s win rate (the team's in a cooperative game, else its seats') over every seed."""
    wins = total = 0
    score = 0.0
    per_seed, t = [], time.perf_counter()
    for seed in seeds:
        r = evaluate(game, env, seats=seats, games=games, seed=seed, workers=WORKERS, progress=False)
        d = r["team"] if "team" in r else r["policies"][who]
        n = d.get("seat_games", games)
        w = d["wins"] if "wins" in d else round(d["win_rate"]["value"] * n)
        wins, total = wins + w, total + n
        score += d["mean_score"]["value"] * n
        per_seed.append({"seed": seed, "wins": w, "games": n, "mean_score": d["mean_score"]["value"]})
    rate, lo, hi = wilson_interval(wins, total)
    return {"wins": wins, "games": total, "win_rate": {"value": rate, "lo": lo, "hi": hi},
            "mean_score": round(score / total, 3), "per_seed": per_seed, "seconds": round(time.perf_counter() - t, 1)}


def measure_checkpoint(name: str) -> dict:
    cfg, table, seats = first_table(name)
    seated = [name if s == "learner" else s for s in seats]
    result = play(cfg.game, cfg.env, seated, name, PLAN["games"], PLAN["seeds"])
    return {"kind": "network", "name": name, "game": cfg.game, "env": cfg.env, "table": table, "seats": seats,
            "key": table_key(cfg.game, cfg.env, table), **result, **_stamp()}


def reference_specs(game: str, table: str) -> list[str]:
    """The references at a table: the rule player in the learner's seats; at a team table of
    a game with search players, those in every seat too."""
    extra = PLAN["references"].get(game, []) if table in ("team", "solo") else []
    return ["heuristic", *[s for s in extra if s != "heuristic"]]


def measure_reference(game: str, env: dict, table: str, seats: list, spec: str) -> dict:
    if table in ("team", "solo"):
        seated, who = [spec] * len(seats), spec
    else:  # the reference in the learner's seats only, told apart from the same kind elsewhere
        learner = make_policy(spec, game, env)
        learner.name = who = f"{spec} (learner seats)"
        seated = [learner if s == "learner" else s for s in seats]
    result = play(game, env, seated, who, PLAN["games"], PLAN["seeds"])
    return {"kind": "reference", "name": spec, "game": game, "env": env, "table": table, "seats": seats,
            "key": table_key(game, env, table), **result, **_stamp()}


def _stamp() -> dict:
    return {"seeds": PLAN["seeds"], "games_per_seed": PLAN["games"], "measured": date.today().isoformat(),
            "cpus": os.cpu_count()}


def _file(record: dict) -> Path:
    if record["kind"] == "network":
        return FOLDER / f"{record['name']}.json"
    slug = "".join(c if c.isalnum() else "-" for c in f"{record['key']}-{record['name']}")
    return FOLDER / "references" / f"{slug}.json"


def _write(record: dict) -> None:
    path = _file(record)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(f"{record['name']} ({record['key']}): {record['win_rate']['value']:.3f} in {record['seconds']} s",
          flush=True)


def regenerate(names: list[str], references: bool) -> None:
    set_torch_threads(1)
    tables = {}
    for name in names:
        cfg, table, seats = first_table(name)
        tables.setdefault(table_key(cfg.game, cfg.env, table), (cfg.game, cfg.env, table, seats))
        _write(measure_checkpoint(name))
    if references:
        for game, env, table, seats in tables.values():
            for spec in reference_specs(game, table):
                _write(measure_reference(game, env, table, seats, spec))


def load() -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(FOLDER.rglob("*.json"))]


def selection_rate(name: str) -> dict | None:
    """The checkpoint's first-table rate on the selection deals (its Results row), if any."""
    path = SELECTION / f"{name}.json"
    if not path.is_file():
        return None
    rec = json.loads(path.read_text())
    return {"win_rate": rec["tables"][0]["learner"]["win_rate"], "games": rec["games"], "seed": rec["seed"]}


def _cell(d: dict | None) -> str:
    return "-" if d is None else f"{d['value']:.3f} [{d['lo']:.3f}, {d['hi']:.3f}]"


def render(records: list[dict]) -> list[str]:
    """The results page's "Held-out deals" section (Markdown lines)."""
    if not records:
        return []
    refs: dict[str, dict[str, dict]] = {}
    seconds: dict[str, dict[str, float]] = {}
    for r in records:
        if r["kind"] == "reference":
            refs.setdefault(r["key"], {})[r["name"]] = r["win_rate"]
            seconds.setdefault(r["key"], {})[r["name"]] = r["seconds"]
    nets = [r for r in records if r["kind"] == "network"]
    first = nets[0] if nets else records[0]
    lines = ["## Held-out deals", "",
             "Every shipped network again, on deals that no choice of a checkpoint, a training step or a",
             "config ever saw (the [protocol](training.md#held-out-protocol)). *Selection*: its Results row",
             "(seed 0, the deals checkpoints were chosen on). *Held out*: seeds "
             f"{', '.join(map(str, first['seeds']))}, {first['games_per_seed']:,} games each "
             f"({len(first['seeds']) * first['games_per_seed']:,} a cell). The references are measured on the",
             "same held-out deals: the rule player in the learner's seats, and at The Brain's team tables",
             "`greedy` and `pimc` in every seat. *Time / pimc*: the network's wall time for its 2,000",
             "games over `pimc`'s on the same deals, with the same number of processes (the games are",
             "the same length on average, so this is the ratio of time per decision).",
             "`python benchmarks/heldout.py --regenerate --references --workers 2`.", ""]
    for game in dict.fromkeys(r["game"] for r in nets):
        spec = get_spec(game)
        extra = [s for s in PLAN["references"].get(game, []) if s != "heuristic"]
        timed = "pimc" in extra
        lines += [f"### {spec.title}", "",
                  "| network | table | selection | held out | mean score | heuristic (held out) |"
                  + "".join(f" `{s}` (held out) |" for s in extra) + (" time / pimc |" if timed else ""),
                  "|---|---|---|---|---:|---|" + "---|" * len(extra) + ("---:|" if timed else "")]
        for r in (r for r in nets if r["game"] == game):
            sel = selection_rate(r["name"])
            ref = refs.get(r["key"], {})
            env = ", ".join(f"{k}={v}" for k, v in r["env"].items())
            pimc_s = seconds.get(r["key"], {}).get("pimc")
            ratio = f" {r['seconds'] / pimc_s:.2f} |" if pimc_s else " - |"
            lines.append(f"| `{r['name']}` | {env}, {r['table']} | {_cell(sel and sel['win_rate'])} | "
                         f"{_cell(r['win_rate'])} | {r['mean_score']:.2f} | {_cell(ref.get('heuristic'))} |"
                         + "".join(f" {_cell(ref.get(s))} |" for s in extra) + (ratio if timed else ""))
        lines.append("")
    dates = sorted({r["measured"] for r in records})
    lines += [f"- Measured {dates[0]}{' to ' + dates[-1] if len(dates) > 1 else ''} on {first['cpus']} CPU cores.", ""]
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--regenerate", action="store_true", help="measure the networks (and --references)")
    p.add_argument("--only", action="append", default=None, metavar="NAME", help="only these shipped networks")
    p.add_argument("--references", action="store_true", help="also measure the references at their tables")
    p.add_argument("--workers", type=int, default=1, help="evaluation processes (the same results as one)")
    args = p.parse_args(argv)
    global WORKERS
    WORKERS = args.workers
    if args.regenerate:
        names = args.only or experiments.shipped_checkpoints()
        unknown = sorted(set(names) - set(experiments.shipped_checkpoints()))
        if unknown:
            raise SystemExit(f"unknown checkpoints {unknown}; shipped: {experiments.shipped_checkpoints()}")
        regenerate(names, args.references)
    print("\n".join(render(load())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
