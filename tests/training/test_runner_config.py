"""The RLlib env runners' config: one serializer from a training config to RLlib's plain
``env_config`` and back, with no field dropped on the way (no Ray needed)."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from braincards.training.learning.config import load_train_config
from braincards.training.learning.rllib.runner_config import RunnerConfig

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = sorted((ROOT / "configs").glob("*/train_*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_training_config_survives_the_round_trip(path):
    cfg = load_train_config(path)
    run = RunnerConfig.of(cfg, seed=7, max_snapshots=3)
    back = RunnerConfig.from_env_config(run.to_env_config())
    assert back == run
    assert (back.game, back.env, back.mode, back.history_k, back.shaping, back.seed) == (
        cfg.game, dict(cfg.env), cfg.mode, cfg.history_k, cfg.shaping, 7)
    assert back.deterministic == cfg.opponents.deterministic
    assert back.opponents == [{"source": s.source, "weight": s.weight} for s in cfg.opponents.pool]


def test_deterministic_opponents_reach_the_runners():
    """It was dropped on the way: the runners' checkpoint opponents sampled their actions."""
    cfg = load_train_config(ROOT / "configs" / "oh_my_brain" / "train_2p.yaml",
                            {"opponents.deterministic": True})
    assert RunnerConfig.from_env_config(RunnerConfig.of(cfg, 0, 0).to_env_config()).deterministic is True


def test_every_field_is_written():
    assert set(RunnerConfig("the_brain_v0").to_env_config()) == {f.name for f in fields(RunnerConfig)}


@pytest.mark.parametrize("config, message", [
    ({"game": "the_brain_v0", "determinstic": True}, r"unknown env_config keys \['determinstic'\]"),
    ({"env": {}}, "env_config needs 'game'"),
    ({"game": "the_brain_v0", "mode": "solo"}, "mode must be one of"),
])
def test_a_bad_env_config_is_refused(config, message):
    with pytest.raises(ValueError, match=message):
        RunnerConfig.from_env_config(config)
