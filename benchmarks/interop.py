"""The envs inside other libraries: each example of ``configs/experiments.yaml: interop`` run
with its default (documented) settings in the interop venv, its result written to
``benchmarks/results/interop/<example>.json`` and rendered into the results page's "Other
libraries" section.

    python benchmarks/interop.py --regenerate [--only examples/torchrl_ppo.py]

The examples import TorchRL, Tianshou or OpenSpiel, which live in their own venv
(``make test-interop`` builds .interop-venv), so each runs as a subprocess of that venv's
Python; this script itself needs only the main install.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as `python benchmarks/interop.py`: the package is importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import experiments  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "benchmarks" / "results" / "interop"
PLAN = experiments.load()["interop"]


def result_path(example: str) -> Path:
    return FOLDER / f"{Path(example).stem}.json"


TIME_LIMIT_S = 3600  # per example: the longest (ISMCTS) takes about 22 minutes on 2 busy cores


def run(example: str, python: Path) -> None:
    """Run one example with its defaults; it writes its own JSON (a failure, or a run past
    :data:`TIME_LIMIT_S`, raises)."""
    FOLDER.mkdir(parents=True, exist_ok=True)
    cmd = [str(python), str(ROOT / example), "--json", str(result_path(example))]
    print(" ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=ROOT, check=True, timeout=TIME_LIMIT_S)


def load() -> list[dict]:
    """The results of the plan's examples that have one, in the plan's order."""
    return [json.loads(result_path(e).read_text()) for e in PLAN["examples"] if result_path(e).is_file()]


def _interval(d: dict) -> str:
    return f"{d['rate']:.3f} [{d['low']:.3f}, {d['high']:.3f}]"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _curve(rec: dict) -> list[str]:
    extra = [k for k in rec["curve"][0] if k not in ("steps", "rate", "low", "high", "games")]
    lines = [_row(["steps", "rate", "games", *extra]), "|---:|---|---:|" + "---:|" * len(extra)]
    for p in rec["curve"]:
        cells = [f"{p[k]:.3f}" if isinstance(p[k], float) else str(p[k]) for k in extra]
        lines.append(_row([f"{p['steps']:,}", _interval(p), f"{p['games']:,}", *cells]))
    return lines + [""]


def _rows(rec: dict) -> list[str]:
    lines = ["| policy | rate | games |", "|---|---|---:|"]
    lines += [f"| `{r['policy']}` | {_interval(r)} | {r['games']:,} |" for r in rec["rows"]]
    return lines + [""]


def render(records: list[dict]) -> list[str]:
    """The results page's "Other libraries" section (Markdown lines)."""
    if not records:
        return []
    lines = ["## Other libraries", "",
             "The examples of [Other libraries](interop/index.md), each run with its default settings",
             "(`python benchmarks/interop.py --regenerate`). 95% intervals (Wilson).", ""]
    for rec in records:
        config = ", ".join(f"{k}={v}" for k, v in rec["config"].items())
        lines += [f"### {rec['library']} {rec['version']}: `{rec['example']}`", "",
                  f"{rec['game']} ({config}), seed {rec['seed']}: {rec['measure']}.", ""]
        if rec.get("curve"):
            lines += _curve(rec)
        if rec.get("rows"):
            lines += _rows(rec)
        lines += [f"- {rec['seconds'] / 60:.1f} minutes.", ""]
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--regenerate", action="store_true", help="run the examples of the plan")
    p.add_argument("--only", action="append", default=None, metavar="EXAMPLE")
    p.add_argument("--python", type=Path, default=ROOT / PLAN["venv"] / "bin" / "python",
                   help="the interpreter that runs the examples (default: the interop venv's)")
    args = p.parse_args(argv)
    if args.regenerate:
        unknown = sorted(set(args.only or []) - set(PLAN["examples"]))
        if unknown:
            p.error(f"--only {unknown}: not in the plan; its examples: {PLAN['examples']}")
        if not args.python.is_file():
            p.error(f"no interpreter at {args.python}: run `make test-interop` to build the venv")
        for example in args.only or PLAN["examples"]:
            run(example, args.python)
    print("\n".join(render(load())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
