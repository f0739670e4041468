"""``braincards train CONFIG --backend rllib``: multi-agent PPO with action masking on Ray RLlib.

The same YAML configs as the SB3 trainer (:mod:`braincards.training.learning.config`):

* ``mode: team`` (The Brain): every seat is an agent of one shared module (``learner``).
* ``mode: seat`` (competitive games): the learner plays one seat drawn per episode; the other
  seats draw from ``opponents.pool``. ``random``, ``heuristic`` and checkpoints are played
  inside the env by braincards policies; ``snapshots`` seats are RLlib agents mapped to the
  frozen modules ``snapshot_0 .. snapshot_{max_snapshots-1}``. A snapshot (every
  ``opponents.snapshot_every`` timesteps, or when the learner's win rate over the last
  ``snapshot_window`` games reaches ``snapshot_win_rate``) copies the learner's weights
  into the next slot (oldest replaced) on the learner group *and* on every env runner
  explicitly: PPO only syncs the modules it trained.
* PPO: ``ppo.*`` maps onto RLlib's PPO (learning_rate -> lr, n_steps * n_envs ->
  train batch, batch_size -> minibatch, n_epochs -> num_epochs, gae_lambda -> lambda,
  clip_range -> clip_param, ent_coef -> entropy_coeff, vf_coef -> vf_loss_coeff,
  max_grad_norm -> grad_clip), with RLlib's KL penalty and value clipping off, as in SB3.
  The options only SB3 has (``target_kl``, the warm start, the fast layers) live in the sb3
  backend's section, so a config cannot hand them to this trainer.
* ``backend`` (``name: rllib``): ``num_env_runners`` (sampling actors), ``num_learners`` (0:
  learn in this process), ``address`` (a running Ray cluster, e.g. ``auto`` or
  ``ray://head:10001``; default: a local Ray started here with at most 2 CPUs),
  ``train_batch_size``.

Timesteps are the learner module's decisions (as the SB3 trainer counts its env steps).
Every ``evaluation.every`` timesteps and at the end, the learner is exported as a
braincards checkpoint (:mod:`braincards.training.learning.rllib.export`) and played through
:func:`braincards.training.evaluation.evaluate.evaluate`; ``OUT/last`` and ``OUT/best`` hold the
checkpoints with those results in their metadata, ``OUT/progress.csv`` one row per
iteration.
"""

from __future__ import annotations

import csv
import functools
import math
import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_MODULE_STEPS_SAMPLED_LIFETIME
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from braincards.training import files

from ...agents.checkpoint import detached_state
from ...agents.network import load_policy
from ...evaluation.stats import fmt_interval
from ..config import config_dict
from ..learner_env import LEARNER
from ..pretrain import pretrain, pretrain_envs
from ..sb3 import make_learner_env
from ..schedule import SnapshotSchedule, run_evaluation
from .env import BraincardsMultiAgentEnv, module_for
from .export import export_checkpoint, load_sb3_state_dict, read_policy_weights
from .module import learner_module_spec
from .runner_config import RunnerConfig


# ---------------------------------------------------------------------------- config
def max_snapshots(cfg) -> int:
    """The frozen snapshot modules a run needs: ``opponents.max_snapshots`` in seat mode with a
    ``snapshots`` source, else none."""
    snapshots = cfg.mode == "seat" and any(src.source == "snapshots" for src in cfg.opponents.pool)
    return int(cfg.opponents.max_snapshots) if snapshots else 0


def env_config(cfg, seed: int) -> dict:
    """RLlib's ``env_config`` of a run (RLlib ships a plain mapping to its env runners)."""
    return RunnerConfig.of(cfg, seed, max_snapshots(cfg)).to_env_config()


def _map_agent(agent_id, episode=None, **kwargs):
    return module_for(agent_id)


def build_config(cfg, *, seed: int, num_env_runners: int, num_learners: int):
    """The RLlib ``PPOConfig`` of a braincards training config."""
    ppo = cfg.ppo
    runners = max(1, num_env_runners)
    batch = int(cfg.backend.train_batch_size or ppo.n_steps * cfg.n_envs)
    per_learner = math.ceil(batch / max(1, num_learners))
    modules = [LEARNER] + [f"snapshot_{k}" for k in range(max_snapshots(cfg))]
    spec = learner_module_spec(cfg.policy.net_arch, cfg.policy.activation)
    config = (
        PPOConfig()
        .environment(BraincardsMultiAgentEnv, env_config=env_config(cfg, seed),
                     disable_env_checking=True)
        .framework("torch")
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=max(1, cfg.n_envs // runners),
            num_cpus_per_env_runner=1,
            rollout_fragment_length="auto",
        )
        .learners(num_learners=num_learners, num_gpus_per_learner=0)
        .training(
            lr=ppo.learning_rate,
            gamma=ppo.gamma,
            lambda_=ppo.gae_lambda,
            clip_param=ppo.clip_range,
            entropy_coeff=ppo.ent_coef,
            vf_loss_coeff=ppo.vf_coef,
            num_epochs=ppo.n_epochs,
            minibatch_size=min(ppo.batch_size, per_learner),
            train_batch_size_per_learner=per_learner,
            grad_clip=ppo.max_grad_norm,
            grad_clip_by="global_norm",
            use_kl_loss=False,
            vf_clip_param=float("inf"),
        )
        .multi_agent(
            policies=set(modules),
            policy_mapping_fn=_map_agent,
            policies_to_train=[LEARNER],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=dict.fromkeys(modules, spec)))
        # a failing env runner is an error to report, not to restart around
        .fault_tolerance(restart_failed_env_runners=False)
        .debugging(seed=seed, log_level="ERROR")
    )
    return config


# ---------------------------------------------------------------------------- ray
def _start_ray(address: str | None, num_cpus: int | None, torch_threads: int) -> bool:
    """Connect to ``address`` or start a local Ray; True if this call started it."""
    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    threads = str(torch_threads)
    runtime_env = {"env_vars": {"OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads,
                                "RAY_USAGE_STATS_ENABLED": "0"}}
    if address:
        ray.init(address=address, runtime_env=runtime_env, log_to_driver=False)
    else:
        cpus = num_cpus or min(2, os.cpu_count() or 1)
        ray.init(num_cpus=cpus, include_dashboard=False, runtime_env=runtime_env,
                 log_to_driver=False)
    return True


def _learner_state(algo, module_id: str) -> dict:
    """The full (training) state of one module, from the learner group."""
    state = algo.learner_group.get_state(components=f"learner/rl_module/{module_id}")
    return state["learner"]["rl_module"][module_id]


def _set_module_everywhere(algo, module_id: str, state: dict) -> None:
    """Set one module's weights on the learner group and push them to every env runner."""
    algo.learner_group.foreach_learner(lambda learner: learner.module[module_id].set_state(state))
    algo.env_runner_group.foreach_env_runner(
        lambda runner: runner.module[module_id].set_state(state), local_env_runner=True
    )


def _foreach_env(algo, fn) -> list:
    """``fn(env)`` on every braincards env of every env runner (local one included)."""

    def per_runner(runner):
        env = getattr(runner, "env", None)
        if env is None:
            return []
        return [fn(e.unwrapped) for e in getattr(env, "envs", [env])]

    out = []
    for part in algo.env_runner_group.foreach_env_runner(per_runner, local_env_runner=True):
        out.extend(part or [])
    return out


def _set_threads(algo, threads: int) -> None:
    torch.set_num_threads(threads)

    def runner_threads(runner):
        torch.set_num_threads(threads)

    algo.env_runner_group.foreach_env_runner(runner_threads, local_env_runner=True)
    algo.learner_group.foreach_learner(runner_threads)  # remote learners (num_learners > 0)


def _metric(result: dict, *path, default=None):
    node: Any = result
    for p in path:
        if not isinstance(node, dict) or p not in node:
            return default
        node = node[p]
    return node


def _learner_steps(result: dict) -> int:
    steps = _metric(result, ENV_RUNNER_RESULTS, NUM_MODULE_STEPS_SAMPLED_LIFETIME, LEARNER)
    return int(steps or 0)


# ---------------------------------------------------------------------------- export + eval
def local_module(cfg, state: dict | None = None):
    """A fresh :class:`MaskedPPOTorchRLModule` for the config's env (weights from ``state``)."""
    env = BraincardsMultiAgentEnv(env_config(cfg, 0))
    agent = env.possible_agents[0]
    spec = learner_module_spec(cfg.policy.net_arch, cfg.policy.activation,
                       observation_space=env.observation_spaces[agent],
                       action_space=env.action_spaces[agent])
    module = spec.build()
    if state is not None:
        module.set_state(state)
    module.eval()
    return module


def evaluate_checkpoint(path, cfg) -> dict:
    """The checkpoint's evaluation, exactly the SB3 trainer's
    (:func:`~braincards.training.learning.schedule.run_evaluation`)."""
    policy = load_policy(path, game=cfg.game, config=cfg.env, torch_threads=cfg.torch_threads)
    return run_evaluation(policy, cfg)


def pretrain_weights(cfg, log) -> tuple[dict, dict]:
    """Behaviour cloning as the SB3 trainer does it (``cfg.pretrain``, in its LearnerEnv),
    into an SB3 MaskableActorCriticPolicy of the config's network; returns its tensors (to
    load into the RLlib learner with :func:`~.export.load_sb3_state_dict`) and the stats."""
    env = make_learner_env(cfg, 0)
    hidden = list(cfg.policy.net_arch)
    policy = MaskableActorCriticPolicy(
        env.observation_space, env.action_space, lambda _: cfg.ppo.learning_rate,
        net_arch={"pi": hidden, "vf": hidden},
        activation_fn={"tanh": nn.Tanh, "relu": nn.ReLU}[cfg.policy.activation],
    )
    envs = pretrain_envs(cfg, functools.partial(make_learner_env, cfg))
    stats = pretrain(SimpleNamespace(policy=policy), cfg, envs, log)
    return detached_state(policy), stats


# ---------------------------------------------------------------------------- train
def train_rllib(
    cfg,
    out_dir: str | os.PathLike,
    *,
    resume_from: str | os.PathLike | None = None,
    progress: bool = True,
    log=None,
    num_cpus: int | None = None,
) -> dict:
    """Train ``cfg`` (a TrainConfig) with RLlib's PPO; write ``OUT/last`` and ``OUT/best``
    braincards checkpoints, ``OUT/progress.csv`` and ``OUT/rllib_result.json``.

    Everything the run does is in ``cfg`` (``braincards train CONFIG --backend rllib --set
    backend.num_env_runners=4``; ``num_cpus``: the local Ray's CPUs, default min(2, cores)).
    ``resume_from``: a braincards checkpoint of
    the same network (``DIR/last``) whose weights start the learner and whose timesteps
    count towards the total (the optimizer starts afresh). ``progress=False`` logs only
    snapshots, evaluations and the end, not every iteration. Returns the summary written to
    ``rllib_result.json``: checkpoints, timesteps, wall seconds, learner steps/s, evaluation.
    """
    if cfg.backend.name != "rllib":
        raise ValueError(f"this is the rllib trainer; the config names backend {cfg.backend.name!r} "
                         f"(braincards train --backend rllib switches a config to it)")
    run = RLlibRun(cfg, out_dir, resume_from=resume_from, progress=progress, log=log)
    torch.set_num_threads(cfg.torch_threads)
    started = _start_ray(run.address, num_cpus, cfg.torch_threads)
    try:
        return run.run()
    finally:
        if run.algo is not None:
            run.algo.stop()
        if started:
            ray.shutdown()


class RLlibRun:
    """One RLlib training run (see :func:`train_rllib`): build, start the learner, iterate,
    snapshot, evaluate and export."""

    def __init__(self, cfg, out_dir, *, resume_from, progress, log):
        self.cfg, self.out, self.resume_from, self.progress = cfg, Path(out_dir), resume_from, progress
        self.log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
        self.offset, self.resume_tensors = 0, None
        if resume_from is not None:
            meta, self.resume_tensors = read_policy_weights(resume_from, cfg.policy.net_arch,
                                                            cfg.policy.activation)
            if meta["game"] != cfg.game or meta["env_config"] != dict(cfg.env):
                raise ValueError(f"--resume {resume_from}: trained on {meta['game']} "
                                 f"{meta['env_config']}, the config is {cfg.game} {dict(cfg.env)}")
            self.offset = int(meta.get("timesteps") or 0)
        self.total = int(cfg.total_timesteps)
        self.seed = int(cfg.seed)
        self.runners = int(cfg.backend.num_env_runners)
        self.learners = int(cfg.backend.num_learners)
        self.address = cfg.backend.address
        self.max_snapshots = max_snapshots(cfg)
        self.out.mkdir(parents=True, exist_ok=True)
        self.training = config_dict(cfg)
        self.training.update({"total_timesteps": self.total, "seed": self.seed})
        self.algo, self.iteration, self.snapshots_taken, self.best_exported = None, 0, 0, False

    def build(self) -> float:
        """The algorithm, with the learner's starting weights; returns the build seconds."""
        t = time.perf_counter()
        config = build_config(self.cfg, seed=self.seed, num_env_runners=self.runners,
                              num_learners=self.learners)
        self.algo = config.build_algo()
        _set_threads(self.algo, self.cfg.torch_threads)
        build_s = time.perf_counter() - t
        tensors = self.resume_tensors
        if tensors is None and self.cfg.pretrain is not None:
            t = time.perf_counter()
            tensors, pretrained = pretrain_weights(self.cfg, self.log)
            pretrained["seconds"] = round(time.perf_counter() - t, 1)
            self.training["pretrained"] = pretrained
        if tensors is not None:
            module = local_module(self.cfg)
            load_sb3_state_dict(module, tensors, self.cfg.policy.net_arch, self.cfg.policy.activation)
            _set_module_everywhere(self.algo, LEARNER, module.get_state())
            if self.resume_tensors is not None:
                self.log(f"rllib: resumed the learner's weights from {self.resume_from} ({self.offset} timesteps)")
        return build_s

    def take_snapshot(self, steps: int) -> None:
        """Copy the learner into the next snapshot slot (oldest replaced), everywhere."""
        slot = self.snapshots_taken % self.max_snapshots
        _set_module_everywhere(self.algo, f"snapshot_{slot}", _learner_state(self.algo, LEARNER))
        self.snapshots_taken += 1
        filled = min(self.snapshots_taken, self.max_snapshots)
        _foreach_env(self.algo, lambda env: env.set_snapshot_slots(filled))
        self.log(f"rllib: snapshot {self.snapshots_taken} of the learner at {steps} steps -> slot {slot}")

    def export(self, name: str, steps: int, evaluation=None):
        module = local_module(self.cfg, _learner_state(self.algo, LEARNER))
        return export_checkpoint(
            module, self.out / name, game=self.cfg.game, env_config=dict(self.cfg.env),
            net_arch=self.cfg.policy.net_arch, activation=self.cfg.policy.activation,
            timesteps=steps, seed=self.seed, history_k=self.cfg.history_k, training=self.training,
            evaluation=evaluation, extra={"rllib_iterations": self.iteration},
        )

    def iterate(self, writer) -> tuple[int, list[int], float]:
        """One ``algo.train()``; writes its progress row. Returns (timesteps, the finished
        games' outcomes, seconds)."""
        t0 = time.perf_counter()
        result = self.algo.train()
        seconds = time.perf_counter() - t0
        self.iteration += 1
        steps = self.offset + _learner_steps(result)
        outcomes = [o for part in _foreach_env(self.algo, lambda env: env.pop_outcomes()) for o in part]
        row = {
            "iteration": self.iteration, "timesteps": steps, "seconds": round(seconds, 2),
            "games": len(outcomes),
            "win_rate": round(sum(outcomes) / len(outcomes), 4) if outcomes else "",
            "return_mean": _metric(result, "env_runners", "agent_episode_returns_mean",
                                   LEARNER if self.cfg.mode == "seat" else "player_0", default=""),
        }
        writer(row)
        if self.progress:
            self.log("rllib: " + ", ".join(f"{k} {v}" for k, v in row.items()))
        return steps, outcomes, seconds

    def evaluate(self, steps: int, best: float, final: bool = False) -> tuple[dict, float]:
        """Export, evaluate (the SB3 trainer's evaluation), keep ``best``; returns the
        evaluation and the best primary score so far."""
        path, _ = self.export("last" if final else "latest_eval", steps)
        evaluation = evaluate_checkpoint(path.with_suffix(""), self.cfg)
        self.log(f"rllib: {'final ' if final else ''}evaluation at {steps} steps: {_eval_line(evaluation)}")
        if final:
            self.export("last", steps, evaluation)
        if evaluation["primary"] > best or (final and not self.best_exported):
            best = max(best, evaluation["primary"])
            self.export("best", steps, evaluation)
            self.best_exported = True
        return evaluation, best

    def run(self) -> dict:
        build_s = self.build()
        cfg = self.cfg
        self.log(f"rllib: {cfg.game} {cfg.mode} mode, {cfg.num_players} players, "
                 f"{self.runners} env runner(s), {self.learners or 'local'} learner(s), "
                 f"ray {'at ' + self.address if self.address else 'local'}; built in {build_s:.1f}s")
        schedule = SnapshotSchedule(cfg, self.offset)
        schedule.enabled = schedule.enabled and self.max_snapshots > 0
        next_eval, best, steps, train_s = self.offset + cfg.evaluation.every, -math.inf, self.offset, 0.0
        with open(self.out / "progress.csv", "w", newline="") as fh:
            writer = _csv_writer(fh)
            while steps < self.total:
                steps, outcomes, seconds = self.iterate(writer)
                train_s += seconds
                schedule.record(outcomes)
                if schedule.due(steps):
                    self.take_snapshot(steps)
                if next_eval <= steps < self.total:
                    _, best = self.evaluate(steps, best)
                    while next_eval <= steps:
                        next_eval += cfg.evaluation.every
        for suffix in (".zip", ".json"):
            (self.out / f"latest_eval{suffix}").unlink(missing_ok=True)
        evaluation, best = self.evaluate(steps, best, final=True)
        return self.summary(steps, train_s, build_s, evaluation)

    def summary(self, steps: int, train_s: float, build_s: float, evaluation: dict) -> dict:
        out = {
            "backend": "rllib", "game": self.cfg.game, "last": str(self.out / "last.zip"),
            "best": str(self.out / "best.zip"), "timesteps": steps, "iterations": self.iteration,
            "train_seconds": round(train_s, 2), "build_seconds": round(build_s, 2),
            "steps_per_s": round((steps - self.offset) / train_s, 1) if train_s else None,
            "snapshots": self.snapshots_taken, "evaluation": evaluation,
        }
        files.write_json(self.out / "rllib_result.json", out)
        self.log(f"rllib: {steps - self.offset} learner steps in {train_s:.1f}s of training "
                 f"({out['steps_per_s']} steps/s); checkpoints {out['last']}, {out['best']}")
        return out


def _csv_writer(fh):
    """A function writing progress rows to ``fh`` (the header from the first row)."""
    state: dict = {}

    def write(row: dict) -> None:
        if "w" not in state:
            state["w"] = csv.DictWriter(fh, fieldnames=list(row))
            state["w"].writeheader()
        state["w"].writerow(row)
        fh.flush()

    return write


def _eval_line(evaluation: dict) -> str:
    return "; ".join(f"{name} win rate {fmt_interval(e['win_rate'])}"
                     for name, e in evaluation.items() if name != "primary")
