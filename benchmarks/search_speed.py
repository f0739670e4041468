"""The Brain's search, before and after the search-speed work, in one run.

``python benchmarks/search_speed.py`` prints, each as a ratio against the frozen copy of the
code of before (the search code as it was before the search-speed work, read from git at
:data:`BEFORE_REF`: it needs the repository's history) on the same deals and games:

* **solver**: the oracle's deal sets (``derive_seed(0, g)``, hand 5): 300 deals at 2, 3 and
  4 players at robber and 40 at 3 players, cat_burglar. Before at its default budget
  (200,000 nodes), after at the oracle's (2,000,000); time and undecided deals of each.
  ``--sweep N`` adds the undecided count of the new solver over N deals at every player
  count and difficulty.
* **PIMC**: CPU time per decision (``time.process_time()`` around ``evaluate`` over the
  calls to ``act``, env included) of an all-PIMC team at 3 players, robber, default
  settings, and the team's win rate with its 95% interval (``--pimc-games`` each).
* **recipe**: ``configs/the_brain/train_3p.yaml`` end to end, the greedy teacher of before
  against today's (``--recipe-games`` pretraining games, ``--recipe-timesteps`` PPO steps;
  ``--recipe full`` for the whole recipe, ``--recipe none`` to skip it), and today's with
  the speed options (``FAST_SETS``: ``backend.sparse_input``, ``backend.precision``,
  ``pretrain.fused_adam``, ``backend.fused_adam``, ``pretrain.record_ahead``,
  ``backend.background_evaluation``); then each run's best checkpoint's
  team over ``--team-games`` games (seed 0, the results page's deals).

and the peak RSS of the process. Compile time (numba's first call) is reported apart.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import importlib
import io
import json
import multiprocessing
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from braincards.envs import derive_seed, make, the_brain
from braincards.training.agents import specs
from braincards.training.agents.search.pimc import PIMCPolicy
from braincards.training.agents.search.solver import Solver
from braincards.training.cli import main as cli
from braincards.training.evaluation.evaluate import evaluate
from braincards.training.evaluation.oracle import DEFAULT_NODES

ROOT = Path(__file__).resolve().parents[1]
# the last commit holding the frozen copy of the search code of before (benchmarks/search_before)
BEFORE_REF = "3147a91382c7f8c3f8855d28edbc69d560ed7c92"
BEFORE_MODULES = ("solver", "pimc", "greedy")


@functools.cache
def load_before(ref: str = BEFORE_REF) -> tuple:
    """The search code of before, ``(solver, pimc, greedy)``: ``benchmarks/search_before`` at
    git ``ref``, written to a scratch folder and imported as the package ``search_before``."""
    scratch = Path(tempfile.mkdtemp(prefix="search-before-")) / "search_before"
    scratch.mkdir()
    for name in ("__init__", *BEFORE_MODULES):
        shown = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:benchmarks/search_before/{name}.py"],
                               capture_output=True, text=True)
        if shown.returncode != 0:
            raise SystemExit(f"the search code of before is read from git ({ref}), and git said: "
                             f"{shown.stderr.strip()} (a shallow clone? git fetch --unshallow)")
        (scratch / f"{name}.py").write_text(shown.stdout)
    sys.path.insert(0, str(scratch.parent))
    return tuple(importlib.import_module(f"search_before.{m}") for m in BEFORE_MODULES)

DEAL_SETS = ((2, "robber", 300), (3, "robber", 300), (4, "robber", 300), (3, "cat_burglar", 40))
OLD_NODES = 200_000


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _deal_states(players: int, difficulty: str, deals: int, seed: int = 0) -> list:

    raw = the_brain.SPEC.raw_env(**the_brain.SPEC.check_options({"num_players": players, "difficulty": difficulty}))
    states = []
    for g in range(deals):
        raw.reset(seed=derive_seed(seed, g))
        states.append(raw.state.copy())
    return states


def _solve_all(solver_cls, states: list, nodes: int) -> dict:
    counts = {"win": 0, "loss": 0, "unknown": 0}
    names = {1: "win", -1: "loss", 0: "unknown"}
    table = 0
    start = time.perf_counter()
    for state in states:
        solver = solver_cls.for_state(state, nodes=nodes)
        counts[names[solver.solve(state)]] += 1
        table = max(table, getattr(solver, "table_bytes", 0))
    return {**counts, "seconds": time.perf_counter() - start, "max_table_mb": table / 2**20}


def bench_solver(scale: float, sweep: int) -> dict:

    old_solver = load_before()[0]
    start = time.perf_counter()
    first = _deal_states(3, "robber", 1)[0]
    Solver.for_state(first, nodes=10).solve(first)
    compile_s = time.perf_counter() - start
    print(f"solver: first call (numba compile) {compile_s:.1f} s, not counted below")
    print("| deals | before: s (undecided) | after: s (undecided) | ratio |")
    print("|---|---|---|---|")
    rows = []
    for players, difficulty, deals in DEAL_SETS:
        states = _deal_states(players, difficulty, max(1, round(deals * scale)))
        before = _solve_all(old_solver.Solver, states, OLD_NODES)
        after = _solve_all(Solver, states, DEFAULT_NODES)
        ratio = before["seconds"] / after["seconds"]
        rows.append({"players": players, "difficulty": difficulty, "deals": len(states), "before": before,
                     "after": after, "ratio": ratio})
        print(f"| {players} players, {difficulty}, {len(states)} | {before['seconds']:.1f} ({before['unknown']}) | "
              f"{after['seconds']:.2f} ({after['unknown']}) | {ratio:.0f}x |", flush=True)
    tb = sum(r["before"]["seconds"] for r in rows)
    ta = sum(r["after"]["seconds"] for r in rows)
    print(f"solver, all four sets: {tb:.1f} s -> {ta:.2f} s = {tb / ta:.0f}x faster")
    out = {"compile_seconds": compile_s, "sets": rows, "ratio": tb / ta}
    if sweep:
        print(f"\nundecided deals of the new solver at its default budget ({DEFAULT_NODES:,} nodes), {sweep} deals each:")
        out["sweep"] = []
        for players in (1, 2, 3, 4):
            for difficulty in ("amateur", "robber", "cat_burglar"):
                res = _solve_all(Solver, _deal_states(players, difficulty, sweep), DEFAULT_NODES)
                out["sweep"].append({"players": players, "difficulty": difficulty, **res})
                print(f"  {players} players, {difficulty}: won {res['win']}, lost {res['loss']}, undecided "
                      f"{res['unknown']} ({res['seconds']:.1f} s, largest table {res['max_table_mb']:.1f} MB)",
                      flush=True)
    return out


def _pimc_run(make, games: int) -> dict:

    config = {"num_players": 3, "difficulty": "robber"}
    pol = make(config)
    calls = [0]
    act = pol.act

    def counted(obs, agent=None):
        calls[0] += 1
        return act(obs, agent)

    pol.act = counted
    start = time.process_time()
    res = evaluate("the_brain_v0", config, seats=[pol, pol, pol], games=games, seed=0, progress=False)
    cpu = time.process_time() - start
    return {"games": games, "decisions": calls[0], "cpu_seconds": cpu, "ms_per_decision": 1000 * cpu / calls[0],
            "win_rate": res["team"]["win_rate"]}


def bench_pimc(games: int, before_games: int) -> dict:

    old_pimc = load_before()[1]
    layout = make("the_brain_v0", raw=True, num_players=3).observation_layout()
    _pimc_run(lambda c: PIMCPolicy(layout, c), 1)  # compile
    after = _pimc_run(lambda c: PIMCPolicy(layout, c), games)
    before = _pimc_run(lambda c: old_pimc.PIMCPolicy(layout, c), before_games)
    ratio = before["ms_per_decision"] / after["ms_per_decision"]
    game_s = after["cpu_seconds"] / games

    def rate(r):
        w = r["win_rate"]
        return f"{w['value']:.3f} [{w['lo']:.3f}, {w['hi']:.3f}] over {r['games']} games"

    print(f"\nPIMC (3 players, robber, samples={PIMCPolicy.DEFAULT_SAMPLES}, nodes={PIMCPolicy.DEFAULT_NODES}):")
    print(f"  before: {before['ms_per_decision']:.2f} ms of CPU per decision, team win rate {rate(before)}")
    print(f"  after:  {after['ms_per_decision']:.2f} ms of CPU per decision, team win rate {rate(after)}")
    print(f"  PIMC: {ratio:.1f}x faster per decision; a 3-player game takes {game_s:.2f} s of CPU", flush=True)
    return {"before": before, "after": after, "ratio": ratio, "seconds_per_game": game_s}


def _train(games: int | None, timesteps: int | None, out: str, sets: tuple = (), old_greedy: bool = False
           ) -> tuple[float, str]:
    """One run of the recipe (``braincards train``), with the frozen ``greedy`` of before as
    the teacher if ``old_greedy``; returns its seconds and its last evaluation lines."""


    torch.set_num_threads(1)
    if old_greedy:
        specs.KINDS["greedy"] = dataclasses.replace(specs.KINDS["greedy"], factory=load_before()[2].make_greedy)
    args = ["train", str(ROOT / "configs" / "the_brain" / "train_3p.yaml"), "--out", out, "--quiet"]
    if games is not None:
        args += ["--set", f"pretrain.games={games}"]
    if timesteps is not None:
        args += ["--timesteps", str(timesteps)]
    for item in sets:
        args += ["--set", item]
    buf = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(buf):
        rc = cli.main(args)
    if rc != 0:
        raise RuntimeError(f"training failed:\n{buf.getvalue()}")
    lines = [ln for ln in buf.getvalue().splitlines() if ln.startswith("| team") or ln.startswith("[")]
    return time.perf_counter() - start, "\n".join(lines[-2:])


def _train_child(conn, *args) -> None:
    try:
        conn.send(("ok", _train(*args)))
    except BaseException as e:  # handed to the parent, which raises it
        conn.send(("error", f"{type(e).__name__}: {e}"))
    finally:
        conn.close()


def _train_fresh(*args) -> tuple[float, str]:
    """:func:`_train` in a freshly spawned interpreter, as a user's ``braincards train``
    runs: no run inherits the memory, caches or processes an earlier one left behind."""

    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(target=_train_child, args=(child, *args))
    process.start()
    child.close()
    try:
        kind, value = parent.recv()
    finally:
        process.join()
    if kind == "error":
        raise RuntimeError(f"the recipe run failed: {value}")
    return value


FAST_SETS = ("backend.sparse_input=true", "backend.precision=bfloat16", "pretrain.fused_adam=true",
             "backend.fused_adam=true", "pretrain.record_ahead=true",
             "backend.background_evaluation=true")  # the recipe's speed options (docs/training.md)


def _team_rate(best: str, games: int) -> str:
    """The team win rate of checkpoint ``best`` at every seat, ``games`` games, seed 0 (the
    results page's deals), with its 95% interval."""

    r = evaluate("the_brain_v0", {"num_players": 3, "difficulty": "robber"}, seats=[best] * 3, games=games,
                 seed=0, workers=2, progress=False)
    w = r["team"]["win_rate"]
    return f"{w['value']:.3f} [{w['lo']:.3f}, {w['hi']:.3f}]"


RECIPE_RUNS = ("before", "after", "fast")


def bench_recipe(mode: str, games: int, timesteps: int, team_games: int, which=RECIPE_RUNS) -> dict | None:
    """The recipe's ``which`` runs, each in a fresh process (``before`` always: the others'
    ratios are against it), then each one's best checkpoint's team over ``team_games``."""
    if mode == "none":
        return None
    which = ["before", *[k for k in RECIPE_RUNS if k in which and k != "before"]]
    games_, steps_ = (None, None) if mode == "full" else (games, timesteps)
    what = "the whole recipe" if mode == "full" else f"pretrain.games={games}, {timesteps} PPO steps"
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for k in which:
            sets = FAST_SETS if k == "fast" else ()
            runs[k] = _train_fresh(games_, steps_, f"{tmp}/{k}", sets, k == "before")
        teams = {k: _team_rate(f"{tmp}/{k}/best", team_games) if team_games else None for k in runs}
    before = runs["before"][0]
    print(f"\nrecipe configs/the_brain/train_3p.yaml ({what}; each run in a fresh process):")
    labels = {"before": "before", "after": "after", "fast": "after, with " + " ".join(FAST_SETS)}
    for k in which:
        seconds, lines = runs[k]
        team = f"; best checkpoint's team over {team_games} games (seed 0): {teams[k]}" if teams[k] else ""
        print(f"  {labels[k]}: {seconds:.0f} s, {before / seconds:.2f}x{team}\n{lines}", flush=True)
    out = {"before_seconds": before, "team": teams}
    if "after" in runs:
        same = runs["before"][1] == runs["after"][1]
        print(f"  after: the same evaluations as before, to the last digit: {same}", flush=True)
        out.update(after_seconds=runs["after"][0], ratio=before / runs["after"][0], same_result=same)
    if "fast" in runs:
        out.update(fast_seconds=runs["fast"][0], fast_ratio=before / runs["fast"][0], fast_settings=list(FAST_SETS))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=float, default=1.0, help="share of each solver deal set (default all)")
    p.add_argument("--sweep", type=int, default=0, help="also count undecided deals over N deals per config")
    p.add_argument("--pimc-games", type=int, default=300, help="games of the new PIMC team (default 300)")
    p.add_argument("--pimc-before-games", type=int, default=300, help="games of the old PIMC team (default 300)")
    p.add_argument("--recipe", choices=("scaled", "full", "none"), default="scaled")
    p.add_argument("--recipe-games", type=int, default=2000, help="pretraining games of the scaled recipe")
    p.add_argument("--recipe-timesteps", type=int, default=20_000, help="PPO steps of the scaled recipe")
    p.add_argument("--team-games", type=int, default=1000, help="games of each recipe checkpoint's team "
                   "evaluation after the timings (0: none)")
    p.add_argument("--recipe-runs", nargs="+", default=list(RECIPE_RUNS), choices=RECIPE_RUNS,
                   help="the recipe's runs (default all three; before always runs)")
    p.add_argument("--skip", nargs="*", default=[], choices=("solver", "pimc"))
    p.add_argument("--json", default=None, help="also write the numbers as JSON")
    args = p.parse_args(argv)
    result = {}
    if "solver" not in args.skip:
        result["solver"] = bench_solver(args.scale, args.sweep)
    if "pimc" not in args.skip:
        result["pimc"] = bench_pimc(args.pimc_games, args.pimc_before_games)
    result["recipe"] = bench_recipe(args.recipe, args.recipe_games, args.recipe_timesteps, args.team_games,
                                    args.recipe_runs)
    result["peak_rss_mb"] = peak_rss_mb()
    result["peak_child_rss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"\npeak RSS of this process: {result['peak_rss_mb']:.0f} MB (of its largest child process, a "
          f"recipe run or its workers: {result['peak_child_rss_mb']:.0f} MB)")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
