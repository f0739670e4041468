"""Env throughput: random legal play through the public AEC API.

Every env, braincards' and PettingZoo's own classic games alike, runs the same loop in
the same process: ``env.last()``, read the action mask, pick a legal action uniformly,
``env.step()``; resets are included. Prints decisions per second and the ratio to
PettingZoo's ``leduc_holdem_v4`` (when ``pettingzoo[classic]`` is installed: the
Makefile's ``bench`` target makes a separate venv with it; braincards never depends on it).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from braincards.envs import SPECS, make

try:  # optional: PettingZoo's classic games (pettingzoo[classic]), the peers we compare with
    from pettingzoo.classic import connect_four_v3, leduc_holdem_v4
except ImportError as err:  # `make bench` installs them in .bench-venv
    PEERS, PEERS_MISSING = {}, str(err)
else:
    PEERS, PEERS_MISSING = {"connect_four_v3": connect_four_v3.env, "leduc_holdem_v4": leduc_holdem_v4.env}, ""

# every game at every multi-player count
BRAINCARDS_CASES = [(spec.id, {"num_players": n}) for spec in SPECS.values()
                    for n in range(max(2, spec.players[0]), spec.players[1] + 1)]
REFERENCE = "leduc_holdem_v4"


def measure(env, seconds: float, seed: int = 0) -> tuple[float, int]:
    """Decisions per second of random legal play on a wrapped AEC env."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    decisions = 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    while True:
        for _ in range(200):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.reset()
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            decisions += 1
        if time.perf_counter() >= deadline:
            break
    return decisions / (time.perf_counter() - start), decisions


def run(seconds: float, repeats: int, only: list[str] | None = None, progress=None) -> list[dict]:
    """The best of ``repeats`` measurements of ``seconds`` for each env; ``progress(line)`` hears
    how far it is (the whole run takes envs x repeats x seconds)."""
    cases = [(f"{name} {config}", lambda name=name, config=config: make(name, **config))
             for name, config in BRAINCARDS_CASES if not only or name in only]
    if PEERS_MISSING:
        print(f"skipping PettingZoo's classic games ({PEERS_MISSING}); `make bench` installs "
              "pettingzoo[classic] in .bench-venv")
    cases += list(PEERS.items())
    say = progress or (lambda line: None)
    say(f"bench: {len(cases)} envs x {repeats} runs x {seconds:g} s (about {len(cases) * repeats * seconds:.0f} s)")
    rows = []
    for i, (label, factory) in enumerate(cases, 1):
        best = 0.0
        for r in range(repeats):  # best of N: least disturbed by other load
            rate, _ = measure(factory(), seconds, seed=r)
            best = max(best, rate)
        rows.append({"env": label, "decisions_per_s": best})
        say(f"bench: {i}/{len(cases)} {label}: {best:,.0f} decisions/s")
    reference = next((row["decisions_per_s"] for row in rows if row["env"] == REFERENCE), None)
    for row in rows:
        row["ratio_to_leduc"] = None if reference is None else row["decisions_per_s"] / reference
    return rows


def format_table(rows: list[dict]) -> str:
    lines = ["| env | decisions/s | ratio to leduc_holdem_v4 |", "|---|---:|---:|"]
    for row in rows:
        ratio = "-" if row["ratio_to_leduc"] is None else f"{row['ratio_to_leduc']:.2f}x"
        lines.append(f"| {row['env']} | {row['decisions_per_s']:,.0f} | {ratio} |")
    if any(row["ratio_to_leduc"] is None for row in rows):
        lines.append(f"\nratio: - where {REFERENCE} was not measured (PettingZoo's classic games are not installed "
                     f"here; `make bench` runs this benchmark in .bench-venv, which has them)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="braincards bench", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="measurements per env (best is kept)")
    parser.add_argument("--only", nargs="*", help="braincards env ids to include")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be > 0 and --repeats >= 1")
    print(format_table(run(args.seconds, args.repeats, args.only, progress=lambda line: print(line, file=sys.stderr))))
    return 0
