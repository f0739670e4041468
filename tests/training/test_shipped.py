"""The shipped checkpoints (checkpoints/<game>/<name>) are reproducible from their configs:
each comes from exactly one training config (configs/experiments.yaml's shipped, read by benchmarks/learning.py), its metadata
holds that config as it was trained, it loads by name and plays, and the docs' results
page (docs/results.md) lists it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from braincards.envs import SPECS
from braincards.envs.brilliant_boar.rules import LEVELS
from braincards.training.agents.locations import resolve_checkpoint
from braincards.training.agents.specs import make_policy
from braincards.training.evaluation.evaluate import evaluate
from braincards.training.learning.config import load_train_config, stored_train_config
from braincards.training.learning.schedule import evaluation_tables

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("learning", ROOT / "benchmarks" / "learning.py")
learning = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(learning)

ON_DISK = sorted(p.relative_to(ROOT / "checkpoints").with_suffix("").as_posix()
                 for p in (ROOT / "checkpoints").glob("*/*.zip"))


def test_every_shipped_checkpoint_has_a_config_and_every_config_a_checkpoint():
    assert sorted(learning.SHIPPED) == ON_DISK
    for name, config in learning.SHIPPED.items():
        assert (ROOT / config).is_file(), f"{name}: its config {config} is missing"
        assert (ROOT / "checkpoints" / f"{name}.json").is_file(), f"{name}: metadata missing"


def _tables() -> list[tuple[str, int, dict]]:
    """Every table the envs support at their default options: each game at each player
    count, and Brilliant Boar's solo game at each level (R-W8)."""
    tables = []
    for game, spec in SPECS.items():
        for n in range(spec.players[0], spec.players[1] + 1):
            if game == "brilliant_boar_v0" and n == 1:
                tables += [(game, n, {"level": level}) for level in sorted(LEVELS)]
            else:
                tables.append((game, n, {}))
    return tables


@pytest.mark.parametrize(("game", "players", "options"), _tables())
def test_every_table_has_a_shipped_checkpoint_trained_at_it(game, players, options):
    """A checkpoint for every table: some shipped config trains at exactly this player count
    (and solo level), so a user of any table has a learned partner or opponent to load."""
    trained_at = []
    for name, config in learning.SHIPPED.items():
        cfg = load_train_config(ROOT / config)
        if cfg.game == game and cfg.num_players == players and all(cfg.env.get(k) == v for k, v in options.items()):
            trained_at.append(name)
    assert trained_at, f"no shipped checkpoint is trained at {game}, {players} players {options}"


@pytest.mark.parametrize("name", sorted(learning.SHIPPED))
def test_shipped_checkpoint_metadata_is_its_config(name):
    """Retraining from the config reproduces the run: the config in the checkpoint's metadata
    (defaults filled in) equals the config file's."""
    meta = json.loads((ROOT / "checkpoints" / f"{name}.json").read_text())
    cfg = load_train_config(ROOT / learning.SHIPPED[name])
    trained = stored_train_config(meta, f"{name}.json")
    assert trained == cfg, f"{name} was trained from another config than {learning.SHIPPED[name]}"
    assert meta["game"] == cfg.game
    assert meta["env_config"] == cfg.env
    assert meta["history_k"] == cfg.history_k
    assert meta["seed"] == cfg.seed
    assert 0 <= meta["timesteps"] <= cfg.total_timesteps + cfg.n_envs * cfg.ppo.n_steps
    # 0 steps only for a run whose best evaluation was where PPO started: a pretrained run's
    # clone, or a warm start's own network (the_brain/br_3p_big_clone_long)
    assert meta["timesteps"] > 0 or cfg.pretrain is not None or getattr(cfg.backend, "init_from", None)
    evaluation = meta["evaluation"]
    tables = [t for t, _ in evaluation_tables(cfg)]
    assert sorted(k for k in evaluation if k not in ("timesteps", "primary")) == sorted(tables)
    for table in tables:
        rate = evaluation[table]["win_rate"]
        assert 0.0 <= rate["lo"] <= rate["value"] <= rate["hi"] <= 1.0


@pytest.mark.parametrize("name", sorted(learning.SHIPPED))
def test_shipped_checkpoint_loads_by_name_and_plays_its_tables(name):
    cfg = load_train_config(ROOT / learning.SHIPPED[name])
    assert resolve_checkpoint(name) is not None
    policy = make_policy(name, cfg.game, cfg.env)
    for _, seats in evaluation_tables(cfg):
        seated = [policy if s == "learner" else s for s in seats]
        result = evaluate(cfg.game, cfg.env, seats=seated, games=2, seed=0, progress=False)
        assert result["games"] == 2


def test_results_page_lists_every_shipped_checkpoint():
    """docs/results.md (generated from benchmarks/results/) has a row for every checkpoint."""
    results = (ROOT / "docs" / "results.md").read_text()
    for name in learning.SHIPPED:
        assert f"| `{name}` |" in results, (
            f"{name} is missing from docs/results.md: python benchmarks/results_page.py --regenerate --only {name}"
        )
