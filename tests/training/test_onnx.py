"""Torch-free inference: ``braincards export CHECKPOINT --onnx OUT`` and the policy spec
``onnx:PATH``. The exported network picks the same action as the torch one on 10,000
recorded observations per game, plays without torch, travels to worker processes as a spec,
and every file it cannot play is refused with the reason."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch

from braincards.training.agents import onnx_export
from braincards.training.agents.logits import action_log_probs
from braincards.training.agents.onnx_export import export_onnx
from braincards.training.agents.onnx_policy import FORMAT, METADATA_KEY, OnnxPolicy
from braincards.training.agents.policy import PolicySpecError
from braincards.training.agents.specs import make_policy
from braincards.training.cli.main import main
from braincards.training.evaluation.evaluate import evaluate

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("onnx_speed", ROOT / "benchmarks" / "onnx_speed.py")
onnx_speed = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(onnx_speed)
TABLES = {
    "the_brain/ppo_3p_big_clone_long": ("the_brain_v0", {"num_players": 3, "difficulty": "robber"}),
    "oh_my_brain/ppo_2p": ("oh_my_brain_v0", {"num_players": 2}),
    "brilliant_boar/ppo_2p": ("brilliant_boar_v0", {"num_players": 2, "level": 4, "memory": "none"}),
}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """Each game's shipped checkpoint exported once: {checkpoint: onnx path}."""
    folder = tmp_path_factory.mktemp("onnx")
    paths = {}
    for name in TABLES:
        paths[name] = str(folder / f"{name.replace('/', '_')}.onnx")
        export_onnx(name, paths[name])
    return paths


def _record(policy, game: str, config: dict, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` observations and masks of games ``policy`` plays in every seat (the speed
    benchmark's recorder)."""
    rows = onnx_speed.record(policy, game, config, n)
    return np.stack([r["observation"] for r in rows]), np.stack([r["action_mask"] for r in rows])


@pytest.mark.parametrize("name", sorted(TABLES))
def test_the_exported_network_picks_the_torch_networks_actions(exported, name):
    """10,000 recorded observations: the same action everywhere, log-probabilities within
    float32 rounding of torch's on the legal actions (the two runtimes add in other orders)."""
    game, config = TABLES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch_policy = make_policy(name, game, config)
    player = make_policy(f"onnx:{exported[name]}", game, config)
    observations, masks = _record(player, game, config, 10_000)
    log_probs, actions = player.log_probs(observations, masks)
    with torch.no_grad():
        x = torch.as_tensor(observations[:, : torch_policy.observation_size])
        expected = action_log_probs(torch_policy.network, x, masks.astype(bool)).numpy()
    np.testing.assert_array_equal(actions, expected.argmax(axis=1))
    legal = masks.astype(bool)
    np.testing.assert_allclose(log_probs[legal], expected[legal], rtol=2e-5, atol=5e-5)
    for i in range(0, 10_000, 997):  # one decision at a time, as at a table
        obs = {"observation": observations[i], "action_mask": masks[i]}
        assert player.act(obs) == torch_policy.act(obs) == actions[i]


def test_the_file_says_what_it_is(exported):
    info = OnnxPolicy(exported["the_brain/ppo_3p_big_clone_long"]).info
    assert info["format"] == FORMAT and info["game"] == "the_brain_v0"
    assert info["observation_size"] == 2260 and info["history_k"] == 0
    assert info["env"] == {"num_players": 3, "difficulty": "robber"}
    assert len(info["checkpoint_sha256"]) == 64
    assert info["inputs"]["action_mask"][0] == "int8" and info["outputs"]["action"][0] == "int64"


def test_an_onnx_spec_plays_in_worker_processes_as_in_process(exported):
    """The spec string travels to the workers; the games are those of the torch checkpoint."""
    game, config = TABLES["the_brain/ppo_3p_big_clone_long"]
    spec = f"onnx:{exported['the_brain/ppo_3p_big_clone_long']}"
    one = evaluate(game, config, seats=[spec] * 3, games=12, seed=3, progress=False)
    two = evaluate(game, config, seats=[spec] * 3, games=12, seed=3, workers=2, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = evaluate(game, config, seats=["the_brain/ppo_3p_big_clone_long"] * 3, games=12, seed=3,
                       progress=False)
    assert one["team"] == two["team"] == ref["team"]


def test_it_plays_without_torch(exported):
    """A process where importing torch or stable-baselines3 fails plays a whole game."""
    code = f"""
import sys
sys.modules["torch"] = None
sys.modules["stable_baselines3"] = None
from braincards.envs import make
from braincards.training.agents.onnx_policy import OnnxPolicy
player = OnnxPolicy({exported['oh_my_brain/ppo_2p']!r}, "oh_my_brain_v0")
env = make("oh_my_brain_v0", num_players=2)
env.reset(seed=0)
moves = 0
for agent in env.agent_iter():
    obs, _, term, trunc, _ = env.last()
    env.step(None if term or trunc else player.act(obs, agent))
    moves += 1
assert "torch" not in [m for m in sys.modules if sys.modules[m] is not None]
print("moves", moves)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.split()[-1]) > 10


def test_export_on_the_command_line(tmp_path, capsys):
    out = tmp_path / "omb.onnx"
    assert main(["export", "oh_my_brain/ppo_2p", "--onnx", str(out)]) == 0
    assert f"play it with --seat onnx:{out}" in capsys.readouterr().out
    assert main(["evaluate", "oh_my_brain", "--seat", f"onnx:{out}", "--seat", "heuristic", "--games", "4"]) == 0
    assert main(["export", "oh_my_brain/nope", "--onnx", str(out)]) == 2
    assert "no checkpoint 'oh_my_brain/nope'" in capsys.readouterr().out


def _with_metadata(src: str, dst, **changes) -> str:
    model = onnx.load(src)
    for prop in model.metadata_props:
        if prop.key == METADATA_KEY:
            prop.value = json.dumps({**json.loads(prop.value), **changes})
    onnx.save(model, str(dst))
    return str(dst)


def test_files_it_cannot_play_are_refused(exported, tmp_path):
    omb = exported["oh_my_brain/ppo_2p"]
    with pytest.raises(PolicySpecError, match="plays oh_my_brain_v0, not the_brain_v0"):
        make_policy(f"onnx:{omb}", "the_brain_v0")
    with pytest.raises(PolicySpecError, match="no ONNX file at"):
        make_policy(f"onnx:{tmp_path / 'missing.onnx'}", "oh_my_brain_v0")
    with pytest.raises(PolicySpecError, match="names its file"):
        make_policy("onnx:", "oh_my_brain_v0")
    (tmp_path / "junk.onnx").write_bytes(b"not a model")
    with pytest.raises(PolicySpecError, match="not a readable ONNX model"):
        make_policy(f"onnx:{tmp_path / 'junk.onnx'}", "oh_my_brain_v0")
    foreign = _with_metadata(omb, tmp_path / "foreign.onnx", format="someone-else")
    with pytest.raises(PolicySpecError, match="was not written by braincards export --onnx"):
        make_policy(f"onnx:{foreign}", "oh_my_brain_v0")
    wide = _with_metadata(omb, tmp_path / "wide.onnx", observation_size=9999)
    with pytest.raises(PolicySpecError, match="reads 9999 observation floats; this table's observation has 190"):
        make_policy(f"onnx:{wide}", "oh_my_brain_v0", {"num_players": 2})
    player = OnnxPolicy(omb)
    with pytest.raises(ValueError, match="takes masks of shape"):
        player.log_probs(np.zeros((1, 190), np.float32), np.ones((1, 3), np.int8))


def test_a_recurrent_network_is_refused(monkeypatch, tmp_path):
    real = onnx_export.load_checkpoint_policy

    def recurrent(path):
        meta, network = real(path)
        return {**meta, "policy": {**meta["policy"], "class": "RecurrentActorCriticPolicy"}}, network

    monkeypatch.setattr(onnx_export, "load_checkpoint_policy", recurrent)
    with pytest.raises(ValueError, match="recurrent .* feed-forward policies only"):
        export_onnx("oh_my_brain/ppo_2p", tmp_path / "r.onnx")
