"""Every shipped config in configs/<game>/ builds its env and plays a game; every cross-play
report in configs/xp/ is a valid one."""

from __future__ import annotations

from pathlib import Path

import pytest

from braincards.envs import ENVS, make
from braincards.training.evaluation.evaluate import evaluate
from braincards.training.evaluation.xp import check_runs
from braincards.training.learning.yaml_files import load_env_config as load_config
from braincards.training.learning.yaml_files import read_yaml

ROOT = Path(__file__).resolve().parents[1]
REPORTS = sorted((ROOT / "configs" / "xp").glob("*.yaml"))  # braincards xp's reports, not a game's folder
CONFIGS = sorted(p for p in (ROOT / "configs").glob("*/*.yaml") if p.parent.name != "xp")


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


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: p.name)
def test_a_shipped_cross_play_report_is_valid(path):
    runs = check_runs(read_yaml(path, "cross-play report"))
    assert runs["recipes"] and all(agents for agents in runs["recipes"].values())
