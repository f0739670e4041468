"""The ``braincards`` command line.

Subcommands: ``demo`` (a game of random legal moves, printed turn by turn), ``bench``
(env throughput), ``evaluate`` (seat policies and measure them), ``crossplay``
(cooperative cross-play matrix), ``league`` (ratings of competitive policies) and ``play``
(a person plays in the terminal with or against policies).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys

import numpy as np


def _demo(args) -> int:
    from braincards.envs import make

    config = {}
    if args.players is not None:
        config["num_players"] = args.players
    env = make(args.game, render_mode="ansi", **config)
    env.reset(seed=args.seed)
    rng = random.Random(args.seed)
    raw = env.unwrapped
    print(env.render())
    result = None
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            if result is None:
                result = dict(raw._cumulative_rewards)
                result["how"] = "truncated" if trunc else "game over"
            env.step(None)
            continue
        action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        print(f"\n{agent}: {raw.action_meaning(action)}")
        env.step(action)
        print(env.render())
    how = result.pop("how")
    print(f"\nresult ({how}): " + ", ".join(f"{a} {r:+g}" for a, r in result.items()))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="braincards", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="play one game with random legal moves, printing the table")
    demo.add_argument("game", help="env id or game name, e.g. the_brain or the_brain_v0")
    demo.add_argument("--players", type=int, default=None, help="number of players")
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=_demo)

    # listed for --help; main() hands its arguments to braincards.training.bench
    sub.add_parser("bench", help="env throughput benchmark (see `braincards bench --help`)")

    from .commands import add_commands

    add_commands(sub)  # evaluate, crossplay, league, play
    # subcommands whose modules import an extra at the top: without it they still show in
    # --help and, when run, say what to install (the other commands keep working)
    _add_or_explain(sub, "oracle", ".search.oracle", "add_oracle")  # The Brain, cards known
    _add_or_explain(sub, "train", ".train", "add_train_command")
    return parser


def _add_or_explain(sub, name: str, module: str, adder: str) -> None:
    import importlib

    try:
        add = getattr(importlib.import_module(module, __package__), adder)
    except ModuleNotFoundError as err:
        if extra_for_missing_module(err) is None:
            raise
        missing = err
        p = sub.add_parser(name, help=f"(not installed: {_install_hint(err)})")
        p.add_argument("args", nargs=argparse.REMAINDER)

        def explain(args):
            raise missing

        p.set_defaults(func=explain)
        return
    add(sub)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("braincards")
    except PackageNotFoundError:
        return "(not installed)"


# modules whose name differs from their distribution's
_MODULE_DISTRIBUTIONS = {"yaml": "pyyaml"}


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def extra_for_missing_module(err: ModuleNotFoundError) -> str | None:
    """The braincards extra that installs the module ``err`` says is missing (``"train"``,
    ``"rllib"``, ...), read from the installed package's metadata; None when no extra does."""
    from importlib.metadata import PackageNotFoundError, requires

    if not err.name:
        return None
    top = err.name.split(".")[0]
    dist = _normalize(_MODULE_DISTRIBUTIONS.get(top, top))
    try:
        reqs = requires("braincards") or []
    except PackageNotFoundError:
        return None
    for req in reqs:  # e.g. 'pyyaml>=6; extra == "train"'
        m = re.match(r"\s*([A-Za-z0-9._-]+)[^;]*;.*extra\s*==\s*[\"']([^\"']+)[\"']", req)
        if m and _normalize(m.group(1)) == dist:
            return m.group(2)
    return None


def _install_hint(err: ModuleNotFoundError) -> str:
    extra = extra_for_missing_module(err)
    top = err.name.split(".")[0]
    text = (f"{_MODULE_DISTRIBUTIONS.get(top, top)} (module {top!r} is not installed): "
            f"pip install 'braincards[{extra}]'")  # fmt: skip
    if extra == "train":
        text += " (install torch==2.13.0 first for a CPU build; see the README)"
    return text


def game_id(name: str) -> str:
    """``"the_brain"`` or ``"the_brain_v0"`` -> ``"the_brain_v0"`` (a ValueError naming the
    known games otherwise)."""
    from braincards.envs import ENVS

    candidate = name if name in ENVS else f"{name}_v0"
    if candidate not in ENVS:
        raise ValueError(f"unknown game {name!r}; known games: {sorted(ENVS)}")
    return candidate


def _error(message: str) -> None:
    print(f"braincards: error: {message}", file=sys.stderr)


def _stdout_gone() -> int:
    """The reader of stdout went away (``braincards ... | head``): stop quietly. Further
    output goes to /dev/null so that the exit flush raises nothing; the exit status is the
    one of a command killed by SIGPIPE."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a file descriptor (an embedding program)
        pass
    return 128 + 13  # SIGPIPE


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    from .evaluate import WorkerError

    command = argv[0] if argv else ""
    try:
        if command == "bench":  # the benchmark parses its own options
            from braincards.training.bench import main as bench_main

            return bench_main(argv[1:])
        args = build_parser().parse_args(argv)
        command = args.command
        if hasattr(args, "game"):
            args.game = game_id(args.game)
        rc = args.func(args)
        sys.stdout.flush()  # a reader that went away shows here, not at the exit flush
        return rc
    except BrokenPipeError:  # before OSError: it is one
        return _stdout_gone()
    except KeyboardInterrupt:  # Ctrl-C: worker processes are already stopped
        print("braincards: interrupted", file=sys.stderr)
        return 130
    except ModuleNotFoundError as err:  # an extra that is not installed: say which
        if extra_for_missing_module(err) is None:
            raise  # not a missing extra: a bug, keep the traceback
        _error(f"`braincards {command}` needs {_install_hint(err)}")
        return 2
    except (ValueError, OSError, WorkerError) as err:  # bad config values, unwritable
        _error(str(err))  # --out/--json paths, a dead worker: say what was wrong, no traceback
        return 2


if __name__ == "__main__":
    sys.exit(main())
