"""``braincards oracle``: the share of The Brain deals a team could win with every card known.

Deal ``g`` of a run with seed ``S`` is the env reset with ``derive_seed(S, g)``: exactly the
deal of game ``g`` in ``braincards evaluate ... --seed S`` with the same config, so the
oracle's figure is the upper bound for any team on those deals. Each deal is solved by
:class:`braincards.training.search.the_brain.Solver` under a node budget; a deal whose search
runs out of budget is counted as unknown, never as won or lost.
"""

from __future__ import annotations

import time

from ..stats import interval_dict, wilson_interval
from .the_brain import LOSS, UNKNOWN, WIN, Solver

DIFFICULTIES = ("amateur", "robber", "cat_burglar")


def oracle_cell(config: dict, deals: int, seed: int = 0, nodes: int | None = 200_000) -> dict:
    """Solve ``deals`` deals of The Brain under ``config`` (env options); JSON-safe result."""
    from braincards.envs import make

    from ..evaluate import derive_seed
    from ..policies import check_env_options

    check_env_options("the_brain_v0", config)
    deals = int(deals)
    if deals < 1:
        raise ValueError(f"deals={deals} must be >= 1")
    if nodes is not None and int(nodes) < 1:
        raise ValueError(f"nodes={nodes} must be >= 1")
    derive_seed(seed)
    raw = make("the_brain_v0", raw=True, **config)
    counts = {WIN: 0, LOSS: 0, UNKNOWN: 0}
    total_nodes = 0
    start = time.perf_counter()
    for g in range(deals):
        raw.reset(seed=derive_seed(seed, g))
        state = raw.state
        solver = Solver.for_state(state, nodes=nodes)
        counts[solver.solve(state)] += 1
        total_nodes += solver.total_nodes
    seconds = time.perf_counter() - start
    raw.close()
    won, lost, unknown = counts[WIN], counts[LOSS], counts[UNKNOWN]
    return {
        "config": dict(config),
        "deals": deals,
        "seed": seed,
        "nodes": nodes,
        "winnable": won,
        "unwinnable": lost,
        "unknown": unknown,
        # Wilson 95% CI of the winnable share, unknown deals counted as not (proven) winnable;
        # the true share over these deals lies in [winnable, winnable + unknown] / deals
        "winnable_rate": interval_dict(wilson_interval(won, deals)),
        "winnable_rate_if_unknown_won": (won + unknown) / deals,
        "mean_nodes": total_nodes / deals,
        "seconds": seconds,
    }


def oracle(players=(3,), difficulties=DIFFICULTIES, deals: int = 200, seed: int = 0,
           nodes: int | None = 200_000, config: dict | None = None) -> dict:  # fmt: skip
    """One :func:`oracle_cell` per (player count, difficulty)."""
    cells = []
    for n in players:
        for d in difficulties:
            cfg = {**dict(config or {}), "num_players": int(n), "difficulty": d}
            cells.append(oracle_cell(cfg, deals, seed, nodes))
    return {"deals": int(deals), "seed": seed, "nodes": nodes, "cells": cells}


def format_oracle(result: dict) -> str:
    budget = "no node budget" if result["nodes"] is None else f"node budget {result['nodes']:,} per deal"
    lines = [
        f"The Brain oracle: deals winnable with every card known ({result['deals']} deals per "
        f"config, seed {result['seed']}, {budget})",
        "",
        "| config | winnable (95% CI) | winnable | proven unwinnable | unknown (budget exhausted) | mean nodes | s/deal |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in result["cells"]:
        r = c["winnable_rate"]
        cfg = ", ".join(f"{k}={v}" for k, v in c["config"].items())
        lines.append(
            f"| {cfg} | {r['value']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}] | {c['winnable']} | "
            f"{c['unwinnable']} | {c['unknown']} | {c['mean_nodes']:,.0f} | "
            f"{c['seconds'] / c['deals']:.3f} |"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------------------- CLI
def add_oracle(sub) -> None:
    """The ``oracle`` subcommand (added to ``braincards``' parser by training/cli.py)."""
    p = sub.add_parser("oracle", help="The Brain: share of deals winnable with every card known",
                       description=__doc__.splitlines()[0])  # fmt: skip
    p.add_argument("game", help="the_brain (the only cooperative game)")
    p.add_argument("--players", type=int, nargs="+", default=[3], help="player counts (default 3)")
    p.add_argument("--difficulty", nargs="+", default=list(DIFFICULTIES),
                   help="difficulties (or integer limits); default all three")  # fmt: skip
    p.add_argument("--deals", type=int, default=200, help="deals per config (default 200)")
    p.add_argument("--seed", type=int, default=0, help="deal g is the env reset with derive_seed(seed, g)")
    p.add_argument("--nodes", type=int, default=200_000,
                   help="node budget per deal (0: none); a deal over budget is counted unknown")  # fmt: skip
    p.add_argument("--config", default=None, metavar="FILE.yaml", help="other env options (YAML)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override one env option, e.g. hand_size=4 (repeatable)")  # fmt: skip
    p.add_argument("--json", default=None, metavar="PATH", help="also write the result as JSON")
    p.set_defaults(func=cmd_oracle)


def cmd_oracle(args) -> int:
    from ..commands import load_config, write_json_result

    if args.game != "the_brain_v0":
        raise ValueError(f"the oracle solves The Brain only, not {args.game}")
    config = load_config(args.config, args.set)
    for key in ("num_players", "difficulty"):
        if key in config:
            raise ValueError(f"give {key} with --players / --difficulty, not in the config")
    difficulties = [int(d) if str(d).isdigit() else d for d in args.difficulty]
    result = oracle(args.players, difficulties, deals=args.deals, seed=args.seed,
                    nodes=args.nodes or None, config=config)  # fmt: skip
    print(format_oracle(result))
    write_json_result(args.json, result)
    return 0
