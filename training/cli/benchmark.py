"""``braincards benchmark``: a policy on a versioned suite -> scorecard (Markdown, JSON, PNGs)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from ..agents.specs import cli_help
from ..evaluation.benchmark.suites import available_suites, load_suite
from ..evaluation.harness import run_tasks
from .common import rllib_extra

HELP = "a policy on a versioned benchmark suite: normalised scorecard"


def add_commands(sub) -> None:
    bm = sub.add_parser("benchmark", help=HELP,
                        description="Run a policy on every scenario of a versioned suite (held-out "
                        "partners/opponents, fixed seeds) and write its scorecard: raw and "
                        "normalised scores, rliable IQM/mean with 95% intervals, plots. With "
                        "--against B, a paired comparison on the same games.")
    bm.add_argument("policy", nargs="?", metavar="SPEC", help=cli_help())
    bm.add_argument(
        "--suite",
        metavar="NAME|FILE",
        help=f"a shipped suite ({', '.join(available_suites())}) or a suite file",
    )
    bm.add_argument("--against", metavar="SPEC", default=None,
                    help="a second policy: paired comparison on the same games")
    bm.add_argument(
        "--quick",
        action="store_true",
        help="the quick setting: each scenario's first quick_games games (minutes on 2 cores)",
    )
    bm.add_argument(
        "--games",
        type=int,
        default=None,
        help="games per scenario instead (a multiple of the suite's blocks)",
    )
    bm.add_argument("--workers", type=int, default=1, help="parallel processes (same results)")
    bm.add_argument("--ray-address", default=None, metavar="ADDR",
                    help="play the games as Ray tasks on this cluster ('local': a local Ray; "
                    "needs the rllib extra); the numbers are the local ones")
    bm.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="scorecard and resumable partial results (default runs/benchmark/SUITE/SPEC)",
    )
    bm.add_argument(
        "--list", action="store_true", help="list the shipped suites and their scenarios"
    )
    bm.add_argument("--quiet", action="store_true", help="no progress bar")
    bm.add_argument("--validate", metavar="CARD", default=None,
                    help="check a scorecard JSON (one made elsewhere) against the shipped suite: "
                    "suite hash, every scenario, consistent intervals and aggregates")
    bm.set_defaults(func=cmd_benchmark)


def _list() -> int:
    for name in available_suites():
        suite = load_suite(name)
        print(f"{name}: {len(suite.scenarios)} scenarios ({suite.game})")
        for s in suite.scenarios:
            games = f"{s.games:>5} games (quick {s.quick_games})"
            print(f"  {s.id:32s} {games}, seed {s.seed}: {s.measures}")
    return 0


def _command(args, suite: str) -> str:
    """The command line that reproduces this run (recorded in the scorecard's provenance)."""
    argv = ["braincards", "benchmark", args.policy, "--suite", suite]
    argv += ["--quick"] if args.quick and args.games is None else []
    argv += ["--games", str(args.games)] if args.games is not None else []
    argv += ["--against", args.against] if args.against else []
    return shlex.join(argv)


def _validate(path: str, check) -> int:
    try:
        card = json.loads(Path(path).read_text())
    except (OSError, ValueError) as err:
        print(f"{path}: not a readable scorecard JSON: {err}")
        return 1
    problems = check(card)
    if problems:
        print(f"{path}: refused ({len(problems)} problems):")
        print("\n".join(f"  - {p}" for p in problems))
        return 1
    print(f"{path}: holds together ({card['suite']}, {card['setting']}, {card['provenance']['policy_spec']})")
    return 0


def cmd_benchmark(args) -> int:
    if args.list:
        return _list()
    if not args.validate and (not args.policy or not args.suite):
        raise ValueError("give a policy spec and --suite NAME (see `braincards benchmark --list`), "
                         "or --validate CARD.json")
    # optional at startup: the scorecard pulls in rliable, arch, pandas and scipy (about 1.5 s),
    # so it is imported when this command runs, not by every braincards command
    from ..evaluation.benchmark import provenance, report, runner, scorecard  # noqa: PLC0415

    if args.validate:
        return _validate(args.validate, provenance.check_scorecard)
    suite = load_suite(args.suite)
    run = rllib_extra().ray_runner(args.ray_address) if args.ray_address else run_tasks
    out = Path(args.out or Path("runs") / "benchmark" / suite.name / runner.slug(args.policy))
    card = scorecard.benchmark(args.policy, suite, out, against=args.against, quick=args.quick,
                               games=args.games, workers=args.workers, runner=run,
                               progress=False if args.quiet else None, command=_command(args, suite.name))
    print(report.format_scorecard(card))
    print("wrote " + ", ".join(report.write_scorecard(card, out)))
    return 0
