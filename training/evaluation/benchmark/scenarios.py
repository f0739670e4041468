"""Playing one scenario: its games as harness tasks, the focal metric per game, and the
references that normalise it.

Game ``g`` of a scenario with seed ``S`` is the harness's game ``g`` of seed ``S`` (env seed
``derive_seed(S, g)``, seat ``i`` reset with ``derive_seed(S, g, 1, i)``). The background
seats of game ``g`` are drawn from the population's weights with ``derive_seed(S, g, 2, i)``,
and the whole table (focal and background seats) is then rotated by
:func:`~..harness.rotation`, so the focal policy plays every position equally often. Only
the focal policy changes between two policies' runs of a scenario: both see the same deals,
the same partners and opponents in the same places (a paired comparison).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from braincards.envs import derive_seed, table_config

from ..harness import rotation, run_tasks, validate_specs
from ..oracle import oracle_cell
from .suites import Reference, Scenario

FOCAL = "focal"


def _draw(population: tuple[tuple[str, float], ...], seed: int) -> str:
    """One background spec drawn by weight (Python's ``random.Random``: stable across versions)."""
    total = sum(w for _, w in population)
    x = random.Random(seed).random() * total
    for spec, w in population:
        x -= w
        if x < 0:
            return spec
    return population[-1][0]


def scenario_tasks(scenario: Scenario, games: int) -> list[tuple]:
    """The harness tasks ``(key, deal, variant, labels)`` of the scenario's first ``games``
    games; the focal seats are labelled :data:`FOCAL`."""
    n = scenario.num_players
    tasks = []
    for g in range(games):
        table = [FOCAL if i in scenario.focal else _draw(scenario.background,
                                                         derive_seed(scenario.seed, g, 2, i))
                 for i in range(n)]
        r = rotation(g, n)
        tasks.append((g, g, 0, tuple(table[(i + r) % n] for i in range(n))))
    return tasks


def game_metric(record: dict, metric: str, cooperative: bool) -> float:
    """The focal result of one game: ``win`` (1/0) or ``score``. Cooperative: the team's;
    competitive: the mean over the focal seats."""
    values = record["wins"] if metric == "win" else record["scores"]
    if cooperative:
        return float(values[0])
    seats = [i for i, label in enumerate(record["labels"]) if label == FOCAL]
    return sum(float(values[i]) for i in seats) / len(seats)


def play_scenario(scenario: Scenario, focal, games: int, *, workers: int = 1,
                  progress: bool | None = None, runner: Callable = run_tasks) -> dict:
    """Play the scenario's first ``games`` games with ``focal`` (a spec or a Policy) in the
    focal seats. ``runner`` plays the tasks (:func:`~..harness.run_tasks`'s signature; a Ray
    runner gives the same records). Returns ``values`` (the focal metric per game), and per
    game the raw ``wins`` and ``scores`` of the focal seats."""
    specs = {FOCAL: focal, **{spec: spec for spec, _ in scenario.background}}
    table = table_config(scenario.game, scenario.config)
    validate_specs(table, specs)
    tasks = scenario_tasks(scenario, games)
    records = runner(table, specs, tasks, seed=scenario.seed,
                     workers=workers, progress=progress, desc=scenario.id)
    coop = table.cooperative
    return {
        "values": [game_metric(r, scenario.metric, coop) for r in records],
        "wins": [game_metric(r, "win", coop) for r in records],
        "scores": [game_metric(r, "score", coop) for r in records],
        "truncated": sum(1 for r in records if r["truncated"]),
    }


def reference_value(
    scenario: Scenario,
    ref: Reference,
    games: int,
    *,
    workers: int = 1,
    progress: bool | None = None,
    runner: Callable = run_tasks,
) -> dict:
    """The metric of a reference on the scenario's first ``games`` games: ``{"value", "how"}``."""
    if ref.kind == "value":
        return {"value": ref.value, "how": ref.describe()}
    if ref.kind == "oracle":
        cell = oracle_cell(scenario.config, games, seed=scenario.seed, nodes=scenario.oracle_nodes)
        return {"value": cell["winnable_rate"]["value"], "how": ref.describe(),
                "unknown": cell["unknown"], "nodes": scenario.oracle_nodes}
    played = play_scenario(scenario, ref.spec, games, workers=workers, progress=progress,
                           runner=runner)
    return {"value": sum(played["values"]) / games, "how": ref.describe()}
