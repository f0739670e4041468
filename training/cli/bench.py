"""``braincards bench``: env throughput (random legal play), against PettingZoo's classic
games where they are installed. The benchmark parses its own options
(:func:`braincards.training.evaluation.bench.main`)."""

from __future__ import annotations

import argparse

from ..evaluation.bench import main as bench_main


def add_commands(sub) -> None:
    p = sub.add_parser("bench", help="env throughput benchmark (see `braincards bench --help`)",
                       add_help=False)
    p.add_argument("args", nargs=argparse.REMAINDER)
    p.set_defaults(func=cmd_bench)


def cmd_bench(args) -> int:
    return bench_main(args.args)
