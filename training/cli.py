"""The ``braincards`` command line.

Subcommands: ``demo`` (a game of random legal moves, printed turn by turn), ``bench``
(env throughput), ``evaluate`` (seat policies and measure them), ``crossplay``
(cooperative cross-play matrix), ``league`` (ratings of competitive policies) and ``play``
(a person plays in the terminal with or against policies).
"""

from __future__ import annotations

import argparse
import random
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
    from .search.oracle import add_oracle

    add_oracle(sub)  # The Brain: deals winnable with every card known

    from .train import add_train_command

    add_train_command(sub)
    return parser


def game_id(name: str) -> str:
    """``"the_brain"`` or ``"the_brain_v0"`` -> ``"the_brain_v0"`` (validated)."""
    from braincards.envs import ENVS

    candidate = name if name in ENVS else f"{name}_v0"
    if candidate not in ENVS:
        raise SystemExit(f"braincards: unknown game {name!r}; known games: {sorted(ENVS)}")
    return candidate


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["bench"]:  # the benchmark parses its own options
        from braincards.training.bench import main as bench_main

        return bench_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if hasattr(args, "game"):
        args.game = game_id(args.game)
    try:
        return args.func(args)
    except (ValueError, OSError) as err:  # bad config values, unwritable --out/--json paths:
        print(f"braincards: error: {err}", file=sys.stderr)  # say what was wrong, no traceback
        return 2


if __name__ == "__main__":
    sys.exit(main())
