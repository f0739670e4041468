"""The benchmark's games as Ray tasks (``braincards benchmark ... --ray-address ADDR``).

:func:`ray_runner` returns a runner with :func:`~braincards.training.evaluation.harness.run_tasks`'s
signature: the tasks are cut into chunks, each chunk is played by a Ray task with its own
:class:`~braincards.training.evaluation.harness.Table`, and the records come back in task
order. A game's seeds come from its task alone, so the records are exactly the local ones.
Policies travel as specs (strings): checkpoint names resolve on the cluster's nodes, which
need braincards (and its shipped checkpoints) installed.
"""

from __future__ import annotations

import math
import sys
import warnings

import ray
from tqdm import tqdm

from braincards.envs import TableConfig

from ...agents.checkpoint import CheckpointConfigWarning
from ...evaluation.harness import Table


@ray.remote
def _play_chunk(table: TableConfig, specs: dict, seed: int, deterministic: bool,
                tasks: list) -> list[dict]:
    warnings.simplefilter("ignore", CheckpointConfigWarning)
    player = Table(table, specs, seed, deterministic)
    return [player.play(t) for t in tasks]


def ray_runner(address: str | None, *, chunk: int = 20):
    """A task runner that plays on the Ray cluster at ``address`` (``"local"`` or None: a
    local Ray started here; a running local one is reused)."""
    if not ray.is_initialized():
        ray.init(address=None if address in (None, "local") else address,
                 include_dashboard=False, log_to_driver=False)

    def run(
        table: TableConfig,
        specs: dict,
        tasks: list,
        *,
        seed: int,
        workers: int = 1,
        deterministic: bool = True,
        progress: bool | None = None,
        desc: str = "games",
    ) -> list[dict]:
        size = max(1, min(chunk, math.ceil(len(tasks) / max(1, workers))))
        chunks = [tasks[i : i + size] for i in range(0, len(tasks), size)]
        pending = {_play_chunk.remote(table, specs, seed, deterministic, c): k
                   for k, c in enumerate(chunks)}
        done: dict[int, list[dict]] = {}
        enabled = sys.stderr.isatty() if progress is None else progress
        with tqdm(
            total=len(tasks), desc=desc, disable=not enabled, leave=False, file=sys.stderr
        ) as bar:
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    k = pending.pop(ref)
                    done[k] = ray.get(ref)
                    bar.update(len(done[k]))
        return [r for k in range(len(chunks)) for r in done[k]]

    return run
