"""The braincards checkpoint format: tensors and JSON only, never a pickle.

A checkpoint is two files side by side:

* ``NAME.zip`` - a zip archive holding exactly ``policy.safetensors`` (the policy network's
  weights, a flat name -> tensor map in stable-baselines3's layout) and, for a training run
  that can be resumed, ``optimizer.safetensors`` + ``optimizer.json`` (Adam's moments and
  its hyperparameters). Nothing else is allowed in it: an archive with any other member - a
  stable-baselines3 ``model.save()`` zip, whose ``data`` entry may hold pickled Python
  objects - is refused with a :class:`CheckpointError` before anything in it is read.
* ``NAME.json`` - the metadata: game, env config, observation/action spaces, the policy's
  architecture (a whitelisted policy class and JSON keyword arguments), timesteps, seed,
  library versions, the training config and evaluation results.

Loading rebuilds the network from the metadata and copies the tensors in (``safetensors``
parses a header and raw buffers; no code runs). Weights that are not finite are refused,
naming the file and the tensor. An attacker who writes both files can make a policy play
badly, never run code.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
import math
import os
import platform
import zipfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
from gymnasium import spaces as gym_spaces
from safetensors.torch import load as st_load
from safetensors.torch import save as st_save

from braincards.envs import SPECS, get_spec
from braincards.training import files
from braincards.training.messages import shown

from .checkpoint_checks import (
    ACTIVATIONS,
    ALGORITHMS,
    MAX_ACTIONS,
    MAX_JSON_BYTES,
    MAX_MEMBER_BYTES,
    MAX_OBSERVATION,
    OPTIMIZER_MEMBERS,
    POLICY_CLASSES,
    POLICY_MEMBER,
    READER_KWARGS,
    CheckpointConfigWarning,
    CheckpointError,
    check_declared_budget,
    check_declared_size,
    check_finite,
    check_fits,
    check_forward,
    check_members,
    check_network_description,
    checked_optimizer_state,
    config_differences,
    load_json_limited,
    load_weights,
)

CHECKPOINT_FORMAT = "braincards-checkpoint"
CHECKPOINT_VERSION = 2


# ---------------------------------------------------------------------------- paths
def checkpoint_paths(path: str | os.PathLike) -> tuple[Path, Path]:
    """``NAME``, ``NAME.zip`` or ``NAME.json`` -> (``NAME.zip``, ``NAME.json``)."""
    p = Path(path)
    if p.suffix in (".zip", ".json"):
        p = p.with_suffix("")
    return p.with_name(p.name + ".zip"), p.with_name(p.name + ".json")


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for dist in ("braincards", "torch", "stable-baselines3", "sb3-contrib", "gymnasium",
                 "pettingzoo", "numpy", "safetensors"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = "not installed"
    return out


# ---------------------------------------------------------------------------- writing
def network_description(policy) -> dict:
    """The JSON description of an SB3 policy's architecture: ``{"class", "kwargs"}``."""
    cls = type(policy).__name__
    if cls not in POLICY_CLASSES:
        raise ValueError(f"braincards checkpoints hold {sorted(POLICY_CLASSES)}, not a {cls}")
    kwargs: dict = {}
    arch = policy.net_arch
    kwargs["net_arch"] = {k: list(v) for k, v in arch.items()} if isinstance(arch, dict) else list(arch)
    act = policy.activation_fn
    names = {nn.Tanh: "tanh", nn.ReLU: "relu"}
    if act not in names:
        raise ValueError(f"activation {act} cannot be stored; allowed: {list(ACTIVATIONS)}")
    kwargs["activation_fn"] = names[act]
    kwargs["ortho_init"] = bool(policy.ortho_init)
    if cls == "RecurrentActorCriticPolicy":
        kwargs["lstm_hidden_size"] = int(policy.lstm_actor.hidden_size)
        kwargs["n_lstm_layers"] = int(policy.lstm_actor.num_layers)
        kwargs["shared_lstm"] = bool(policy.shared_lstm)
        kwargs["enable_critic_lstm"] = bool(policy.lstm_critic is not None)
    if cls == "EventReaderPolicy":
        for key in READER_KWARGS:
            kwargs[key] = int(getattr(policy, key))
    return {"class": cls, "kwargs": kwargs}


def _optimizer_parts(optimizer) -> tuple[dict, dict]:
    """An optimizer's state as (flat tensors, JSON): ``state.{param}.{name}`` tensors."""
    sd = optimizer.state_dict()
    tensors, scalars = {}, {}
    for idx, st in sd["state"].items():
        for name, value in st.items():
            if torch.is_tensor(value):
                tensors[f"state.{idx}.{name}"] = value.detach().cpu().contiguous()
            else:
                scalars[f"{idx}.{name}"] = value
    groups = [{k: (list(v) if isinstance(v, tuple) else v) for k, v in g.items()} for g in sd["param_groups"]]
    return tensors, {"param_groups": groups, "scalars": scalars}


def write_checkpoint(
    path: str | os.PathLike,
    *,
    game: str,
    env_config: dict | None,
    algo: str,
    policy: dict,
    state_dict: dict,
    timesteps: int,
    seed: int | None = None,
    evaluation: dict | list | None = None,
    training: dict | None = None,
    history_k: int | None = None,
    optimizer=None,
    extra: dict | None = None,
) -> tuple[Path, Path]:
    """Write a checkpoint from a policy's tensors and its JSON architecture ``policy``
    (``{"class": ..., "kwargs": {...}}``, see :data:`POLICY_CLASSES` / :data:`POLICY_KWARGS`).

    ``state_dict`` is the policy network's flat ``{name: tensor}``; ``optimizer`` (a torch
    optimizer) is stored too when given, so that training can be resumed exactly. The
    spaces are checked against the env: a checkpoint that would not load is never written.
    """
    spec = get_spec(game)
    if algo not in ALGORITHMS:
        raise ValueError(f"unknown algo {algo!r}; known: {list(ALGORITHMS)}")
    config = dict(env_config or {})
    history_k = int(history_k or 0)
    check_network_description(policy, "the policy description")
    spaces = spec.spaces(config, history_k)
    tensors = {k: v.detach().cpu().contiguous() for k, v in state_dict.items()}
    check_finite(tensors, "the policy to save")
    meta = _metadata(game=game, env_config=config, history_k=history_k, algo=algo, policy=policy,
                     spaces=spaces, timesteps=timesteps, seed=seed, training=training,
                     evaluation=evaluation)
    if extra:
        meta.update(extra)
    # the tensors must build the described network for these spaces (fail now, not at load)
    build_policy(meta, tensors, "the policy to save")
    zip_path, json_path = checkpoint_paths(path)
    archive = _archive_bytes(tensors, optimizer)
    meta["archive_sha256"] = hashlib.sha256(archive).hexdigest()
    # both files are written to temporary names and fsynced, then renamed back to back, the
    # archive first and its metadata last: a save killed midway leaves the old checkpoint
    # (or, killed between the two renames, a new archive beside the old metadata, which the
    # reader refuses by the archive's digest)
    files.write_together([(zip_path, archive),
                          (json_path, (json.dumps(meta, indent=2) + "\n").encode())])
    return zip_path, json_path


def _metadata(*, game: str, env_config: dict, history_k: int, algo: str, policy: dict,
              spaces: dict, timesteps: int, seed: int | None, training: dict | None,
              evaluation: dict | list | None) -> dict:
    """The JSON metadata of a checkpoint being written (before ``extra`` is merged in)."""
    return {
        "format": CHECKPOINT_FORMAT,
        "format_version": CHECKPOINT_VERSION,
        "game": game,
        "env_config": env_config,
        "history_k": history_k,
        "algo": algo,
        "policy": policy,
        "observation_shape": spaces["observation_shape"],
        "action_n": spaces["action_n"],
        "timesteps": int(timesteps),
        "seed": seed,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "versions": _versions(),
        "training": training or {},
        "evaluation": evaluation if evaluation is not None else {},
    }


def _archive_bytes(tensors: dict, optimizer=None) -> bytes:
    """``NAME.zip``'s bytes: the policy tensors, and the optimizer's state when given."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(POLICY_MEMBER, st_save(tensors))
        if optimizer is not None:
            opt_tensors, opt_json = _optimizer_parts(optimizer)
            zf.writestr("optimizer.safetensors", st_save(opt_tensors))
            zf.writestr("optimizer.json", json.dumps(opt_json))
    return buf.getvalue()


def save_checkpoint(
    model,
    path: str | os.PathLike,
    game: str,
    config: dict | None = None,
    *,
    timesteps: int | None = None,
    seed: int | None = None,
    evaluation: dict | list | None = None,
    training: dict | None = None,
    history_k: int | None = None,
    optimizer: bool = False,
    extra: dict | None = None,
    state_dict: dict | None = None,
) -> tuple[Path, Path]:
    """Write an sb3-contrib model (MaskablePPO or RecurrentPPO) as a checkpoint.

    ``game`` is the env id, ``config`` the env config it was trained on, ``history_k`` the
    history wrapper's k if it was trained behind one, ``timesteps`` the steps done (default:
    the model's ``num_timesteps``), ``optimizer=True`` also stores the optimizer's state
    (for ``braincards train --resume``). ``state_dict``: other weights of the model's
    network to write (default: its own, :func:`detached_state`)."""
    algo = type(model).__name__
    if algo not in ("MaskablePPO", "RecurrentPPO"):
        raise ValueError(f"save_checkpoint supports MaskablePPO and RecurrentPPO, got a {algo}")
    obs_shape = list(model.observation_space.shape)
    action_n = int(model.action_space.n)
    expected = get_spec(game).spaces(config, int(history_k or 0))
    if expected != {"observation_shape": obs_shape, "action_n": action_n}:
        raise CheckpointError(
            f"the model's spaces (observation {obs_shape}, {action_n} actions) do not fit "
            f"{game} with config {config} (history_k={history_k or 0}): observation "
            f"{expected['observation_shape']}, {expected['action_n']} actions"
        )
    return write_checkpoint(
        path, game=game, env_config=config, algo=algo, policy=network_description(model.policy),
        state_dict=model.policy.state_dict() if state_dict is None else state_dict,
        timesteps=model.num_timesteps if timesteps is None else timesteps, seed=seed,
        evaluation=evaluation, training=training, history_k=history_k,
        optimizer=model.policy.optimizer if optimizer else None, extra=extra,
    )


def detached_state(network) -> dict:
    """A copy of ``network``'s weights that later training does not change."""
    return {k: v.detach().clone() for k, v in network.state_dict().items()}


# ---------------------------------------------------------------------------- reading
def _pair_error(zip_path: Path, json_path: Path, missing: Path) -> CheckpointError:
    return CheckpointError(
        f"checkpoint {zip_path.with_suffix('')} is incomplete: {missing} does not exist "
        f"(a checkpoint is the pair {zip_path} + {json_path}, written by "
        f"braincards.training.agents.checkpoint.save_checkpoint)"
    )


def read_metadata(path: str | os.PathLike) -> dict:
    """The JSON metadata of a checkpoint, validated (raises CheckpointError).

    The metadata records its archive's SHA-256. A save killed between its two renames
    leaves the new archive beside the old metadata, with the new metadata complete under its
    temporary name: that one is read instead (nothing is lost). An archive that matches
    neither is refused by :func:`read_checkpoint`, naming both files."""
    zip_path, json_path = checkpoint_paths(path)
    if not zip_path.exists() and not json_path.exists():
        raise CheckpointError(f"checkpoint {zip_path.with_suffix('')} does not exist (neither "
                              f"{zip_path} nor {json_path})")
    for p in (zip_path, json_path):
        if not p.exists():
            raise _pair_error(zip_path, json_path, p)
        if not p.is_file():
            raise CheckpointError(f"checkpoint file {p} is not a regular file")
    meta = _read_metadata_file(json_path)
    want = meta.get("archive_sha256")
    if want is not None:
        have = _sha256(zip_path)
        if have != want:
            # read_checkpoint refuses a pair that still does not match (after checking what
            # the archive holds, which says more about a planted one)
            meta = _unfinished_save(zip_path, json_path, have) or meta
    return meta


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except OSError as err:
        raise CheckpointError(f"checkpoint file {path} cannot be read: {err}") from None
    return digest.hexdigest()


def _unfinished_save(zip_path: Path, json_path: Path, digest: str) -> dict | None:
    """The metadata of the archive with ``digest`` left under its temporary name by a save
    killed between its renames, if there is one."""
    for candidate in sorted(json_path.parent.glob(f".{json_path.name}{files.TEMP_MARK}*")):
        try:
            meta = _read_metadata_file(candidate)
        except CheckpointError:
            continue  # a temp file the save did not finish writing
        if meta.get("archive_sha256") == digest:
            return meta
    return None


def _mismatch_error(zip_path: Path, json_path: Path) -> CheckpointError:
    return CheckpointError(
        f"checkpoint {zip_path} does not match its metadata {json_path} (the archive's "
        f"SHA-256 differs from the one recorded): the two files come from different saves"
    )


def _read_metadata_file(json_path: Path) -> dict:
    """One metadata file, parsed within limits and validated."""
    try:
        size = json_path.stat().st_size
        if size > MAX_JSON_BYTES:
            raise CheckpointError(f"checkpoint metadata {json_path} is {size} bytes, over the "
                                  f"{MAX_JSON_BYTES}-byte limit")
        raw = json_path.read_bytes()
    except OSError as err:
        raise CheckpointError(f"checkpoint metadata {json_path} cannot be read: {err}") from None
    meta = load_json_limited(raw, f"checkpoint metadata {json_path}")
    if not isinstance(meta, dict) or meta.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{json_path} is not braincards checkpoint metadata")
    if meta.get("format_version") != CHECKPOINT_VERSION:
        raise CheckpointError(
            f"{json_path} has format_version {shown(meta.get('format_version'))}; this braincards "
            f"reads version {CHECKPOINT_VERSION} (version 1 checkpoints were stable-baselines3 "
            f"archives, which are never loaded since they can hold pickled code)"
        )
    needed = ("game", "env_config", "algo", "policy", "observation_shape", "action_n")
    missing = [k for k in needed if k not in meta]
    if missing:
        raise CheckpointError(f"checkpoint metadata {json_path} lacks {missing}")
    if meta["algo"] not in ALGORITHMS:
        raise CheckpointError(f"{json_path}: unknown algo {shown(meta['algo'])}; known: {list(ALGORITHMS)}")
    shape, n, k = meta["observation_shape"], meta["action_n"], meta.get("history_k", 0)
    bad = []
    if not isinstance(meta["game"], str) or meta["game"] not in SPECS:
        bad.append(f"game {shown(meta['game'])} (not a braincards game; known: {sorted(SPECS)})")
    if not isinstance(meta["env_config"], dict):
        bad.append(f"env_config {shown(meta['env_config'])} (not a mapping)")
    if not (isinstance(shape, list) and 1 <= len(shape) <= 4
            and all(type(x) is int and 0 < x <= MAX_OBSERVATION for x in shape)
            and math.prod(shape) <= MAX_OBSERVATION):
        bad.append(f"observation_shape {shown(shape)} (not 1-4 positive integers with a "
                   f"product of at most {MAX_OBSERVATION})")
    if type(n) is not int or not 1 <= n <= MAX_ACTIONS:
        bad.append(f"action_n {shown(n)} (not an integer in 1..{MAX_ACTIONS})")
    if meta.get("archive_sha256") is not None and not (
            isinstance(meta["archive_sha256"], str) and len(meta["archive_sha256"]) == 64):
        bad.append(f"archive_sha256 {shown(meta['archive_sha256'])} (not a SHA-256 hex digest)")
    if k is not None and (type(k) is not int or k < 0):
        bad.append(f"history_k {shown(k)} (not a non-negative integer)")
    if meta.get("play_only", False) not in (True, False):
        bad.append(f"play_only {shown(meta['play_only'])} (not true or false)")
    if bad:
        raise CheckpointError(f"checkpoint metadata {json_path} is corrupt: " + "; ".join(bad))
    meta["history_k"] = k or 0
    check_network_description(meta["policy"], str(json_path))
    check_declared_budget(meta, f"checkpoint metadata {json_path}")
    reader_k = meta["policy"]["kwargs"].get("history_k")
    if reader_k is not None and reader_k != meta["history_k"]:
        raise CheckpointError(f"checkpoint metadata {json_path} is corrupt: the policy reads history_k="
                              f"{reader_k} event slots but the checkpoint's history_k is {meta['history_k']}")
    return meta


def _open_archive(zip_path: Path) -> zipfile.ZipFile:
    if not zipfile.is_zipfile(zip_path):
        raise CheckpointError(f"checkpoint {zip_path} is corrupt: not a zip archive")
    try:
        zf = zipfile.ZipFile(zip_path)
        infos = zf.infolist()
    except (OSError, zipfile.BadZipFile) as err:
        raise CheckpointError(f"checkpoint {zip_path} is corrupt: {err}") from None
    try:
        check_members([i.filename for i in infos], zip_path)
    except CheckpointError:
        zf.close()
        raise
    for info in infos:
        if info.file_size > MAX_MEMBER_BYTES:
            zf.close()
            raise CheckpointError(f"checkpoint {zip_path}: {info.filename} is {info.file_size} bytes, "
                                  f"over the {MAX_MEMBER_BYTES}-byte limit")
    return zf


def _read_tensors(zf: zipfile.ZipFile, member: str, zip_path: Path) -> dict:
    try:
        tensors = st_load(zf.read(member))
    except Exception as err:  # safetensors raises its own SafetensorError on a damaged buffer
        raise CheckpointError(f"checkpoint {zip_path}: {member} is corrupt: {type(err).__name__}: {err}") from None
    check_finite(tensors, f"checkpoint {zip_path}")
    return tensors


def read_checkpoint(path: str | os.PathLike, *, optimizer: bool = False) -> tuple[dict, dict, tuple | None]:
    """(metadata, policy tensors, optimizer parts or None) of a checkpoint, all validated;
    no Python object is ever unpickled."""
    meta = read_metadata(path)
    zip_path, json_path = checkpoint_paths(path)
    with _open_archive(zip_path) as zf:
        _check_pair(meta, zip_path, json_path)
        tensors = _read_tensors(zf, POLICY_MEMBER, zip_path)
        opt = None
        if optimizer and set(OPTIMIZER_MEMBERS) <= set(zf.namelist()):
            opt_json = load_json_limited(zf.read("optimizer.json"), f"checkpoint {zip_path}: optimizer.json")
            opt = (_read_tensors(zf, "optimizer.safetensors", zip_path), opt_json)
    return meta, tensors, opt


def _check_pair(meta: dict, zip_path: Path, json_path: Path) -> None:
    """The archive must be the one its metadata was written with (checkpoints saved before
    the metadata recorded its archive's SHA-256 are taken as they are)."""
    want = meta.get("archive_sha256")
    if want is not None and _sha256(zip_path) != want:
        raise _mismatch_error(zip_path, json_path)


def build_policy(meta: dict, tensors: dict, where: str):
    """The policy network described by ``meta`` with ``tensors`` loaded (strict: every
    weight, or every actor weight of a play-only checkpoint); a description larger than its
    weights is refused before anything is built."""
    check_declared_size(meta, tensors, where)
    spec = meta["policy"]
    cls = POLICY_CLASSES[spec["class"]]
    kwargs = dict(spec["kwargs"])
    kwargs["activation_fn"] = {"tanh": nn.Tanh, "relu": nn.ReLU}[kwargs.get("activation_fn", "tanh")]
    obs_space = gym_spaces.Box(0.0, 1.0, tuple(meta["observation_shape"]), np.float32)
    act_space = gym_spaces.Discrete(int(meta["action_n"]))
    try:
        policy = cls(obs_space, act_space, lambda _: 0.0, **kwargs)
    except ValueError as err:  # the event reader's numbers do not fit its spaces
        raise CheckpointError(f"{where}: the described network cannot be built: {err}") from None
    load_weights(policy, tensors, bool(meta.get("play_only")), where)
    policy.set_training_mode(False)
    check_forward(policy, meta, where)
    return policy


def load_optimizer_state(optimizer, parts: tuple, where: str) -> None:
    """Restore an optimizer from ``read_checkpoint(..., optimizer=True)``'s parts, every field
    checked against the optimizer first (CheckpointError naming what does not fit)."""
    state = checked_optimizer_state(optimizer, parts, where)
    try:
        optimizer.load_state_dict({"state": state, "param_groups": parts[1]["param_groups"]})
    except (KeyError, ValueError, TypeError) as err:
        raise CheckpointError(f"{where}: the optimizer state does not fit: {err}") from None


def verify_saved(path: str | os.PathLike, optimizer=None) -> None:
    """Read a checkpoint just written back as its loader will (its files, its network built and
    fed, its optimizer state checked against ``optimizer``), without drawing from torch's
    generator: a run never leaves a checkpoint its own loader refuses."""
    meta, tensors, parts = read_checkpoint(path, optimizer=optimizer is not None)
    with torch.random.fork_rng(devices=[]):
        build_policy(meta, tensors, f"saved checkpoint {path}")
    if parts is not None:
        checked_optimizer_state(optimizer, parts, f"saved checkpoint {path}")


def load_checkpoint_policy(path: str | os.PathLike):
    """(metadata, rebuilt SB3 policy network in eval mode) of a checkpoint."""
    meta, tensors, _ = read_checkpoint(path)
    zip_path, _ = checkpoint_paths(path)
    return meta, build_policy(meta, tensors, f"checkpoint {zip_path}")


__all__ = [
    "ALGORITHMS", "CHECKPOINT_FORMAT", "CHECKPOINT_VERSION", "CheckpointConfigWarning",
    "CheckpointError", "POLICY_CLASSES", "build_policy", "check_fits", "config_differences", "checkpoint_paths", "load_checkpoint_policy",
    "load_optimizer_state", "network_description", "read_checkpoint", "read_metadata", "save_checkpoint",
    "write_checkpoint",
]
