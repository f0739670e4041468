"""Every shipped config in configs/<game>/ builds its env and plays a game."""

from __future__ import annotations

from pathlib import Path

import pytest

from braincards.envs import ENVS, make
from braincards.training.evaluation.evaluate import evaluate
from braincards.training.learning.yaml_files import load_env_config as load_config

CONFIGS = sorted((Path(__file__).resolve().parents[1] / "configs").glob("*/*.yaml"))


def test_every_game_has_configs():
    assert {p.parent.name for p in CONFIGS} == {name.removesuffix("_v0") for name in ENVS}


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_config_builds_its_env_and_plays(path):
    game = path.parent.name
    config = load_config(str(path), [])
    env = make(f"{game}_v0", **config)
    env.reset(seed=0)
    n = config["num_players"]
    result = evaluate(game, config, seats=["random"] * n, games=2, seed=0, progress=False)
    assert result["games"] == 2
