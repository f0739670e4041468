"""The training schedule both backends share: what an evaluation plays, which checkpoint is
"best", and when a snapshot of the learner joins the opponent pool.

* :func:`evaluation_tables` / :func:`run_evaluation` - the learner's evaluation: a team game
  (every seat the learner) and the learner with each ``evaluation.partners`` for cooperative
  games (in seat mode, the learner with each partner only: the pool holds partners there);
  the learner against each ``evaluation.opponents`` for competitive ones;
* :func:`primary_score` - the number "best" is chosen by: the first table's win rate, ties
  broken by its mean score;
* :class:`BackgroundEvaluation` - ``backend.background_evaluation``: the evaluations in a second
  process while training goes on;
* :class:`SnapshotSchedule` - a snapshot every ``opponents.snapshot_every`` timesteps, or
  when the learner's win rate over the last ``snapshot_window`` games reaches
  ``snapshot_win_rate``.
"""

from __future__ import annotations

import collections

from ..agents.network import CheckpointPolicy, set_torch_threads
from ..agents.specs import make_policy
from ..evaluation.evaluate import evaluate
from ..processes import Worker
from .config import TrainConfig


def evaluation_tables(cfg: TrainConfig) -> list[tuple[str, list]]:
    """(name, seats) of every evaluation: the learner is ``"learner"`` in the seat lists."""
    n = cfg.num_players
    with_partners = [(f"with {p}", ["learner"] + [p] * (n - 1)) for p in cfg.evaluation.partners]
    if cfg.mode == "team":
        return [("team" if n > 1 else "solo", ["learner"] * n)] + (with_partners if n > 1 else [])
    if cfg.spec.cooperative:  # seat mode in a cooperative game: the other seats are partners
        return with_partners
    return [(f"vs {o}", ["learner"] + [o] * (n - 1)) for o in cfg.evaluation.opponents]


def primary_score(result: dict) -> float:
    """What "best" maximises: the first table's win rate, then (1e-3 x) its mean score."""
    first = next(v for k, v in result.items() if k != "primary")
    return first["win_rate"]["value"] + 1e-3 * first["mean_score"]["value"]


def run_evaluation(policy, cfg: TrainConfig, games: int | None = None, workers: int = 1) -> dict:
    """Evaluate ``policy`` at every table of :func:`evaluation_tables`; returns
    ``{table: {"win_rate", "mean_score", "games"}}`` (team rates for cooperative games,
    the learner's seat-games otherwise) and :func:`primary_score` under ``"primary"``.
    ``workers`` processes play the games (``evaluate``'s: the same results as one)."""
    out: dict = {}
    for name, seats in evaluation_tables(cfg):
        seated = [policy if s == "learner" else s for s in seats]
        r = evaluate(cfg.game, cfg.env, seats=seated, games=games or cfg.evaluation.games,
                     seed=cfg.evaluation.seed, workers=workers, progress=False)
        if "team" in r:
            out[name] = {"win_rate": r["team"]["win_rate"], "mean_score": r["team"]["mean_score"],
                         "games": r["games"]}
        else:  # the learner's own seat-games (competitive games, solo Brilliant Boar)
            d = r["policies"][policy.name]
            out[name] = {"win_rate": d["win_rate"], "mean_score": d["mean_score"], "games": r["games"]}
    out["primary"] = primary_score(out)
    return out


def baseline_evaluation(cfg: TrainConfig, workers: int = 1) -> dict:
    """The same evaluation with the game's baseline (its heuristic) in the learner's seats."""
    baseline = make_policy(cfg.spec.baseline, cfg.game, cfg.env)
    baseline.name = f"{cfg.spec.baseline} (in the learner's seats)"
    return run_evaluation(baseline, cfg, workers=workers)


class BackgroundBaseline:
    """``backend.background_evaluation``: :func:`baseline_evaluation` in a
    :class:`~braincards.training.processes.Worker` process, started before pretraining and
    collected with :meth:`result` at the end of the run, so that the heuristic reference is
    played on the second core while the trainer clones and learns. Its result is the one
    :func:`baseline_evaluation` gives in the trainer (the same seeds and tables)."""

    def __init__(self, cfg: TrainConfig, workers: int = 1):
        self._worker = Worker("backend.background_evaluation's baseline process", _baseline_setup, _baseline_run,
                              (cfg, workers))
        self._worker.send("baseline")  # any request but None, which stops a Worker

    def result(self) -> dict:
        """The baseline's evaluation (waits for it)."""
        return self._worker.receive()

    def close(self) -> None:
        self._worker.close()


def _baseline_setup(cfg: TrainConfig, workers: int) -> tuple:
    set_torch_threads(cfg.torch_threads)
    return cfg, workers


def _baseline_run(state: tuple, _request) -> dict:
    return baseline_evaluation(*state)


class BackgroundEvaluation:
    """``backend.background_evaluation``: :func:`run_evaluation` in a
    :class:`~braincards.training.processes.Worker` process, so that training goes on while
    the games are played (on a second core). It has its own copy of the network; each
    :meth:`submit` sends the weights to evaluate, and :meth:`finished` returns the results
    in the order they were submitted, each with the key it was submitted with (the trainer
    keeps the weights there until it knows whether they are the best). Each result is the one
    :func:`run_evaluation` gives those weights in the trainer. The training itself is not the
    one of inline evaluations: saving a checkpoint builds a network to check its tensors,
    which draws from torch's generator (and PPO samples its actions from it), and a
    background run saves ``best`` without drawing. A background run is deterministic under
    its seed whatever the timing."""

    def __init__(self, cfg: TrainConfig, network, metadata: dict, workers: int = 1):
        self._worker = Worker("backend.background_evaluation's evaluation process", _evaluator_setup, _evaluate_weights,
                              (cfg, network, metadata, workers))
        self._keys: collections.deque = collections.deque()

    def submit(self, key, weights: dict) -> None:
        self._worker.send(weights)
        self._keys.append(key)

    def finished(self, wait: bool = False) -> list[tuple]:
        """``(key, result)`` of every evaluation done by now (every one submitted if ``wait``)."""
        done = []
        while self._keys and (wait or self._worker.ready()):
            result = self._worker.receive()
            done.append((self._keys.popleft(), result))
        return done

    def close(self) -> None:
        self._worker.close()


def _evaluator_setup(cfg: TrainConfig, network, metadata: dict, workers: int) -> tuple:
    set_torch_threads(cfg.torch_threads)
    network.set_training_mode(False)  # the float32 network, as saved (see _evaluate_and_save)
    return cfg, CheckpointPolicy(network, metadata, deterministic=True, name="learner"), workers


def _evaluate_weights(state: tuple, weights: dict) -> dict:
    cfg, policy, workers = state
    policy.network.load_state_dict(weights)
    return run_evaluation(policy, cfg, workers=workers)


class SnapshotSchedule:
    """When to freeze the learner into the opponent pool (seat mode with a ``snapshots``
    source). Feed it finished games' outcomes with :meth:`record`; :meth:`due` says whether
    a snapshot is due at ``timesteps`` (and, when it is, restarts the clock and the window)."""

    def __init__(self, cfg: TrainConfig, start_timesteps: int = 0):
        opp = cfg.opponents
        self.enabled = cfg.mode == "seat"
        self.every, self.rate, self.size = opp.snapshot_every, opp.snapshot_win_rate, opp.snapshot_window
        self.next = start_timesteps + self.every if self.every else None
        self.window: list[bool] = []

    def record(self, outcomes) -> None:
        self.window.extend(bool(o) for o in outcomes)
        del self.window[: -self.size]

    @property
    def win_rate(self) -> float | None:
        return sum(self.window) / len(self.window) if self.window else None

    def due(self, timesteps: int) -> bool:
        if not self.enabled:
            return False
        on_time = self.next is not None and timesteps >= self.next
        full = len(self.window) >= self.size
        winning = self.rate is not None and full and self.win_rate >= self.rate
        if not (on_time or winning):
            return False
        self.window.clear()
        if self.next is not None:
            self.next = timesteps + self.every
        return True
