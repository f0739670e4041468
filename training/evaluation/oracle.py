"""The oracle: the share of The Brain deals a team could win with every card known.

Deal ``g`` of a run with seed ``S`` is the env reset with ``derive_seed(S, g)``: exactly the
deal of game ``g`` in ``braincards evaluate ... --seed S`` with the same config, so the
oracle's figure is the upper bound for any team on those deals. Each deal is solved by
:class:`braincards.training.agents.search.solver.Solver` under a node budget (default
:data:`DEFAULT_NODES`) with a bounded transposition table (``table_bits``); a deal whose
search runs out of budget is counted as unknown, never as won or lost.
"""

from __future__ import annotations

import time

from braincards.envs import derive_seed, get_spec

from ..agents.search.solver import LOSS, UNKNOWN, WIN, Solver
from .stats import interval_dict, wilson_interval

SPEC = get_spec(Solver.GAME)  # the game the exact solver plays
DIFFICULTIES = SPEC.variant_names
DEFAULT_NODES = 2_000_000  # about 2 s of search at most per deal; 1 unknown deal in 1,000 at most


def oracle_cell(config: dict, deals: int, seed: int = 0, nodes: int | None = DEFAULT_NODES,
                table_bits: int | None = None) -> dict:
    """Solve ``deals`` deals of The Brain under ``config`` (env options); JSON-safe result.
    ``table_bits``: the solver's transposition table holds at most ``2 ** table_bits``
    entries of 17 bytes (default: :func:`~braincards.training.agents.search.solver.table_bits_for`
    the budget, at most 2**24, about 285 MB)."""
    spec = SPEC
    config = spec.check_options(config)
    deals = int(deals)
    if deals < 1:
        raise ValueError(f"deals={deals} must be >= 1")
    if nodes is not None and int(nodes) < 1:
        raise ValueError(f"nodes={nodes} must be >= 1")
    derive_seed(seed)
    raw = spec.raw_env(**config)
    counts = {WIN: 0, LOSS: 0, UNKNOWN: 0}
    total_nodes = max_nodes = 0
    table_bytes = 0
    start = time.perf_counter()
    for g in range(deals):
        raw.reset(seed=derive_seed(seed, g))
        state = raw.state
        solver = Solver.for_state(state, nodes=nodes, table_bits=table_bits)
        counts[solver.solve(state)] += 1
        total_nodes += solver.total_nodes
        max_nodes = max(max_nodes, solver.total_nodes)
        table_bytes = max(table_bytes, solver.table_bytes)
    seconds = time.perf_counter() - start
    raw.close()
    won, lost, unknown = counts[WIN], counts[LOSS], counts[UNKNOWN]
    return {
        "config": dict(config),
        "deals": deals,
        "seed": seed,
        "nodes": nodes,
        "table_bits": table_bits,
        "winnable": won,
        "unwinnable": lost,
        "unknown": unknown,
        # Wilson 95% CI of the winnable share, unknown deals counted as not (proven) winnable;
        # the true share over these deals lies in [winnable, winnable + unknown] / deals
        "winnable_rate": interval_dict(wilson_interval(won, deals)),
        "winnable_rate_if_unknown_won": (won + unknown) / deals,
        "mean_nodes": total_nodes / deals,
        "max_nodes": max_nodes,
        "max_table_bytes": table_bytes,
        "seconds": seconds,
    }


def oracle(players=(3,), difficulties=DIFFICULTIES, deals: int = 200, seed: int = 0,
           nodes: int | None = DEFAULT_NODES, config: dict | None = None,
           table_bits: int | None = None) -> dict:
    """One :func:`oracle_cell` per (player count, difficulty)."""
    cells = []
    for n in players:
        for d in difficulties:
            cfg = {**dict(config or {}), "num_players": int(n), "difficulty": d}
            cells.append(oracle_cell(cfg, deals, seed, nodes, table_bits))
    return {"deals": int(deals), "seed": seed, "nodes": nodes, "cells": cells}


def check_game(game: str) -> None:
    """A ValueError unless the oracle's solver plays ``game``."""
    if get_spec(game) is not SPEC:
        raise ValueError(f"the oracle solves {SPEC.title} only ({SPEC.id}), not {game}")


def format_oracle(result: dict) -> str:
    budget = "no node budget" if result["nodes"] is None else f"node budget {result['nodes']:,} per deal"
    lines = [
        f"{SPEC.title} oracle: deals winnable with every card known ({result['deals']} deals per "
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
