"""Play-only checkpoints (the wheel's copies): the actor without the critic, playing exactly
as the full checkpoint does, and refused wherever a run would train from them."""

from __future__ import annotations

import hashlib
import json
import shutil
import struct

import numpy as np
import pytest
import torch

from braincards.training.agents.checkpoint import (
    CheckpointError,
    load_checkpoint_policy,
    read_checkpoint,
)
from braincards.training.agents.checkpoint_checks import probe_observations
from braincards.training.agents.locations import resolve_checkpoint
from braincards.training.agents.play_only import actor_safetensors, is_critic, write_play_only
from braincards.training.learning.config import parse_train_config, upgrade_training
from braincards.training.learning.sb3 import train

# one checkpoint per network family the wheel ships: an MLP (with its optimizer state, which a
# play-only copy drops too) and the event reader (a shared extractor, a small critic)
FAMILIES = ["the_brain/ppo_4p_13m", "brilliant_boar/ppo_2p"]


def _copy(name: str, tmp_path) -> tuple:
    full = resolve_checkpoint(name)
    for suffix in (".zip", ".json"):
        shutil.copy(str(full) + suffix, tmp_path / f"full{suffix}")
    saved = write_play_only(tmp_path / "full.zip", tmp_path / "full.json", tmp_path / "play.zip", tmp_path / "play.json")
    return tmp_path / "full", tmp_path / "play", saved


def _sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _logits(network, observations: np.ndarray) -> torch.Tensor:
    with torch.no_grad():
        return network.get_distribution(torch.as_tensor(observations)).distribution.logits


@pytest.mark.parametrize("name", FAMILIES)
def test_a_play_only_copy_gives_the_full_checkpoints_logits_bit_for_bit(name, tmp_path):
    full, play, saved = _copy(name, tmp_path)
    meta_full, net_full = load_checkpoint_policy(full)
    meta_play, net_play = load_checkpoint_policy(play)
    assert meta_play["play_only"] is True and "play_only" not in meta_full
    assert meta_play["full_archive_sha256"] == _sha256(tmp_path / "full.zip")
    assert saved > 0 and (tmp_path / "play.zip").stat().st_size < (tmp_path / "full.zip").stat().st_size
    kept = read_checkpoint(play)[1]
    assert kept and not any(is_critic(k) for k in kept)
    assert {k for k in read_checkpoint(full)[1] if not is_critic(k)} == set(kept)
    observations = probe_observations(meta_full["game"], json.dumps(meta_full["env_config"], sort_keys=True),
                                      meta_full["history_k"])
    assert torch.equal(_logits(net_full, observations), _logits(net_play, observations))


def test_the_brains_mlp_loses_more_than_half_its_archive(tmp_path):
    """The critic is half an MLP's weights, and the optimizer state goes too."""
    full, play, _ = _copy("the_brain/ppo_4p_13m", tmp_path)
    assert (tmp_path / "play.zip").stat().st_size < 0.3 * (tmp_path / "full.zip").stat().st_size


def test_a_play_only_archive_must_hold_the_whole_actor_and_no_critic(tmp_path):
    full, play, _ = _copy("brilliant_boar/ppo_2p", tmp_path)
    meta = json.loads((tmp_path / "play.json").read_text())
    # the full archive under play-only metadata: critic tensors where none belong
    forged = dict(meta, archive_sha256=_sha256(tmp_path / "full.zip"))
    shutil.copy(tmp_path / "full.zip", tmp_path / "forged.zip")
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    with pytest.raises(CheckpointError, match=r"play-only weights do not fit .*not the actor's \['mlp_extractor.value"):
        load_checkpoint_policy(tmp_path / "forged")
    # a full checkpoint's metadata over a play-only archive: strict loading names the missing critic
    plain = {k: v for k, v in meta.items() if k not in ("play_only", "full_archive_sha256")}
    shutil.copy(tmp_path / "play.zip", tmp_path / "plain.zip")
    (tmp_path / "plain.json").write_text(json.dumps(plain))
    with pytest.raises(CheckpointError, match="(?s)weights do not fit the described network.*Missing key"):
        load_checkpoint_policy(tmp_path / "plain")


def test_play_only_must_be_a_boolean(tmp_path):
    _copy("brilliant_boar/ppo_2p", tmp_path)
    meta = json.loads((tmp_path / "play.json").read_text())
    (tmp_path / "play.json").write_text(json.dumps({**meta, "play_only": "yes"}))
    with pytest.raises(CheckpointError, match="corrupt: play_only 'yes' \\(not true or false\\)"):
        read_checkpoint(tmp_path / "play")


def test_a_copy_is_made_once_and_from_a_safetensors_file(tmp_path):
    _copy("brilliant_boar/ppo_2p", tmp_path)
    with pytest.raises(ValueError, match="already a play-only checkpoint"):
        write_play_only(tmp_path / "play.zip", tmp_path / "play.json", tmp_path / "again.zip", tmp_path / "again.json")
    with pytest.raises(ValueError, match="shorter than its 8-byte header length"):
        actor_safetensors(b"abc")
    with pytest.raises(ValueError, match="runs past the end"):
        actor_safetensors(struct.pack("<Q", 99) + b"{}")


def test_training_from_a_play_only_copy_is_refused_naming_the_full_one(tmp_path):
    _, play, _ = _copy("brilliant_boar/ppo_2p", tmp_path)
    full_sha = _sha256(tmp_path / "full.zip")
    meta = json.loads((tmp_path / "full.json").read_text())
    stored = upgrade_training(meta["training"])
    cfg = parse_train_config({**stored, "total_timesteps": 64, "n_envs": 1,
                              "ppo": {**stored["ppo"], "n_steps": 32, "batch_size": 32},
                              "backend": {**stored["backend"], "init_from": str(play)}, "pretrain": None})
    with pytest.raises(CheckpointError, match=f"is a play-only copy .* needs the full checkpoint.*{full_sha}"):
        train(cfg, tmp_path / "run", progress=False, log=lambda *a, **k: None)
