"""Policies: anything that can sit at a braincards table.

A policy answers ``act(observation, agent=None) -> int`` with a legal action (it reads
``observation["action_mask"]``) and is told ``reset(seed=None)`` at the start of every game
(recurrent state, memory, and the policy's own random generator are reset there, so a game's
play depends only on the seeds it is given, never on earlier games).

Implementations:

* :class:`RandomPolicy` - uniform over the legal actions.
* one heuristic per game (``braincards.training.heuristics``): rule-based players that read
  only their observation, through the env's ``observation_layout()``.
* :class:`CheckpointPolicy` - a trained sb3-contrib model (MaskablePPO, or RecurrentPPO)
  saved with :func:`save_checkpoint` as ``NAME.zip`` + ``NAME.json`` and read back with
  :func:`load_policy`.

Specs: wherever a policy is accepted, a string works too (:func:`make_policy`):
``"random"``, ``"heuristic"``, a checkpoint path (``runs/x/ppo.zip``, with or without
``.zip``), or a checkpoint name under ``checkpoints/`` (``"the_brain/ppo_3p"``).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import zipfile
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

CHECKPOINT_FORMAT = "braincards-checkpoint"
CHECKPOINT_VERSION = 1
ALGORITHMS = ("MaskablePPO", "RecurrentPPO")
# spec name -> "module:factory" of the built-in (non-checkpoint) policies; a factory is
# called as factory(game, config, seed=seed) and returns a fresh Policy
BUILTIN_SPECS: dict[str, str] = {
    "random": "braincards.training.policies:_random_spec",
    "heuristic": "braincards.training.heuristics:make_heuristic",
}


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: missing, corrupt, or made for another env."""


class PolicySpecError(ValueError):
    """A policy spec string that names nothing we can load."""


@runtime_checkable
class Policy(Protocol):
    """What sits at a seat. ``act`` must return an action whose mask entry is 1."""

    name: str

    def act(self, observation: dict, agent: str | None = None) -> int: ...

    def reset(self, seed: int | None = None) -> None: ...


def legal_actions(observation: dict) -> np.ndarray:
    """The legal actions of an observation dict (ascending), from its action mask."""
    legal = np.flatnonzero(observation["action_mask"])
    if legal.size == 0:
        raise ValueError("the observation's action mask is empty: there is nothing to decide")
    return legal


# ---------------------------------------------------------------------------- random
class RandomPolicy:
    """Uniformly random over the legal actions (its own generator; no global RNG)."""

    def __init__(self, seed: int | None = None, name: str = "random"):
        self.name = name
        self._seed = seed
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: dict, agent: str | None = None) -> int:
        legal = legal_actions(observation)
        return int(legal[self._rng.integers(legal.size)])


def _random_spec(game: str, config: dict, seed: int | None = None) -> RandomPolicy:
    return RandomPolicy(seed)


# ---------------------------------------------------------------------------- checkpoints
def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for dist in ("braincards", "torch", "stable-baselines3", "sb3-contrib", "gymnasium",
                 "pettingzoo", "numpy"):  # fmt: skip
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = "not installed"
    return out


def checkpoint_paths(path: str | os.PathLike) -> tuple[Path, Path]:
    """``NAME``, ``NAME.zip`` or ``NAME.json`` -> (``NAME.zip``, ``NAME.json``)."""
    p = Path(path)
    if p.suffix in (".zip", ".json"):
        p = p.with_suffix("")
    return p.with_name(p.name + ".zip"), p.with_name(p.name + ".json")


def check_env_options(game: str, config: dict) -> None:
    """Raise a clear ValueError for a config key that ``game``'s env does not take (the env
    itself would raise a TypeError about an unexpected keyword argument)."""
    import importlib
    import inspect

    from braincards.envs import ENVS

    if game not in ENVS:
        raise ValueError(f"unknown game {game!r}; known games: {sorted(ENVS)}")
    params = inspect.signature(importlib.import_module(ENVS[game]).raw_env).parameters
    known = [k for k, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for key in config:
        if key not in known:
            raise ValueError(f"unknown option {key!r} for {game}; its options: {known}")


def env_spaces(game: str, config: dict | None = None) -> dict:
    """Observation shape and action count of ``game`` under ``config`` (one env built)."""
    from braincards.envs import make

    check_env_options(game, dict(config or {}))
    env = make(game, **dict(config or {}))
    agent = env.possible_agents[0]
    obs_space = env.observation_space(agent)["observation"]
    out = {"observation_shape": list(obs_space.shape), "action_n": int(env.action_space(agent).n)}
    env.close()
    return out


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
    extra: dict | None = None,
) -> tuple[Path, Path]:
    """Write ``model`` as ``NAME.zip`` and its metadata as ``NAME.json``; return both paths.

    ``game`` is the env id (``"the_brain_v0"``), ``config`` the env config the model was
    trained on (JSON-safe values), ``timesteps`` the training steps done (default: the
    model's ``num_timesteps``), ``seed`` the training seed, ``evaluation`` any evaluation
    results (e.g. :func:`braincards.training.evaluate.evaluate`'s summary), ``training`` the
    training config (hyperparameters, opponent pool, ...). The metadata records the
    observation/action spaces of the model, which :func:`load_policy` checks against the env.
    """
    from braincards.envs import ENVS

    if game not in ENVS:
        raise ValueError(f"unknown game {game!r}; known games: {sorted(ENVS)}")
    algo = type(model).__name__
    if algo not in ALGORITHMS:
        raise ValueError(f"save_checkpoint supports {list(ALGORITHMS)}, got a {algo}")
    obs_shape = list(model.observation_space.shape)
    action_n = int(model.action_space.n)
    expected = env_spaces(game, config)
    if expected != {"observation_shape": obs_shape, "action_n": action_n}:
        raise CheckpointError(
            f"the model's spaces (observation {obs_shape}, {action_n} actions) do not fit "
            f"{game} with config {config}: observation {expected['observation_shape']}, "
            f"{expected['action_n']} actions"
        )
    zip_path, json_path = checkpoint_paths(path)
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(zip_path))
    meta = {
        "format": CHECKPOINT_FORMAT,
        "format_version": CHECKPOINT_VERSION,
        "game": game,
        "env_config": dict(config or {}),
        "algo": algo,
        "policy_class": type(model.policy).__name__,
        "observation_shape": obs_shape,
        "action_n": action_n,
        "timesteps": int(model.num_timesteps if timesteps is None else timesteps),
        "seed": seed,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "versions": _versions(),
        "training": training or {},
        "evaluation": evaluation if evaluation is not None else {},
    }
    if extra:
        meta.update(extra)
    json_path.write_text(json.dumps(meta, indent=2, sort_keys=False) + "\n")
    return zip_path, json_path


def read_metadata(path: str | os.PathLike) -> dict:
    """The JSON metadata of a checkpoint, validated (raises CheckpointError)."""
    zip_path, json_path = checkpoint_paths(path)
    if not zip_path.is_file():
        raise CheckpointError(f"checkpoint file {zip_path} does not exist")
    if not json_path.is_file():
        raise CheckpointError(
            f"checkpoint metadata {json_path} does not exist (a checkpoint is NAME.zip + "
            f"NAME.json, written by braincards.training.policies.save_checkpoint)"
        )
    try:
        meta = json.loads(json_path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CheckpointError(f"checkpoint metadata {json_path} is not valid JSON: {err}") from None
    if not isinstance(meta, dict) or meta.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{json_path} is not braincards checkpoint metadata")
    if meta.get("format_version") != CHECKPOINT_VERSION:
        raise CheckpointError(
            f"{json_path} has format_version {meta.get('format_version')!r}; this braincards "
            f"reads version {CHECKPOINT_VERSION}"
        )
    missing = [k for k in ("game", "env_config", "algo", "observation_shape", "action_n") if k not in meta]
    if missing:
        raise CheckpointError(f"checkpoint metadata {json_path} lacks {missing}")
    if meta["algo"] not in ALGORITHMS:
        raise CheckpointError(f"{json_path}: unknown algo {meta['algo']!r}; known: {list(ALGORITHMS)}")
    shape, n = meta["observation_shape"], meta["action_n"]
    bad = []
    if not isinstance(meta["game"], str):
        bad.append(f"game {meta['game']!r} (not a string)")
    if not isinstance(meta["env_config"], dict):
        bad.append(f"env_config {meta['env_config']!r} (not a mapping)")
    if not (isinstance(shape, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in shape)):
        bad.append(f"observation_shape {shape!r} (not a list of integers)")
    if not isinstance(n, int) or isinstance(n, bool):
        bad.append(f"action_n {n!r} (not an integer)")
    if bad:
        raise CheckpointError(f"checkpoint metadata {json_path} is corrupt: " + "; ".join(bad))
    return meta


def check_fits(meta: dict, game: str | None, config: dict | None, where: str = "checkpoint") -> None:
    """Raise CheckpointError unless a checkpoint's game and spaces fit ``game``/``config``."""
    if game is None:
        return
    if meta["game"] != game:
        raise CheckpointError(f"{where} was trained for {meta['game']}, not {game}")
    if config is None:
        try:
            spaces = env_spaces(game, meta["env_config"])
        except (TypeError, ValueError) as err:
            raise CheckpointError(f"{where}: its metadata's env_config {meta['env_config']} does "
                                  f"not make a {game} env: {err}") from None  # fmt: skip
    else:
        spaces = env_spaces(game, config)
    have = {"observation_shape": list(meta["observation_shape"]), "action_n": int(meta["action_n"])}
    if spaces != have:
        raise CheckpointError(
            f"{where} does not fit {game} with config {config}: the checkpoint has observation "
            f"{have['observation_shape']} and {have['action_n']} actions, the env has observation "
            f"{spaces['observation_shape']} and {spaces['action_n']} actions (trained with env "
            f"config {meta['env_config']})"
        )


_MODEL_CACHE: dict[tuple, Any] = {}


def _load_model(zip_path: Path, algo: str, meta: dict):
    try:
        st = zip_path.stat()
    except OSError as err:
        raise CheckpointError(f"cannot read checkpoint {zip_path}: {err}") from None
    key = (str(zip_path.resolve()), st.st_mtime_ns, st.st_size, algo)
    if key not in _MODEL_CACHE:
        _MODEL_CACHE[key] = _read_model(zip_path, algo)
    model = _MODEL_CACHE[key]
    # checked on every load: the metadata may have changed since the model was cached
    obs_shape = list(getattr(model.observation_space, "shape", None) or [])
    n = getattr(model.action_space, "n", None)
    if obs_shape != list(meta["observation_shape"]) or n != meta["action_n"]:
        raise CheckpointError(
            f"checkpoint {zip_path} does not match its metadata: model observation {obs_shape} "
            f"/ {n} actions, metadata {meta['observation_shape']} / {meta['action_n']}"
        )
    return model


def _read_model(zip_path: Path, algo: str):
    if algo == "MaskablePPO":
        from sb3_contrib import MaskablePPO as cls
    else:
        from sb3_contrib import RecurrentPPO as cls
    if not zipfile.is_zipfile(zip_path):
        raise CheckpointError(f"checkpoint {zip_path} is corrupt: not a zip archive")
    try:
        model = cls.load(str(zip_path), device="cpu")
    except Exception as err:  # sb3 raises many kinds on a damaged file
        raise CheckpointError(
            f"checkpoint {zip_path} is corrupt or not a {algo} model: {type(err).__name__}: {err}"
        ) from None
    return model


class CheckpointPolicy:
    """A trained model at a seat. ``deterministic=True`` plays the most likely legal action;
    otherwise it samples from the masked distribution with its own seeded generator."""

    def __init__(self, model, metadata: dict, *, deterministic: bool = True, seed: int | None = None,
                 name: str = "checkpoint"):  # fmt: skip
        import torch

        self._torch = torch
        self.model = model
        self.metadata = metadata
        self.deterministic = deterministic
        self.name = name
        self.recurrent = metadata["algo"] == "RecurrentPPO"
        self._rng = np.random.default_rng(seed)
        self._state = None
        self._start = True

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._state = None
        self._start = True

    def _logits(self, obs: np.ndarray):
        torch = self._torch
        policy = self.model.policy
        x = torch.as_tensor(obs, dtype=torch.float32).reshape(1, -1)
        with torch.no_grad():
            if not self.recurrent:
                dist = policy.get_distribution(x)
            else:
                if self._state is None:
                    shape = policy.lstm_hidden_state_shape
                    self._state = (torch.zeros(shape[0], 1, shape[2]), torch.zeros(shape[0], 1, shape[2]))
                start = torch.tensor([1.0 if self._start else 0.0])
                dist, self._state = policy.get_distribution(x, self._state, start)
                self._start = False
            return dist.distribution.logits[0].numpy().astype(np.float64)

    def act(self, observation: dict, agent: str | None = None) -> int:
        legal = legal_actions(observation)
        logits = self._logits(observation["observation"])[legal]
        if self.deterministic:
            return int(legal[int(np.argmax(logits))])
        p = np.exp(logits - logits.max())
        p /= p.sum()
        return int(legal[self._rng.choice(legal.size, p=p)])


def set_torch_threads(threads: int = 1) -> None:
    """Tiny-batch inference is several times faster on one thread than on torch's default."""
    import torch

    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


def load_policy(
    path: str | os.PathLike,
    deterministic: bool = True,
    *,
    game: str | None = None,
    config: dict | None = None,
    seed: int | None = None,
    torch_threads: int | None = 1,
    name: str | None = None,
) -> CheckpointPolicy:
    """Load ``NAME.zip`` + ``NAME.json`` as a policy.

    With ``game`` (and ``config``) given, refuses a checkpoint trained for another game or
    whose observation/action spaces differ from that env's. ``torch_threads`` sets torch's
    thread count (default 1; None leaves it alone). Raises :class:`CheckpointError` with a
    clear message for a missing or corrupt file or a checkpoint that does not fit.
    """
    meta = read_metadata(path)
    zip_path, _ = checkpoint_paths(path)
    check_fits(meta, game, config, where=f"checkpoint {zip_path}")
    if torch_threads is not None:
        set_torch_threads(torch_threads)
    model = _load_model(zip_path, meta["algo"], meta)
    return CheckpointPolicy(model, meta, deterministic=deterministic, seed=seed,
                            name=name or str(path))  # fmt: skip


# ---------------------------------------------------------------------------- specs
def checkpoints_dir() -> Path:
    """Where named checkpoints live: $BRAINCARDS_CHECKPOINTS, else ./checkpoints, else the
    checkpoints/ folder of the source tree."""
    env = os.environ.get("BRAINCARDS_CHECKPOINTS")
    if env:
        return Path(env)
    local = Path.cwd() / "checkpoints"
    if local.is_dir():
        return local
    return Path(__file__).resolve().parent.parent / "checkpoints"


def available_checkpoints(game: str | None = None) -> list[str]:
    """Names (``"the_brain/ppo_3p"``) of the checkpoints under :func:`checkpoints_dir`."""
    root = checkpoints_dir()
    if not root.is_dir():
        return []
    names = []
    for zp in sorted(root.rglob("*.zip")):
        if zp.with_suffix(".json").is_file():
            name = zp.relative_to(root).with_suffix("").as_posix()
            if game is None or name.split("/")[0] == game.removesuffix("_v0"):
                names.append(name)
    return names


def resolve_checkpoint(spec: str) -> Path | None:
    """A spec naming a checkpoint -> the path without suffix, or None."""
    candidates = [Path(spec)]
    if not Path(spec).is_absolute():
        candidates.append(checkpoints_dir() / spec)
    for c in candidates:
        zip_path, _ = checkpoint_paths(c)
        if zip_path.is_file():
            return zip_path.with_suffix("")
    return None


def spec_help(game: str | None = None) -> str:
    names = available_checkpoints(game)
    shown = ", ".join(repr(n) for n in names) if names else "none found"
    return (
        "allowed policy specs: " + ", ".join(repr(k) for k in BUILTIN_SPECS)
        + ", a checkpoint path (NAME.zip with NAME.json "
        f"beside it), or a checkpoint name under {checkpoints_dir()} ({shown})"
    )


def make_policy(spec, game: str, config: dict | None = None, *, seed: int | None = None,
                deterministic: bool = True):  # fmt: skip
    """Resolve ``spec`` (a Policy or a spec string) to a fresh policy for ``game``."""
    if not isinstance(spec, str):
        if hasattr(spec, "act") and hasattr(spec, "reset"):
            return spec
        raise PolicySpecError(f"not a policy or a policy spec: {spec!r}; {spec_help(game)}")
    key = spec.strip()
    if key in BUILTIN_SPECS:
        import importlib

        module, factory = BUILTIN_SPECS[key].split(":")
        return getattr(importlib.import_module(module), factory)(game, config or {}, seed=seed)
    path = resolve_checkpoint(key)
    if path is not None:
        return load_policy(path, deterministic=deterministic, game=game, config=config, seed=seed,
                           name=key)  # fmt: skip
    if key.endswith(".zip") or "/" in key or os.sep in key:
        zip_path, _ = checkpoint_paths(key)
        raise PolicySpecError(f"no checkpoint at {key!r} ({zip_path} not found); {spec_help(game)}")
    raise PolicySpecError(f"unknown policy spec {spec!r}; {spec_help(game)}")


def spec_label(spec) -> str:
    """A short, stable name for a spec (used as the key of evaluation results)."""
    if isinstance(spec, str):
        return spec.strip()
    return str(getattr(spec, "name", type(spec).__name__))

