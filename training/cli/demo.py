"""``braincards demo``: one game of random legal moves, printed turn by turn."""

from __future__ import annotations

import random

import numpy as np

from braincards.envs import make


def add_commands(sub) -> None:
    demo = sub.add_parser("demo", help="play one game with random legal moves, printing the table")
    demo.add_argument("game", help="env id or game name, e.g. the_brain or the_brain_v0")
    demo.add_argument("--players", type=int, default=None, help="number of players")
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=cmd_demo)


def cmd_demo(args) -> int:
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
