"""Learning benchmark: train the shipped checkpoints from their configs and regenerate the
README's results table.

    python benchmarks/learning.py                 # evaluate the shipped checkpoints (table)
    python benchmarks/learning.py --train         # retrain each from its config first
    python benchmarks/learning.py --train --ship  # ... and copy each run's best into checkpoints/
    python benchmarks/learning.py --only the_brain/ppo_3p --games 1000

Each shipped checkpoint comes from one config in configs/ (``SHIPPED`` below). Every row is
measured by ``evaluate()`` with fixed seeds (``--seed``, ``--games``; seats rotated), next to
the game's heuristic in the same seats and on the same deals. Training runs one process at a
time with one torch thread; run it in the background with a log, it takes a while.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# checkpoint name -> the training config it comes from
SHIPPED = {
    "the_brain/ppo_solo": "configs/the_brain/train_solo.yaml",
    "the_brain/ppo_solo_long": "configs/the_brain/train_solo_long.yaml",
    "the_brain/ppo_2p": "configs/the_brain/train_2p.yaml",
    "the_brain/ppo_2p_long": "configs/the_brain/train_2p_long.yaml",
    "the_brain/ppo_2p_longer": "configs/the_brain/train_2p_longer.yaml",
    "the_brain/ppo_3p": "configs/the_brain/train_3p.yaml",
    "the_brain/ppo_4p": "configs/the_brain/train_4p.yaml",
    "the_brain/ppo_4p_longer": "configs/the_brain/train_4p_longer.yaml",
    "the_brain/ppo_4p_longest": "configs/the_brain/train_4p_longest.yaml",
    "the_brain/ppo_4p_13m": "configs/the_brain/train_4p_13m.yaml",
    "the_brain/ppo_3p_cat_burglar": "configs/the_brain/train_3p_cat_burglar.yaml",
    "the_brain/ppo_3p_cat_burglar_long": "configs/the_brain/train_3p_cat_burglar_long.yaml",
    "the_brain/ppo_3p_cat_burglar_longer": "configs/the_brain/train_3p_cat_burglar_longer.yaml",
    "the_brain/ppo_3p_pimc": "configs/the_brain/train_3p_pimc.yaml",
    "the_brain/ppo_3p_long": "configs/the_brain/train_3p_long.yaml",
    "the_brain/ppo_3p_big_clone": "configs/the_brain/train_3p_big_clone.yaml",
    "the_brain/ppo_3p_big_clone_long": "configs/the_brain/train_3p_big_clone_long.yaml",
    "oh_my_brain/ppo_2p": "configs/oh_my_brain/train_2p.yaml",
    "oh_my_brain/ppo_2p_long": "configs/oh_my_brain/train_2p_long.yaml",
    "oh_my_brain/ppo_2p_shaped": "configs/oh_my_brain/train_2p_shaped.yaml",
    "oh_my_brain/ppo_3p": "configs/oh_my_brain/train_3p.yaml",
    "oh_my_brain/ppo_3p_shaped": "configs/oh_my_brain/train_3p_shaped.yaml",
    "oh_my_brain/ppo_4p": "configs/oh_my_brain/train_4p.yaml",
    "oh_my_brain/ppo_5p": "configs/oh_my_brain/train_5p.yaml",
    "oh_my_brain/ppo_5p_long": "configs/oh_my_brain/train_5p_long.yaml",
    "brilliant_boar/ppo_2p": "configs/brilliant_boar/train_2p.yaml",
    "brilliant_boar/ppo_3p": "configs/brilliant_boar/train_3p.yaml",
    "brilliant_boar/ppo_4p": "configs/brilliant_boar/train_4p.yaml",
    "brilliant_boar/ppo_solo": "configs/brilliant_boar/train_solo.yaml",
    "brilliant_boar/ppo_solo_level2": "configs/brilliant_boar/train_solo_level2.yaml",
    "brilliant_boar/ppo_solo_level3": "configs/brilliant_boar/train_solo_level3.yaml",
    "brilliant_boar/ppo_solo_level4": "configs/brilliant_boar/train_solo_level4.yaml",
}


def measure(name: str, cfg, games: int, seed: int, workers: int) -> list[dict]:
    """Rows of the results table for checkpoint ``name``: each evaluation table of its
    config, the checkpoint and the heuristic in the learner's seats, same deals."""
    from braincards.training.agents.checkpoint import read_metadata
    from braincards.training.agents.locations import resolve_checkpoint
    from braincards.training.agents.policy import spec_label
    from braincards.training.agents.specs import make_policy
    from braincards.training.evaluation.evaluate import evaluate
    from braincards.training.learning.schedule import evaluation_tables

    path = resolve_checkpoint(name)
    if path is None:
        raise SystemExit(f"checkpoint {name} not found (train it with --train --ship)")
    meta = read_metadata(path)
    rows = []
    for table, seats in evaluation_tables(cfg):
        row = {"checkpoint": name, "config": cfg.env, "table": table, "timesteps": meta["timesteps"]}
        heuristic = make_policy("heuristic", cfg.game, cfg.env)
        heuristic.name = "heuristic (learner seats)"
        for who, pol in (("learner", name), ("heuristic", heuristic)):
            seated = [pol if s == "learner" else s for s in seats]
            t = time.perf_counter()
            r = evaluate(cfg.game, cfg.env, seats=seated, games=games, seed=seed, workers=workers,
                         progress=False)
            d = r["team"] if "team" in r else r["policies"][spec_label(pol)]
            row[who] = {"win_rate": d["win_rate"], "mean_score": d["mean_score"],
                        "seconds": round(time.perf_counter() - t, 1)}
        rows.append(row)
    return rows


def format_rows(rows: list[dict], games: int, seed: int) -> str:
    from braincards.training.evaluation.stats import fmt_interval

    lines = ["| checkpoint | env | evaluation | timesteps | win rate | heuristic in its seats | "
             "mean score | heuristic mean score |", "|---|---|---|---:|---|---|---:|---:|"]
    for r in rows:
        env = ", ".join(f"{k}={v}" for k, v in r["config"].items())
        lines.append(f"| `{r['checkpoint']}` | {env} | {r['table']} | {r['timesteps']:,} | "
                     f"{fmt_interval(r['learner']['win_rate'])} | {fmt_interval(r['heuristic']['win_rate'])} | "
                     f"{r['learner']['mean_score']['value']:.1f} | {r['heuristic']['mean_score']['value']:.1f} |")
    lines.append(f"\n({games} games per cell, seed {seed}, seats rotated; `python benchmarks/learning.py "
                 f"--games {games} --seed {seed}`)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", action="store_true", help="retrain each checkpoint from its config")
    ap.add_argument("--ship", action="store_true", help="copy each run's best into checkpoints/")
    ap.add_argument("--only", action="append", default=[], metavar="NAME", help="only these checkpoints")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--runs", default="runs/learning", help="where training runs go")
    args = ap.parse_args(argv)

    from braincards.training.agents.network import set_torch_threads
    from braincards.training.learning.config import load_train_config
    from braincards.training.learning.schedule import evaluation_tables, train

    set_torch_threads(1)
    names = args.only or list(SHIPPED)
    unknown = [n for n in names if n not in SHIPPED]
    if unknown:
        raise SystemExit(f"unknown checkpoint names {unknown}; shipped: {list(SHIPPED)}")
    rows = []
    for name in names:
        cfg = load_train_config(ROOT / SHIPPED[name])
        if args.train:
            out = Path(args.runs) / name.replace("/", "-")
            train(cfg, out, progress=False)
            if args.ship:
                dest = ROOT / "checkpoints" / name
                dest.parent.mkdir(parents=True, exist_ok=True)
                for suffix in (".zip", ".json"):
                    shutil.copyfile(out / f"best{suffix}", dest.with_suffix(suffix))
        rows += measure(name, cfg, args.games, args.seed, args.workers)
        print(format_rows(rows[-len(evaluation_tables(cfg)):], args.games, args.seed), flush=True)
    print("\n" + format_rows(rows, args.games, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
