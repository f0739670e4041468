"""The SB3 trainer (``braincards train``): fit a policy with sb3-contrib's MaskablePPO, from a YAML config.

Read top to bottom:

1. the config (:mod:`braincards.training.learning.config`) names the game, env, hyperparameters,
   opponent pool and evaluation schedule;
2. ``n_envs`` copies of :class:`~braincards.training.learning.learner_env.LearnerEnv` (team mode for
   The Brain: one shared policy plays every seat; seat mode for the competitive games: the
   learner's seat is drawn each episode and the opponent pool plays the others);
3. MaskablePPO learns; a callback keeps the rolling win rate, adds frozen snapshots of the
   learner to the opponent pool on the schedule, and evaluates the learner through
   :func:`~braincards.training.learning.schedule.run_evaluation` every ``evaluation.every`` timesteps;
4. ``best`` (highest primary evaluation score) and ``last`` checkpoints (the safe format,
   evaluation results in their metadata; ``last`` also holds the optimizer so that
   ``--resume`` continues from there), TensorBoard logs under ``tb/``, ``evaluations.json``,
   ``learning_curve.png`` and, in seat mode, the snapshots as ``snapshots/<timesteps>``
   checkpoints (``--resume`` puts them back into the pool).

Torch runs one thread per process by default (``torch_threads``): small-batch PPO on a
2-core machine is several times slower with torch's default thread count.
"""

from __future__ import annotations

import contextlib
import functools
import os
import random
import sys
import time
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn as nn
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnvWrapper, VecMonitor

from braincards.training import files, kernels
from braincards.training.processes import die_with_parent

from ..agents.checkpoint import (
    CheckpointError,
    check_fits,
    checkpoint_paths,
    detached_state,
    load_optimizer_state,
    network_description,
    read_checkpoint,
    save_checkpoint,
    verify_saved,
)
from ..agents.checkpoint_checks import check_trainable, reread_history
from ..agents.event_reader import EventReaderPolicy
from ..agents.layers import use_bfloat16_training, use_sparse_input
from ..agents.locations import resolve_checkpoint
from ..agents.network import CheckpointPolicy, set_torch_threads
from ..evaluation.stats import fmt_interval
from .config import TrainConfig, config_dict
from .evaluators import evaluator_for
from .learner_env import LearnerEnv, OpponentPool
from .pretrain import pretrain, pretrain_envs
from .schedule import (
    SnapshotSchedule,
)

matplotlib.use("Agg")

SNAPSHOTS = "snapshots"  # the run folder's subfolder of frozen learner snapshots (seat mode)


# ---------------------------------------------------------------------------- envs
def make_learner_env(cfg: TrainConfig, index: int) -> LearnerEnv:
    """Env ``index`` of a run (module-level, so SubprocVecEnv can pickle it)."""
    set_torch_threads(cfg.torch_threads)
    pool = None
    if cfg.mode == "seat":
        pool = OpponentPool(cfg.table, None, [(s.source, s.weight) for s in cfg.opponents.pool],
                            max_snapshots=cfg.opponents.max_snapshots,
                            deterministic=cfg.opponents.deterministic)
    return LearnerEnv(cfg.table, mode=cfg.mode, pool=pool, history_k=cfg.history_k,
                      shaping=cfg.shaping)


def _subprocess_env(parent: int, cfg: TrainConfig, index: int) -> LearnerEnv:
    """Env ``index`` built inside its SubprocVecEnv worker, which dies with the trainer
    (``parent``), however the trainer ends."""
    die_with_parent(parent)
    return make_learner_env(cfg, index)


def make_vec_env(cfg: TrainConfig):
    """``n_envs`` learner envs in a DummyVecEnv or SubprocVecEnv, timed and monitored."""
    class TimedVecEnv(VecEnvWrapper):
        """Counts the seconds spent inside the envs (steps and resets, opponents' moves
        included) to report the env's share of the wall time."""

        def __init__(self, venv):
            super().__init__(venv)
            self.env_seconds = 0.0

        def _timed(self, fn, *args):
            t = time.perf_counter()
            out = fn(*args)
            self.env_seconds += time.perf_counter() - t
            return out

        def reset(self):
            return self._timed(self.venv.reset)

        def step_async(self, actions):
            self._timed(self.venv.step_async, actions)

        def step_wait(self):
            return self._timed(self.venv.step_wait)

    if cfg.vec_env == "subproc":
        fns = [functools.partial(_subprocess_env, os.getpid(), cfg, i) for i in range(cfg.n_envs)]
        venv = SubprocVecEnv(fns, start_method="fork" if sys.platform != "win32" else "spawn")
    else:
        venv = DummyVecEnv([functools.partial(make_learner_env, cfg, i) for i in range(cfg.n_envs)])
    return VecMonitor(TimedVecEnv(venv), info_keywords=("win",))


# ---------------------------------------------------------------------------- model
def build_model(cfg: TrainConfig, venv, tensorboard_dir: str | None):
    p, pol, sb3 = cfg.ppo, cfg.policy, cfg.backend
    arch = list(pol.net_arch)
    kwargs = {"activation_fn": {"tanh": nn.Tanh, "relu": nn.ReLU}[pol.activation]}
    if pol.kind == "event_reader":
        policy = EventReaderPolicy
        kwargs.update(net_arch={"pi": [], "vf": arch}, history_k=cfg.history_k,
                      reader_hidden=pol.reader_hidden, reader_positions=pol.reader_positions)
    else:
        policy = "MlpPolicy"
        kwargs["net_arch"] = {"pi": arch, "vf": list(arch)}
    if sb3.fused_adam or kernels.adam_fused():  # sb3-contrib's own eps for Adam, set only without optimizer_kwargs
        kwargs["optimizer_kwargs"] = {"eps": 1e-5, "fused": True}
    model = MaskablePPO(
        policy, venv, learning_rate=p.learning_rate, n_steps=p.n_steps,
        batch_size=p.batch_size, n_epochs=p.n_epochs, gamma=p.gamma, gae_lambda=p.gae_lambda,
        clip_range=p.clip_range, ent_coef=p.ent_coef, vf_coef=p.vf_coef,
        max_grad_norm=p.max_grad_norm, target_kl=sb3.target_kl, policy_kwargs=kwargs,
        tensorboard_log=tensorboard_dir, seed=cfg.seed, device="cpu", verbose=0,
    )
    if sb3.sparse_input:
        use_sparse_input(model.policy)
    if sb3.precision == "bfloat16":
        use_bfloat16_training(model.policy)
    return model


def learner_metadata(model, cfg: TrainConfig) -> dict:
    """The metadata a :class:`CheckpointPolicy` needs to seat the model being trained."""
    return {"policy": network_description(model.policy), "history_k": cfg.history_k,
            "observation_shape": list(model.observation_space.shape),
            "action_n": int(model.action_space.n)}


def learner_policy(model, cfg: TrainConfig, name: str = "learner") -> CheckpointPolicy:
    """The model being trained, seated as a deterministic policy (no copy)."""
    return CheckpointPolicy(model.policy, learner_metadata(model, cfg), deterministic=True, name=name)


def _load_weights(model, cfg: TrainConfig, path, where: str, optimizer: bool) -> tuple[dict, tuple | None]:
    """Load a checkpoint's weights into ``model`` after checking that it fits: the config's
    game and spaces, history_k and network. Returns its metadata and optimizer state."""
    meta, tensors, opt = read_checkpoint(path, optimizer=optimizer)
    check_trainable(meta, where)
    if meta.get("history_k", 0) != cfg.history_k:  # only an event reader's warm start may
        meta = reread_history(meta, cfg.history_k, where, resume=optimizer)
    check_fits(meta, cfg.game, cfg.env, where=where)
    want = network_description(model.policy)
    if meta["policy"] != want:
        raise CheckpointError(f"{where}: its network {meta['policy']} differs from the config's {want}")
    model.policy.load_state_dict(tensors)
    return meta, opt


def resume(model, cfg: TrainConfig, path: str) -> int:
    """Load a checkpoint's weights and optimizer into ``model``; returns its timesteps."""
    meta, opt = _load_weights(model, cfg, path, f"--resume {path}", optimizer=True)
    if opt is not None:
        load_optimizer_state(model.policy.optimizer, opt, f"--resume {path}")
    model.num_timesteps = int(meta.get("timesteps", 0))
    return model.num_timesteps


def warm_start(model, cfg: TrainConfig) -> dict:
    """``backend.init_from``: load that checkpoint's weights (not its optimizer or timesteps) into
    ``model``; returns its metadata. A shipped name is looked up like a policy spec."""
    where = f"backend.init_from {cfg.backend.init_from}"
    path = resolve_checkpoint(cfg.backend.init_from)
    if path is None:
        raise CheckpointError(f"{where}: no such checkpoint (a shipped name such as the_brain/ppo_3p, "
                              f"or a path to NAME.zip + NAME.json)")
    return _load_weights(model, cfg, path, where, optimizer=False)[0]


# ---------------------------------------------------------------------------- callback
class TrainerCallback(BaseCallback):
    """Rolling win rate, the snapshot schedule, periodic evaluation and checkpoints."""

    def __init__(self, trainer):
        super().__init__()
        self.t = trainer
        self.next_eval = trainer.start_timesteps + trainer.cfg.evaluation.every
        self.snapshots = SnapshotSchedule(trainer.cfg, trainer.start_timesteps)

    def _on_step(self) -> bool:
        self.snapshots.record(info["win"] for info in self.locals.get("infos", []) if "win" in info)
        if self.snapshots.win_rate is not None:
            self.logger.record("rollout/win_rate", self.snapshots.win_rate)
        if self.snapshots.due(self.num_timesteps):
            self.t.add_snapshot()
        return True

    def _on_rollout_start(self) -> None:
        self.t.collect(self.logger)  # background evaluations that have finished
        # evaluate here, after the previous rollout's update, so that a checkpoint saved
        # at N timesteps holds the weights trained on those N timesteps
        if self.num_timesteps >= self.next_eval:
            self.t.evaluate_and_save(self.logger)
            self.next_eval = self.num_timesteps + self.t.cfg.evaluation.every


# ---------------------------------------------------------------------------- trainer
class Trainer:
    """One training run: ``Trainer(cfg, out_dir).run()``."""

    def __init__(self, cfg: TrainConfig, out_dir: str | Path, *, resume_from: str | None = None,
                 progress: bool = True, log=None, eval_workers: int = 1):
        if not (isinstance(eval_workers, int) and eval_workers >= 1):
            raise ValueError(f"eval_workers={eval_workers!r}: the evaluation's worker processes, an integer >= 1")
        self.cfg, self.out, self.eval_workers = cfg, Path(out_dir), eval_workers
        self.resume_from, self.progress = resume_from, progress
        self.log = log or functools.partial(print, flush=True)
        self.history: list[dict] = []
        self.best_score = -np.inf
        self.start_timesteps = 0
        self.eval_seconds = 0.0  # time spent in evaluate_and_save (not training)
        self.evaluator = evaluator_for(cfg, eval_workers)  # inline, or in the background

    def run(self) -> dict:
        run_t0 = time.perf_counter()
        cfg = self.cfg
        set_torch_threads(cfg.torch_threads)
        self.out.mkdir(parents=True, exist_ok=True)
        files.write_json(self.out / "config.json", config_dict(cfg))
        self.venv = make_vec_env(cfg)
        self.model = build_model(cfg, self.venv, str(self.out / "tb"))
        if cfg.backend.init_from and not self.resume_from:
            meta = warm_start(self.model, cfg)
            reread = f", now reading {cfg.history_k} events, not {meta['trained_history_k']}" \
                if "trained_history_k" in meta else ""
            self.log(f"warm start from {cfg.backend.init_from} ({meta['game']} {meta['env_config']}, "
                     f"{meta['timesteps']} timesteps{reread})")
        if self.resume_from:
            self.start_timesteps = resume(self.model, cfg, self.resume_from)
            self.log(f"resumed from {self.resume_from} at {self.start_timesteps} timesteps")
            if cfg.mode == "seat":
                self.restore_snapshots(self.resume_from)
        remaining = cfg.total_timesteps - self.start_timesteps
        if remaining <= 0:
            raise ValueError(f"nothing to train: the checkpoint has {self.start_timesteps} timesteps, "
                             f"total_timesteps is {cfg.total_timesteps}")
        self.log(f"training {cfg.game} {cfg.env} ({cfg.mode} mode) for {remaining} timesteps, "
                 f"{cfg.n_envs} envs, seed {cfg.seed}, torch threads {cfg.torch_threads} -> {self.out}")
        # the heuristic reference: now, or with backend.background_evaluation on the second core while
        # the trainer clones and learns
        try:
            self.evaluator.start()
            self.pretrained = None
            if cfg.pretrain is not None and not self.resume_from:
                t = time.perf_counter()
                envs = pretrain_envs(cfg, functools.partial(make_learner_env, cfg))
                self.pretrained = pretrain(self.model, cfg, envs, self.log)
                self.pretrained["seconds"] = round(time.perf_counter() - t, 1)
            self._learn(remaining)
            self.baseline = self.evaluator.baseline()
        finally:
            self.evaluator.close()
        self.speed["run_seconds"] = round(time.perf_counter() - run_t0, 1)
        self.venv.close()
        files.write_json(self.out / "evaluations.json",
                         {"baseline": self.baseline, "pretrain": self.pretrained,
                          "history": self.history, "speed": self.speed})
        plot_learning_curve(self.history, self.baseline, self.out / "learning_curve.png",
                            f"{cfg.game} {cfg.env}")
        first = self.history[0] if self.history[0]["timesteps"] == self.start_timesteps else None
        summary = {"out": str(self.out), "start": first, "best": self.best, "last": self.history[-1],
                   "baseline": self.baseline, "speed": self.speed}
        self.log(format_summary(summary))
        return summary

    def _learn(self, remaining: int) -> None:
        """PPO between the first evaluation (of the clone or the warm start) and the last."""
        if (self.cfg.pretrain is not None or self.cfg.backend.init_from) and not self.resume_from:
            self.evaluate_and_save(None)  # the learning curve starts from the clone or the warm start
        elif not self.resume_from:
            with random_state_kept():  # ... or the fresh network, without changing the run
                self.evaluate_and_save(None)
        t0, eval0 = time.perf_counter(), self.eval_seconds
        self.model.learn(remaining, callback=TrainerCallback(self),
                         reset_num_timesteps=self.resume_from is None,
                         progress_bar=self.progress, tb_log_name="ppo")
        # the periodic evaluations run inside learn(): their time is not training time
        evaluating = self.eval_seconds - eval0
        wall = time.perf_counter() - t0 - evaluating
        steps = self.model.num_timesteps - self.start_timesteps
        self.speed = {"timesteps": steps, "wall_seconds": round(wall, 2),
                      "steps_per_second": round(steps / wall, 1),
                      "env_share": round(self.venv.venv.env_seconds / wall, 3),
                      "evaluation_seconds": round(evaluating, 2),
                      "pretrain_seconds": (self.pretrained or {}).get("seconds", 0.0)}
        self.evaluate_and_save(None)  # after the last update
        self.collect(None, wait=True)
        final = [e for e in self.history if e["timesteps"] == self.model.num_timesteps]
        self.evaluator.end(final[-1] if final else None, self)

    def _meta_kwargs(self) -> dict:
        """The metadata every checkpoint of this run carries (but its evaluation)."""
        return {"game": self.cfg.game, "config": self.cfg.env, "seed": self.cfg.seed,
                "training": config_dict(self.cfg), "history_k": self.cfg.history_k}

    def add_snapshot(self) -> None:
        """Freeze the learner into every env's opponent pool, and save it as
        ``snapshots/<timesteps>`` so that ``--resume`` can put it back."""
        ts = self.model.num_timesteps
        meta = learner_metadata(self.model, self.cfg)
        tensors = detached_state(self.model.policy)
        self.venv.env_method("add_snapshot", f"snapshot@{ts}", meta, tensors)
        self._save(self.out / SNAPSHOTS / str(ts))

    def restore_snapshots(self, resumed: str) -> None:
        """``--resume``: put back the snapshots the resumed run had taken by the checkpoint's
        timesteps (from ``snapshots/`` beside it; the last ``max_snapshots``, oldest first),
        and copy them into this run's ``snapshots/`` so that a later resume finds them."""
        folder = checkpoint_paths(resumed)[0].parent / SNAPSHOTS
        found = sorted((int(p.stem), p) for p in folder.glob("*.zip") if p.stem.isdigit())
        kept = [(ts, p) for ts, p in found if ts <= self.start_timesteps][-self.cfg.opponents.max_snapshots :]
        for ts, path in kept:
            meta, tensors, _ = read_checkpoint(path)
            check_fits(meta, self.cfg.game, self.cfg.env, where=f"snapshot {path}")
            self.venv.env_method("add_snapshot", f"snapshot@{ts}", meta, tensors)
            target = self.out / SNAPSHOTS / path.name
            if target.resolve() != path.resolve():
                files.write_together([(dst, src.read_bytes()) for src, dst in
                                      zip(checkpoint_paths(path), checkpoint_paths(target), strict=True)])
        self.log(f"restored {len(kept)} snapshot(s) taken by {self.start_timesteps} timesteps from {folder}"
                 + (f": {', '.join(str(ts) for ts, _ in kept)}" if kept else ""))

    def evaluate_and_save(self, logger) -> None:
        t0 = time.perf_counter()
        try:
            self._evaluate_and_save(logger)
        finally:
            self.eval_seconds += time.perf_counter() - t0

    def _evaluate_and_save(self, logger) -> None:
        # evaluate the network as it is saved and loaded back: in training mode a
        # backend.precision bfloat16 network runs under autocast (a fresh or warm-started model
        # is in training mode until PPO's first rollout; the rollouts and updates set their own)
        self.model.policy.set_training_mode(False)
        for entry, weights in self.evaluator.evaluate(self.model.num_timesteps, self):
            self._record(entry, logger, weights)

    def collect(self, logger, wait: bool = False) -> None:
        """Record the evaluations that have come back (all of them if ``wait``)."""
        for entry, weights in self.evaluator.finished(wait):
            self._record(entry, logger, weights)

    # what the evaluator reads and writes (see braincards.training.learning.evaluators)
    def learner(self) -> CheckpointPolicy:
        return learner_policy(self.model, self.cfg)

    def metadata(self) -> dict:
        return learner_metadata(self.model, self.cfg)

    def save_last(self, evaluation: dict | None) -> None:
        """``last`` (with the optimizer, for --resume), with its evaluation once it has one."""
        extra = {} if evaluation is None else {"evaluation": evaluation}
        self._save(self.out / "last", optimizer=True, **extra)

    def _save(self, path: Path, optimizer: bool = False, **kwargs) -> None:
        """Save a checkpoint of the run, then read it back as its loader will: a run never
        leaves a checkpoint its own loader refuses."""
        save_checkpoint(self.model, path, optimizer=optimizer, **self._meta_kwargs(), **kwargs)
        verify_saved(path, self.model.policy.optimizer if optimizer else None)

    def _record(self, entry: dict, logger, weights: dict | None) -> None:
        """Add an evaluation to the history, the log and TensorBoard, and save ``best`` if it
        is the best yet: the model as it is, or ``weights`` (those a background evaluation
        played)."""
        self.history.append(entry)
        for name, d in entry.items():
            if name not in ("primary", "timesteps") and logger is not None:
                logger.record(f"eval/{name.replace(' ', '_')}_win_rate", d["win_rate"]["value"])
        if entry["primary"] > self.best_score:
            self.best_score = entry["primary"]
            self.best = entry
            if weights is None:
                self._save(self.out / "best", evaluation=entry)
            else:  # a background evaluation's weights, saved whenever its result came back: the
                # check that they build the network must not draw from torch's generator then,
                # or the run would depend on the timing
                with torch.random.fork_rng(devices=[]):
                    self._save(self.out / "best", evaluation=entry, timesteps=entry["timesteps"], state_dict=weights)
        self.log(f"[{entry['timesteps']} timesteps] " + ", ".join(
            f"{k} {fmt_interval(v['win_rate'])} (score {v['mean_score']['value']:.1f})"
            for k, v in entry.items() if k not in ("primary", "timesteps")))


@contextlib.contextmanager
def random_state_kept():
    """Run a block without touching the run's random streams (torch's, numpy's and Python's
    global generators come back as they were)."""
    numpy_state, python_state = np.random.get_state(), random.getstate()
    with torch.random.fork_rng(devices=[]):
        yield
    np.random.set_state(numpy_state)
    random.setstate(python_state)


def format_summary(summary: dict) -> str:
    """The end of a run's log: each evaluation table for the learner where PPO started (when
    the run evaluated it), at its best and at its end, beside the heuristic reference; what PPO
    changed on the first table; and the run's speed."""
    start = summary.get("start")
    lines = [f"\nresults ({summary['out']}):",
             "| evaluation | learner (start) | learner (best) | learner (last) | heuristic |", "|---|---|---|---|---|"]
    names = [name for name in summary["best"] if name not in ("timesteps", "primary")]
    for name in names:
        base = summary["baseline"].get(name)
        lines.append(f"| {name} | {fmt_interval(start[name]['win_rate']) if start else '-'} | "
                     f"{fmt_interval(summary['best'][name]['win_rate'])} | "
                     f"{fmt_interval(summary['last'][name]['win_rate'])} | "
                     f"{fmt_interval(base['win_rate']) if base else '-'} |")
    if start and names:
        lines.append(ppo_change(names[0], start, summary["last"]))
    s = summary["speed"]
    lines.append(f"best at {summary['best']['timesteps']} timesteps; {s['timesteps']} timesteps in "
                 f"{s['wall_seconds']:.0f} s = {s['steps_per_second']:.0f} steps/s, env share "
                 f"{100 * s['env_share']:.0f}% (whole run {s['run_seconds']:.0f} s: pretraining "
                 f"{s['pretrain_seconds']:.0f} s, evaluations {s['evaluation_seconds']:.0f} s "
                 f"during training)")
    return "\n".join(lines)


def ppo_change(name: str, start: dict, last: dict) -> str:
    """One line: what PPO did to the win rate at table ``name``, from its start to its end,
    and whether the two 95% intervals are apart."""
    a, b = start[name]["win_rate"], last[name]["win_rate"]
    if b["lo"] > a["hi"]:
        verdict = "PPO improved it: the 95% intervals do not overlap"
    elif b["hi"] < a["lo"]:
        verdict = "PPO made it worse: the 95% intervals do not overlap"
    else:
        verdict = "no change beyond the 95% intervals"
    return (f"{name}: {fmt_interval(a)} at {start['timesteps']} timesteps (where PPO started), "
            f"{fmt_interval(b)} at {last['timesteps']} ({verdict})")


def plot_learning_curve(history: list[dict], baseline: dict, path: Path, title: str) -> None:
    """Win rate (95% CI band) per evaluation table against timesteps; the heuristic's rate
    at the same tables as dashed lines."""
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    names = [k for k in history[0] if k not in ("timesteps", "primary")]
    xs = [h["timesteps"] for h in history]
    for i, name in enumerate(names):
        color = f"C{i}"
        v = [h[name]["win_rate"]["value"] for h in history]
        lo = [h[name]["win_rate"]["lo"] for h in history]
        hi = [h[name]["win_rate"]["hi"] for h in history]
        ax.plot(xs, v, marker="o", color=color, label=f"learner {name}")
        ax.fill_between(xs, lo, hi, color=color, alpha=0.2)
        if name in baseline:
            ax.axhline(baseline[name]["win_rate"]["value"], color=color, ls="--", lw=1,
                       label=f"heuristic {name}")
    ax.set_ylim(0, 1)
    ax.set_xlabel("timesteps (learner decisions)")
    ax.set_ylabel("win rate (95% CI)")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    files.save_figure(fig, path)
    plt.close(fig)


def train(cfg: TrainConfig, out_dir: str | Path, *, resume_from: str | None = None,
          progress: bool = True, log=None, eval_workers: int = 1) -> dict:
    """Run one training of the sb3 backend (see the module docstring); returns the summary."""
    if cfg.backend.name != "sb3":
        raise ValueError(f"this is the sb3 trainer; the config names backend {cfg.backend.name!r}")
    return Trainer(cfg, out_dir, resume_from=resume_from, progress=progress, log=log,
                   eval_workers=eval_workers).run()
