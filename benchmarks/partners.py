"""The partner suite's population (``configs/experiments.yaml: partners``): each table's
cross-play matrix and diversity, the best responses' matrix, and BR-Prox for the shipped
networks, written to ``benchmarks/results/partners/`` and rendered into the results page's
"Partner population" section.

    python benchmarks/partners.py --regenerate [--only 3p_robber|br_prox] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import date
from pathlib import Path

from braincards.training.agents.network import set_torch_threads
from braincards.training.evaluation.benchmark.suites import load_suite
from braincards.training.evaluation.partners import br_prox, format_partner_report, partner_report

if __package__ in (None, ""):  # run as `python benchmarks/partners.py`: the package is importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import experiments  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "benchmarks" / "results" / "partners"
PLAN = experiments.load()["partners"]
BR_PROX = "br_prox"


def _where() -> dict:
    return {"measured": date.today().isoformat(), "cpus": os.cpu_count()}


def measure_table(table: str, workers: int) -> dict:
    report = partner_report(PLAN["suite"], table, games=PLAN["games"], seed=PLAN["seed"], workers=workers,
                            progress=False)
    return {**report, **_where()}


def measure_br_prox(workers: int) -> dict:
    plan = PLAN["br_prox"]
    found = br_prox(load_suite(PLAN["suite"]), plan["table"], plan["focal"], workers=workers)
    return {"suite": PLAN["suite"], "table": plan["table"], "focal": plan["focal"], "br_prox": found, **_where()}


def load() -> dict:
    """``{name: record}`` of every measured table and of BR-Prox."""
    out = {}
    for name in [*PLAN["tables"], BR_PROX]:
        path = FOLDER / f"{name}.json"
        if path.is_file():
            out[name] = json.loads(path.read_text())
    return out


def _matrix(rec: dict) -> list[str]:
    """The cross-play matrix, members numbered (team win rates; the diagonal is self-play)."""
    names = rec["crossplay"]["policies"]
    rate = rec["crossplay"]["win_rate"]
    lines = ["| | member | " + " | ".join(str(j + 1) for j in range(len(names))) + " |",
             "|---:|---|" + "---:|" * len(names)]
    for i, name in enumerate(names):
        cells = [f"**{rate[i][j]['value']:.2f}**" if i == j else f"{rate[i][j]['value']:.2f}" for j in range(len(names))]
        lines.append(f"| {i + 1} | `{name}` | " + " | ".join(cells) + " |")
    return lines


def _render_br_prox(rec: dict) -> list[str]:
    partners = list(next(iter(rec["br_prox"].values())))
    first = rec["br_prox"][rec["focal"][0]]
    lines = ["### BR-Prox at 3 players, robber", "",
             "Each policy in one seat with two held-out partners, over that partner's best response in",
             "the same seat on the same games (the suite's scenario for that partner; 1 = as good as the",
             "best response found; team win rate in brackets).", "",
             "| policy | " + " | ".join(f"`{p}`" for p in partners) + " | mean |",
             "|---|" + "---:|" * (len(partners) + 1),
             "| *best response* | " + " | ".join(f"({first[p]['best_response']:.3f})" for p in partners) + " | |"]
    for spec in rec["focal"]:
        cells = rec["br_prox"][spec]
        mean = sum(cells[p]["br_prox"] for p in partners) / len(partners)
        lines.append(f"| `{spec}` | " + " | ".join(f"{cells[p]['br_prox']:.3f} ({cells[p]['rate']:.3f})"
                                                   for p in partners) + f" | {mean:.3f} |")
    lines += ["", f"- {first[partners[0]]['games']:,} games per cell, measured {rec['measured']} on "
              f"{rec['cpus']} CPU cores.", ""]
    return lines


def render(records: dict) -> list[str]:
    """The results page's "Partner population" section (Markdown lines)."""
    if not records:
        return []
    lines = ["## Partner population", "",
             f"The suite `{PLAN['suite']}` ([Benchmark](benchmark.md#partner-suites)): at each table a population",
             "of rule, search and network partners, some held out (`eval`: no shipped training config names",
             "them). Each table's cross-play matrix (every pair of members on the same deals, team win",
             f"rates, {PLAN['games']} games a cell, seed {PLAN['seed']}) gives each member's self-play and mean",
             "cross-play, the cross-play gap and each held-out member's best partner.",
             "`python benchmarks/partners.py --regenerate`.", ""]
    for name in PLAN["tables"]:
        rec = records.get(name)
        if rec:
            config = ", ".join(f"{k}={v}" for k, v in rec["config"].items())
            lines += [f"### Population `{name}` ({config})", "", format_partner_report(rec), "",
                      "The cross-play matrix (row member with column member; the diagonal, in bold, is",
                      "self-play):", "", *_matrix(rec), "",
                      f"- measured {rec['measured']} on {rec['cpus']} CPU cores.", ""]
    if BR_PROX in records:
        lines += _render_br_prox(records[BR_PROX])
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--regenerate", action="store_true", help="measure the plan's tables and BR-Prox")
    p.add_argument("--only", action="append", default=[], metavar="NAME",
                   help=f"with --regenerate: only these ({', '.join(PLAN['tables'])} or {BR_PROX})")
    p.add_argument("--workers", type=int, default=1)
    args = p.parse_args(argv)
    unknown = sorted(set(args.only) - {*PLAN["tables"], BR_PROX})
    if unknown:
        p.error(f"unknown --only {unknown}; allowed: {PLAN['tables'] + [BR_PROX]}")
    if args.regenerate:
        set_torch_threads(1)
        FOLDER.mkdir(parents=True, exist_ok=True)
        for name in args.only or [*PLAN["tables"], BR_PROX]:
            record = measure_br_prox(args.workers) if name == BR_PROX else measure_table(name, args.workers)
            (FOLDER / f"{name}.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
            print(f"wrote {FOLDER / name}.json", flush=True)
    print("\n".join(render(load())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
