"""Cross-play reports over seeds and recipes: each report of ``configs/experiments.yaml: xp``
played (``braincards xp``'s code), written to ``benchmarks/results/xp/<report>.json`` and
rendered into the results page's "Cross-play reports" section.

    python benchmarks/xp.py --regenerate [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import date
from pathlib import Path

from braincards.training.agents.network import set_torch_threads
from braincards.training.evaluation.xp import format_xp, xp_report
from braincards.training.learning.yaml_files import read_yaml

if __package__ in (None, ""):  # run as `python benchmarks/xp.py`: the package is importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import experiments  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "benchmarks" / "results" / "xp"
PLAN = experiments.load()["xp"]


def result_path(report: str) -> Path:
    return FOLDER / f"{Path(report).stem}.json"


def measure(report: str, workers: int) -> dict:
    """One report played and pooled, with where and when."""
    found = xp_report(read_yaml(ROOT / report, "cross-play report"), workers=workers, progress=False)
    return {"report": report, "runs": found["runs"], "figures": found["figures"],
            "crossplay": {k: found["crossplay"][k] for k in ("policies", "games", "win_rate")},
            "measured": date.today().isoformat(), "cpus": os.cpu_count()}


def load() -> list[dict]:
    return [json.loads(result_path(r).read_text()) for r in PLAN["reports"] if result_path(r).is_file()]


def render(records: list[dict]) -> list[str]:
    """The results page's "Cross-play reports" section (Markdown lines)."""
    if not records:
        return []
    lines = ["## Cross-play reports", "",
             "`braincards xp` ([Evaluation](evaluation.md#cross-play-reports)): every agent of a report's",
             "recipes with each other and with its held-out partners, on the same deals, pooled per",
             "recipe into self-play, intra-recipe (another seed), inter-recipe and held-out team win",
             "rates (Wilson 95%; games in brackets). `python benchmarks/xp.py --regenerate`.", ""]
    for rec in records:
        runs = rec["runs"]
        config = ", ".join(f"{k}={v}" for k, v in runs["config"].items())
        held = ", ".join(f"`{h}`" for h in runs["held_out"]) or "none"
        lines += [f"### `{rec['report']}`", "",
                  f"{runs['game']} ({config}); held-out partners: {held}.", "",
                  format_xp(rec), "",
                  f"- {runs['games']:,} games per cell, seed {runs['seed']}, measured {rec['measured']} on "
                  f"{rec['cpus']} CPU cores.", ""]
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--regenerate", action="store_true", help="play every report of the plan")
    p.add_argument("--workers", type=int, default=1)
    args = p.parse_args(argv)
    if args.regenerate:
        set_torch_threads(1)
        FOLDER.mkdir(parents=True, exist_ok=True)
        for report in PLAN["reports"]:
            record = measure(report, args.workers)
            result_path(report).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print("\n".join(render(load())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
