"""The safe checkpoint format (issue 9): loading never unpickles, names cannot be hijacked
by the current directory, non-finite weights and unknown architectures are refused."""

from __future__ import annotations

import base64
import hashlib
import json
import pickle
import zipfile

import numpy as np
import pytest
import torch

from braincards.training.agents.checkpoint import (
    CheckpointError,
    load_optimizer_state,
    read_checkpoint,
    write_checkpoint,
)
from braincards.training.agents.checkpoint_checks import ALLOWED_MEMBERS
from braincards.training.agents.locations import available_checkpoints
from braincards.training.agents.network import load_policy
from braincards.training.agents.policy import PolicySpecError
from braincards.training.agents.specs import make_policy
from braincards.training.evaluation.evaluate import evaluate


class _Plant:
    """Unpickling this creates a file: proof that code ran."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _copy(src, dst):
    dst.parent.mkdir(parents=True, exist_ok=True)
    for suffix in (".zip", ".json"):
        dst.with_suffix(suffix).write_bytes(src.with_suffix(suffix).read_bytes())
    return dst


def _sb3_style_zip(path, marker, keep_policy_member=None):
    """A stable-baselines3 model.save()-style archive whose ``data`` JSON holds a pickle
    (SB3's ``":serialized:"`` convention) that would create ``marker`` if unpickled."""
    payload = base64.b64encode(pickle.dumps(_Plant(marker))).decode()
    data = {"policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": payload}}
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data", json.dumps(data))
        zf.writestr("policy.pth", b"\x00" * 16)
        zf.writestr("_stable_baselines3_version", "2.9.2")
        if keep_policy_member is not None:
            zf.writestr("policy.safetensors", keep_policy_member)


@pytest.fixture()
def planted(tmp_path, tiny_checkpoint):
    """A checkpoint whose metadata is valid but whose zip is an SB3 archive with a pickle."""
    ck = _copy(tiny_checkpoint, tmp_path / "store" / "the_brain" / "evil")
    marker = tmp_path / "PWNED"
    _sb3_style_zip(ck.with_suffix(".zip"), marker)
    return ck, marker


def test_sb3_archive_with_a_pickle_is_refused_and_never_unpickled(planted):
    ck, marker = planted
    with pytest.raises(CheckpointError, match=r"holds \[.*'data'.*stable-baselines3"):
        load_policy(ck, game="the_brain_v0")
    assert not marker.exists()


def test_a_pickle_beside_valid_tensors_is_refused(tmp_path, tiny_checkpoint):
    ck = _copy(tiny_checkpoint, tmp_path / "mixed")
    with zipfile.ZipFile(tiny_checkpoint.with_suffix(".zip")) as zf:
        good = zf.read("policy.safetensors")
    marker = tmp_path / "PWNED"
    _sb3_style_zip(ck.with_suffix(".zip"), marker, keep_policy_member=good)
    with pytest.raises(CheckpointError, match="nothing else is ever loaded"):
        load_policy(ck)
    assert not marker.exists()


def test_planted_checkpoint_by_name_and_with_workers(planted, monkeypatch, tmp_path, warns_solo_at):
    """The attack paths of the issue: a checkpoint *name*, and evaluate with 2 workers."""
    ck, marker = planted
    monkeypatch.setenv("BRAINCARDS_CHECKPOINTS", str(tmp_path / "store"))
    # its metadata is plain JSON, read (and compared with the table) before the archive is refused
    with pytest.raises(CheckpointError), warns_solo_at(2):
        make_policy("the_brain/evil", "the_brain_v0", {"num_players": 2})
    with pytest.raises(CheckpointError), warns_solo_at(2):
        evaluate("the_brain_v0", {"num_players": 2}, seats=[str(ck), "random"], games=4, workers=2)
    assert not marker.exists()


def test_the_current_directory_cannot_stand_in_for_a_name(tmp_path, tiny_checkpoint, monkeypatch, warns_solo_at):
    """Names are looked up in the package's checkpoints and $BRAINCARDS_CHECKPOINTS only; a
    ./checkpoints folder (or a same-named relative path) is never taken for a name."""
    monkeypatch.delenv("BRAINCARDS_CHECKPOINTS", raising=False)
    monkeypatch.chdir(tmp_path)
    _copy(tiny_checkpoint, tmp_path / "checkpoints" / "the_brain" / "tiny")
    with pytest.raises(PolicySpecError):
        make_policy("the_brain/tiny", "the_brain_v0")
    assert "the_brain/tiny" not in available_checkpoints()
    # an explicit path still loads it (the solo checkpoint at the default 3-player table: it warns)
    with warns_solo_at(3):
        p = make_policy("./checkpoints/the_brain/tiny", "the_brain_v0")
    assert p.metadata["game"] == "the_brain_v0"


def test_flat_checkpoint_folder_lists_by_game(tmp_path, tiny_checkpoint, monkeypatch):
    _copy(tiny_checkpoint, tmp_path / "flat" / "tiny")
    monkeypatch.setenv("BRAINCARDS_CHECKPOINTS", str(tmp_path / "flat"))
    assert "tiny" in available_checkpoints("the_brain_v0")
    assert "tiny" not in available_checkpoints("oh_my_brain_v0")
    assert make_policy("tiny", "the_brain_v0", {"num_players": 1}).metadata["game"] == "the_brain_v0"


def _rewrite_tensors(ck, change):
    from safetensors.torch import load, save

    zp = ck.with_suffix(".zip")
    with zipfile.ZipFile(zp) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    tensors = load(members["policy.safetensors"])
    change(tensors)
    members["policy.safetensors"] = save(tensors)
    with zipfile.ZipFile(zp, "w") as zf:
        for n, b in members.items():
            zf.writestr(n, b)
    reseal(ck)


def reseal(ck):
    """Record the edited archive's digest in its metadata, as one who edits both files would
    (an archive edited alone is refused as not matching its metadata)."""
    jp = ck.with_suffix(".json")
    meta = json.loads(jp.read_text())
    meta["archive_sha256"] = hashlib.sha256(ck.with_suffix(".zip").read_bytes()).hexdigest()
    jp.write_text(json.dumps(meta))


def test_non_finite_weights_are_refused_naming_the_file(tmp_path, tiny_checkpoint, tiny_model):
    ck = _copy(tiny_checkpoint, tmp_path / "nan")

    def poison(t):
        t["action_net.bias"][3] = float("nan")

    _rewrite_tensors(ck, poison)
    with pytest.raises(CheckpointError, match=r"nan\.zip.*'action_net\.bias'.*non-finite"):
        load_policy(ck)
    sd = {k: v.clone() for k, v in tiny_model.policy.state_dict().items()}
    sd["value_net.weight"][0, 0] = float("inf")
    with pytest.raises(CheckpointError, match="non-finite"):
        write_checkpoint(tmp_path / "w", game="the_brain_v0", env_config={}, algo="MaskablePPO",
                         policy=read_checkpoint(tiny_checkpoint)[0]["policy"], state_dict=sd,
                         timesteps=1)
    assert not (tmp_path / "w.zip").exists()


def test_missing_or_extra_tensors_are_refused(tmp_path, tiny_checkpoint):
    ck = _copy(tiny_checkpoint, tmp_path / "short")
    _rewrite_tensors(ck, lambda t: t.pop("action_net.weight"))
    with pytest.raises(CheckpointError, match=r"(?s)do not fit the described network.*action_net.weight"):
        load_policy(ck)
    ck2 = _copy(tiny_checkpoint, tmp_path / "garbled")
    zp = ck2.with_suffix(".zip")
    with zipfile.ZipFile(zp, "w") as zf:
        zf.writestr("policy.safetensors", b"\x10\x00\x00\x00\x00\x00\x00\x00{not a header}")
    reseal(ck2)
    with pytest.raises(CheckpointError, match="policy.safetensors is corrupt"):
        load_policy(ck2)


@pytest.mark.parametrize("policy, message", [
    ({"class": "builtins.eval", "kwargs": {}}, "not allowed"),
    ({"class": "MaskableActorCriticPolicy", "kwargs": {"features_extractor_class": "os.system"}},
     "features_extractor_class.*not allowed"),
    ({"class": "MaskableActorCriticPolicy", "kwargs": {"net_arch": [10**9]}}, "net_arch"),
    ({"class": "MaskableActorCriticPolicy", "kwargs": {"activation_fn": "gelu"}}, "activation_fn"),
    ({"class": "MaskableActorCriticPolicy", "kwargs": {"ortho_init": "yes"}}, "wrong type"),
    ("MaskableActorCriticPolicy", "must be a mapping"),
])
def test_metadata_may_only_describe_whitelisted_networks(tmp_path, tiny_checkpoint, policy, message):
    ck = _copy(tiny_checkpoint, tmp_path / "arch")
    meta = json.loads(ck.with_suffix(".json").read_text())
    meta["policy"] = policy
    ck.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match=message):
        load_policy(ck)


def test_old_format_version_is_refused_with_the_reason(tmp_path, tiny_checkpoint):
    ck = _copy(tiny_checkpoint, tmp_path / "v1")
    meta = json.loads(ck.with_suffix(".json").read_text())
    meta["format_version"] = 1
    ck.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="version 1 checkpoints were stable-baselines3"):
        load_policy(ck)


def test_archive_holds_only_tensors_and_json(tiny_checkpoint):
    with zipfile.ZipFile(tiny_checkpoint.with_suffix(".zip")) as zf:
        assert set(zf.namelist()) == set(ALLOWED_MEMBERS)
        json.loads(zf.read("optimizer.json"))


def test_weights_and_optimizer_round_trip(tiny_checkpoint, tiny_model):
    """The loaded network computes what the trained one does; the optimizer's state comes
    back exactly (resume)."""
    from sb3_contrib import MaskablePPO

    from braincards.envs.the_brain import solo_env

    policy = load_policy(tiny_checkpoint)
    x = torch.as_tensor(np.random.default_rng(0).random((5, 2260)), dtype=torch.float32)
    with torch.no_grad():
        want = tiny_model.policy.get_distribution(x).distribution.logits
        got = policy.network.get_distribution(x).distribution.logits
    assert torch.equal(want, got)
    meta, tensors, opt = read_checkpoint(tiny_checkpoint, optimizer=True)
    assert opt is not None
    fresh = MaskablePPO("MlpPolicy", solo_env(num_players=1), policy_kwargs={"net_arch": [16]},
                        device="cpu")
    fresh.policy.load_state_dict(tensors)
    load_optimizer_state(fresh.policy.optimizer, opt, "test")
    a, b = tiny_model.policy.optimizer.state_dict(), fresh.policy.optimizer.state_dict()
    assert a["state"].keys() == b["state"].keys()
    for k in a["state"]:
        for name, v in a["state"][k].items():
            assert torch.equal(v, b["state"][k][name]), (k, name)
    assert a["param_groups"][0]["lr"] == b["param_groups"][0]["lr"]
