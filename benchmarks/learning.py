"""Learning benchmark: retrain the shipped checkpoints from their recipes, then measure them.

    python benchmarks/learning.py --only the_brain/ppo_3p              # retrain one recipe
    python benchmarks/learning.py --only the_brain/ppo_3p --ship       # ... and replace the shipped file
    python benchmarks/learning.py --list                               # every checkpoint and its recipe

Each shipped checkpoint comes from one training config (``shipped`` in
``configs/experiments.yaml``). A run goes to ``runs/learning/<name>``; with ``--ship`` its best
replaces ``checkpoints/<name>`` and is then measured as the results page measures it (``results_page.measure``: every evaluation table of its recipe, the checkpoint and
the game's heuristic in the learner's seats on the same deals) and the record is printed;
``python benchmarks/results_page.py --regenerate --only NAME`` writes it to the page's data.
Training runs one process at a time with one torch thread; run it in the background with a log.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from braincards.training.agents.network import set_torch_threads
from braincards.training.learning.config import load_train_config
from braincards.training.learning.sb3 import train

if __package__ in (None, ""):  # run as `python benchmarks/learning.py`: the package is importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import experiments, results_page  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = experiments.load()["shipped"]  # checkpoint name -> the training config it comes from


def retrain(name: str, runs: Path, ship: bool) -> Path:
    """Train ``name``'s recipe into ``runs/<name>``; with ``ship``, copy its best over the
    shipped checkpoint. Returns the run's folder."""
    out = runs / name.replace("/", "-")
    train(load_train_config(ROOT / SHIPPED[name]), out, progress=False)
    if ship:
        dest = ROOT / "checkpoints" / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        for suffix in (".zip", ".json"):
            shutil.copyfile(out / f"best{suffix}", dest.with_suffix(suffix))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", default=[], metavar="NAME", help="retrain these checkpoints")
    ap.add_argument("--list", action="store_true", help="list every shipped checkpoint and its recipe")
    ap.add_argument("--ship", action="store_true", help="copy each run's best into checkpoints/")
    ap.add_argument("--games", type=int, default=1000, help="games per measured cell (default 1000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--runs", default="runs/learning", help="where training runs go")
    args = ap.parse_args(argv)
    if args.list or not args.only:
        for name, recipe in SHIPPED.items():
            print(f"{name}: {recipe}")
        return 0
    unknown = [n for n in args.only if n not in SHIPPED]
    if unknown:
        raise SystemExit(f"unknown checkpoint names {unknown}; shipped: {list(SHIPPED)}")
    set_torch_threads(1)
    for name in args.only:
        out = retrain(name, Path(args.runs), args.ship)
        print(f"{name}: trained -> {out}", flush=True)
        if args.ship:
            record = results_page.measure(name, args.games, args.seed, args.workers)
            print(json.dumps(record["tables"], indent=1), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
