"""How long each ``braincards`` command takes to show its first output, and to finish.

    python benchmarks/startup.py                       # every command, 5 runs each
    python benchmarks/startup.py --runs 3 --only oracle
    python benchmarks/startup.py --cli /other/checkout/.venv/bin/braincards   # another install

Each command runs in a pseudo-terminal (as a person at a terminal runs it: progress lines and
bars show, as they would there), from an empty folder. Its first output is the first byte it
writes to the terminal; ``done`` is when it exits (commands that wait for a person or serve
forever - ``play``, ``serve`` - are stopped at their first output). Min / median / max over the
runs; the machine should be idle.
"""

from __future__ import annotations

import argparse
import os
import pty
import select
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CLI = ROOT / ".venv" / "bin" / "braincards"

# name -> (arguments, whether it runs to its end by itself)
COMMANDS: dict[str, tuple[list[str], bool]] = {
    "help": (["--help"], True),
    "demo": (["demo", "the_brain", "--players", "3", "--seed", "1"], True),
    "evaluate": (["evaluate", "oh_my_brain", "--seat", "heuristic", "--seat", "random", "--games", "20"], True),
    "crossplay": (["crossplay", "the_brain", "heuristic", "random", "--players", "3", "--games", "6", "--out", "xp"],
                  True),
    "league": (["league", "oh_my_brain", "heuristic", "random", "--games", "6", "--out", "league"], True),
    "oracle": (["oracle", "the_brain", "--players", "3", "--deals", "1"], True),
    "benchmark-list": (["benchmark", "--list"], True),
    "train-help": (["train", "--help"], True),
    "play": (["play", "the_brain", "--seat", "human", "--seat", "heuristic", "--seed", "1"], False),
    "serve": (["serve", "--port", "8765"], False),
}


def run_once(cli: str, args: list[str], to_end: bool, cwd: str, timeout: float = 120.0) -> tuple[float, float]:
    """(seconds to the first output byte, seconds to exit) of one run in a pseudo-terminal."""
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command, in the empty folder
        os.chdir(cwd)
        os.execv(cli, [cli, *args])
    first = None
    try:
        while True:
            left = timeout - (time.perf_counter() - start)
            if left <= 0:
                raise TimeoutError(f"{args} ran past {timeout} s")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child closed the terminal: it has exited
                chunk = b""
            if chunk and first is None:
                first = time.perf_counter() - start
                if not to_end:
                    os.kill(pid, signal.SIGTERM)
            if not chunk:
                break
    finally:
        os.waitpid(pid, 0)
        os.close(fd)
    done = time.perf_counter() - start
    return (first if first is not None else done), done


def measure(cli: str, names: list[str], runs: int) -> dict[str, dict[str, list[float]]]:
    out: dict[str, dict[str, list[float]]] = {}
    for name in names:
        args, to_end = COMMANDS[name]
        firsts, dones = [], []
        for _ in range(runs):
            with tempfile.TemporaryDirectory() as cwd:
                first, done = run_once(cli, args, to_end, cwd)
            firsts.append(first)
            dones.append(done)
        out[name] = {"first": firsts, "done": dones if to_end else []}
        print(f"{name:15s} first output {_spread(firsts)}   done {_spread(dones) if to_end else '-'}", flush=True)
    return out


def _spread(values: list[float]) -> str:
    return f"{min(values):5.2f} / {statistics.median(values):5.2f} / {max(values):5.2f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=str(DEFAULT_CLI), help="the braincards executable to time")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", action="append", choices=sorted(COMMANDS), help="time this command (repeatable)")
    args = parser.parse_args(argv)
    print(f"{args.cli}: min / median / max of {args.runs} runs", flush=True)
    measure(args.cli, args.only or list(COMMANDS), args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
