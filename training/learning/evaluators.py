"""How a training run's evaluations are played: one evaluator object, chosen once from the
config (:func:`evaluator_for`), so the trainer has no mode branches.

* :class:`InlineEvaluations` - in the trainer's process, when asked: the heuristic reference
  before pretraining, then each evaluation of the learner at once (``last`` is saved with it).
* :class:`BackgroundEvaluations` (``backend.background_evaluation``) - in worker processes on the
  second core while training goes on: the reference is started before pretraining and
  collected at the end; each evaluation saves ``last`` at once and sends the weights to the
  evaluation process, whose results come back later, each with the weights it played (the
  trainer keeps them until it knows whether they are the best); ``last`` is saved again with
  its own evaluation when the run ends.

The trainer gives an evaluator what it needs through three calls: ``trainer.learner()`` (the
learner as a :class:`~braincards.training.agents.network.CheckpointPolicy`),
``trainer.metadata()`` (the learner's checkpoint metadata) and ``trainer.save_last(entry)``.
"""

from __future__ import annotations

import collections

import torch

from ..agents.checkpoint import detached_state
from .config import TrainConfig
from .schedule import BackgroundBaseline, BackgroundEvaluation, baseline_evaluation, run_evaluation


class InlineEvaluations:
    """Evaluations played in the trainer's process (see the module docstring)."""

    def __init__(self, cfg: TrainConfig, workers: int = 1):
        self.cfg, self.workers = cfg, workers
        self._baseline: dict | None = None

    def start(self) -> None:
        """The heuristic reference, now (before pretraining)."""
        self._baseline = baseline_evaluation(self.cfg, self.workers)

    def baseline(self) -> dict:
        return self._baseline

    def evaluate(self, timesteps: int, trainer) -> list[tuple[dict, dict | None]]:
        """Evaluate the learner now and save ``last`` with it; returns ``[(entry, None)]``
        (None: the model as it is played)."""
        entry = {"timesteps": timesteps, **run_evaluation(trainer.learner(), self.cfg, workers=self.workers)}
        trainer.save_last(entry)
        return [(entry, None)]

    def finished(self, wait: bool = False) -> list[tuple[dict, dict | None]]:
        return []  # every evaluation was recorded when it was asked for

    def end(self, final: dict | None, trainer) -> None:
        """``last`` has its evaluation already."""

    def close(self) -> None:
        """Nothing runs elsewhere."""


class BackgroundEvaluations:
    """``backend.background_evaluation``: evaluations played in worker processes (see the module
    docstring)."""

    def __init__(self, cfg: TrainConfig, workers: int = 1):
        self.cfg, self.workers = cfg, workers
        self._reference: BackgroundBaseline | None = None
        self._process: BackgroundEvaluation | None = None  # from the first evaluation on
        self._weights: collections.deque = collections.deque()  # of each evaluation not back yet

    def start(self) -> None:
        """The heuristic reference, started on the second core."""
        self._reference = BackgroundBaseline(self.cfg, self.workers)

    def baseline(self) -> dict:
        """The reference's result (waits for it)."""
        return self._reference.result()

    def evaluate(self, timesteps: int, trainer) -> list[tuple[dict, dict | None]]:
        """Save ``last`` now (the point --resume continues from; its evaluation comes later)
        and send the weights to the evaluation process; returns the evaluations finished by
        now, each with the weights it played."""
        trainer.save_last(None)
        weights = detached_state(trainer.model.policy)
        if self._process is None:
            self._process = BackgroundEvaluation(self.cfg, trainer.model.policy, trainer.metadata(), self.workers)
        self._process.submit(timesteps, weights)
        self._weights.append(weights)
        return self.finished()

    def finished(self, wait: bool = False) -> list[tuple[dict, dict | None]]:
        """The evaluations that have come back (all of them if ``wait``), in submission order."""
        if self._process is None:
            return []
        return [({"timesteps": ts, **result}, self._weights.popleft()) for ts, result in self._process.finished(wait)]

    def end(self, final: dict | None, trainer) -> None:
        """``last`` was saved before its evaluation came back: save it again with it (without
        drawing from torch's generator, so the run does not depend on the timing)."""
        if final is not None:
            with torch.random.fork_rng(devices=[]):
                trainer.save_last(final)

    def close(self) -> None:
        for process in (self._process, self._reference):
            if process is not None:
                process.close()


def evaluator_for(cfg: TrainConfig, workers: int = 1) -> InlineEvaluations | BackgroundEvaluations:
    """The evaluator of a run: in the background with ``backend.background_evaluation``, else inline."""
    return (BackgroundEvaluations if cfg.backend.background_evaluation else InlineEvaluations)(cfg, workers)
