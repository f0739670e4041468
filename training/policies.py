"""Policies: anything that can sit at a braincards table.

A policy answers ``act(observation, agent=None) -> int`` with a legal action (it reads
``observation["action_mask"]``) and is told ``reset(seed=None)`` at the start of every game
(recurrent state, memory, and the policy's own random generator are reset there, so a game's
play depends only on the seeds it is given, never on earlier games).

Implementations:

* :class:`RandomPolicy` - uniform over the legal actions.
* one heuristic per game (``braincards.training.heuristics``): rule-based players that read
  only their observation, through the env's ``observation_layout()``.
* :class:`CheckpointPolicy` - a trained policy network (MaskablePPO, RecurrentPPO or an
  RLlib export) saved as ``NAME.zip`` + ``NAME.json`` (:mod:`braincards.training.checkpoint`:
  tensors and JSON, never a pickle) and read back with :func:`load_policy`.

Specs: wherever a policy is accepted, a string works too (:func:`make_policy`):
``"random"``, ``"heuristic"``, a checkpoint path (``runs/x/ppo.zip``, with or without
``.zip``), or a checkpoint name (``"the_brain/ppo_3p"``, see :func:`checkpoint_dirs`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .checkpoint import (  # noqa: F401 - re-exported: the checkpoint API predates its module
    CheckpointError,
    check_env_options,
    check_fits,
    checkpoint_paths,
    env_spaces,
    load_checkpoint_policy,
    read_metadata,
    save_checkpoint,
)

# spec name -> "module:factory" of the built-in (non-checkpoint) policies; a factory is
# called as factory(game, config, seed=seed) and returns a fresh Policy
BUILTIN_SPECS: dict[str, str] = {
    "random": "braincards.training.policies:_random_spec",
    "heuristic": "braincards.training.heuristics:make_heuristic",
    "greedy": "braincards.training.heuristics.the_brain_greedy:make_greedy",  # The Brain
    "pimc": "braincards.training.search.the_brain:make_pimc",  # The Brain
}
# built-in specs that take parameters (``NAME:KEY=VALUE,...``): name -> "module:builder",
# builder(params_text) returns a factory like the ones above
PARAMETERISED_SPECS: dict[str, str] = {
    "pimc": "braincards.training.search.the_brain:pimc_spec",  # pimc:samples=16,nodes=2000
    "heuristic": "braincards.training.heuristics:heuristic_spec",  # Brilliant Boar: heuristic:window=16
}
SPEC_PARAMETERS = "'pimc:samples=N,nodes=N' (The Brain), 'heuristic:window=K' (Brilliant Boar)"


class PolicySpecError(ValueError):
    """A policy spec string that names nothing we can load."""


@runtime_checkable
class Policy(Protocol):
    """What sits at a seat. ``act`` must return an action whose mask entry is 1.

    A policy that remembers its own moves (Brilliant Boar's heuristic) may also define
    ``played(agent, action)``: told the move actually made when it was only asked for a
    label and another move was played (DAgger pretraining does this)."""

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
_POLICY_CACHE: dict[tuple, tuple] = {}


def _load_network(path) -> tuple[dict, Any]:
    """(metadata, policy network) of a checkpoint, cached by file identity (the archive and
    its metadata: a changed file is read again)."""
    zip_path, json_path = checkpoint_paths(path)
    try:
        key = tuple((str(p.resolve()), p.stat().st_mtime_ns, p.stat().st_size) for p in (zip_path, json_path))
    except OSError:
        key = None  # a missing file: read_metadata names it
    if key is None or key not in _POLICY_CACHE:
        loaded = load_checkpoint_policy(path)
        if key is None:
            return loaded
        _POLICY_CACHE[key] = loaded
    return _POLICY_CACHE[key]


class CheckpointPolicy:
    """A trained policy network at a seat. ``deterministic=True`` plays the most likely legal
    action; otherwise it samples from the masked distribution with its own seeded generator.

    ``network`` is an sb3-contrib policy module (MaskableActorCriticPolicy or
    RecurrentActorCriticPolicy) in eval mode. ``history_k`` > 0: the network reads the
    observation behind the game's history wrapper with k slots (``observation_size`` floats,
    a prefix of any longer history observation)."""

    def __init__(self, network, metadata: dict, *, deterministic: bool = True,
                 seed: int | None = None, name: str = "checkpoint"):  # fmt: skip
        import torch

        self._torch = torch
        self.network = network
        self.metadata = metadata
        self.deterministic = deterministic
        self.name = name
        self.recurrent = metadata["policy"]["class"] == "RecurrentActorCriticPolicy"
        self.history_k = int(metadata.get("history_k") or 0)
        self.observation_size = int(np.prod(metadata["observation_shape"]))
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
        policy = self.network
        x = torch.as_tensor(obs[: self.observation_size], dtype=torch.float32).reshape(1, -1)
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
        obs = observation["observation"]
        if obs.shape[-1] < self.observation_size:
            raise ValueError(
                f"policy {self.name} reads {self.observation_size} observation floats but got "
                f"{obs.shape[-1]}" + (f" (it needs the history wrapper with k={self.history_k})"
                                      if self.history_k else "")  # fmt: skip
            )
        legal = legal_actions(observation)
        logits = self._logits(obs)[legal]
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
    """Load ``NAME.zip`` + ``NAME.json`` as a policy (tensors and JSON only: nothing is
    unpickled, see :mod:`braincards.training.checkpoint`).

    With ``game`` (and ``config``) given, refuses a checkpoint trained for another game or
    whose observation/action spaces differ from that env's. ``torch_threads`` sets torch's
    thread count (default 1; None leaves it alone). Raises :class:`CheckpointError` with a
    clear message for a missing, corrupt or unsafe file or a checkpoint that does not fit.
    """
    meta = read_metadata(path)
    zip_path, _ = checkpoint_paths(path)
    check_fits(meta, game, config, where=f"checkpoint {zip_path}")
    if torch_threads is not None:
        set_torch_threads(torch_threads)
    meta, network = _load_network(path)
    return CheckpointPolicy(network, meta, deterministic=deterministic, seed=seed,
                            name=name or str(path))  # fmt: skip


def history_k_of(policies) -> int:
    """The longest event history any of ``policies`` reads (0: none needs the wrapper)."""
    return max((int(getattr(p, "history_k", 0) or 0) for p in policies), default=0)


# ---------------------------------------------------------------------------- specs
def shipped_checkpoints_dir() -> Path:
    """The checkpoints shipped with the package (``braincards.checkpoints``)."""
    import braincards.checkpoints as shipped

    return Path(next(iter(shipped.__path__)))


def checkpoint_dirs() -> list[Path]:
    """Where checkpoint *names* are looked up, in order: the package's own checkpoints, then
    each folder of ``$BRAINCARDS_CHECKPOINTS`` (``os.pathsep``-separated). The current
    directory is never searched for a name, so a ``./checkpoints`` folder cannot stand in
    for a shipped policy; give a path (``./checkpoints/x.zip``) to load one from there."""
    dirs = [shipped_checkpoints_dir()]
    for part in os.environ.get("BRAINCARDS_CHECKPOINTS", "").split(os.pathsep):
        if part.strip():
            dirs.append(Path(part.strip()))
    return dirs


def available_checkpoints(game: str | None = None) -> list[str]:
    """Checkpoint names (``"the_brain/ppo_3p"``) under :func:`checkpoint_dirs`, for ``game``
    (read from each checkpoint's metadata, so flat and nested layouts both list)."""
    names: list[str] = []
    for root in checkpoint_dirs():
        if not root.is_dir():
            continue
        for zp in sorted(root.rglob("*.zip")):
            name = zp.relative_to(root).with_suffix("").as_posix()
            if name in names or not zp.with_suffix(".json").is_file():
                continue
            if game is not None:
                try:
                    if read_metadata(zp).get("game") != game:
                        continue
                except CheckpointError:
                    continue
            names.append(name)
    return names


def resolve_checkpoint(spec: str) -> Path | None:
    """A spec naming a checkpoint -> the path without suffix, or None. A name (``the_brain/
    ppo_3p``) is looked up in :func:`checkpoint_dirs` first; a spec that is not a known name
    is taken as a path (relative to the current directory)."""
    spec = os.path.expanduser(spec)
    if not Path(spec).is_absolute() and not spec.startswith("."):
        for root in checkpoint_dirs():
            zip_path, _ = checkpoint_paths(root / spec)
            if zip_path.is_file():
                return zip_path.with_suffix("")
    zip_path, _ = checkpoint_paths(spec)
    if zip_path.is_file():
        return zip_path.with_suffix("")
    return None


def spec_help(game: str | None = None) -> str:
    names = available_checkpoints(game)
    shown = ", ".join(repr(n) for n in names) if names else "none found"
    return (
        "allowed policy specs: " + ", ".join(repr(k) for k in BUILTIN_SPECS)
        + f" (with parameters: {SPEC_PARAMETERS})"
        + ", a checkpoint path (NAME.zip with NAME.json "
        f"beside it), or a checkpoint name under {' or '.join(str(d) for d in checkpoint_dirs())} "
        f"({shown})"
    )


def make_policy(spec, game: str, config: dict | None = None, *, seed: int | None = None,
                deterministic: bool = True):  # fmt: skip
    """Resolve ``spec`` (a Policy or a spec string) to a fresh policy for ``game``."""
    if not isinstance(spec, str):
        if hasattr(spec, "act") and hasattr(spec, "reset"):
            return spec
        raise PolicySpecError(f"not a policy or a policy spec: {spec!r}; {spec_help(game)}")
    import importlib

    key = spec.strip()
    if key in BUILTIN_SPECS:
        module, factory = BUILTIN_SPECS[key].split(":")
        return getattr(importlib.import_module(module), factory)(game, config or {}, seed=seed)
    name, sep, params = key.partition(":")
    if sep and name in BUILTIN_SPECS:
        if name not in PARAMETERISED_SPECS:
            raise PolicySpecError(f"the {name!r} policy takes no parameters (got {spec!r}); "
                                  f"parameters go with: {SPEC_PARAMETERS}")  # fmt: skip
        module, builder = PARAMETERISED_SPECS[name].split(":")
        try:
            factory = getattr(importlib.import_module(module), builder)(params)
            return factory(game, config or {}, seed=seed)
        except PolicySpecError:
            raise
        except ValueError as err:
            raise PolicySpecError(f"bad policy spec {spec!r}: {err}") from None
    path = resolve_checkpoint(key)
    if path is not None:
        return load_policy(path, deterministic=deterministic, game=game, config=config, seed=seed,
                           name=key)  # fmt: skip
    if key.endswith(".zip") or "/" in key or os.sep in key:
        zip_path, _ = checkpoint_paths(key)
        raise PolicySpecError(f"no checkpoint at {key!r} ({zip_path} not found); {spec_help(game)}")
    raise PolicySpecError(f"unknown policy spec {spec!r}; {spec_help(game)}")


def parse_spec_params(text: str, allowed: dict, spec: str = "policy") -> dict:
    """The parameters of a spec string, ``"samples=16,nodes=2000"`` -> ``{"samples": 16,
    "nodes": 2000}``; ``allowed`` maps each name to its type (ints, each >= 1). ``spec``
    names the policy in the errors."""
    out = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        if "=" not in item:
            raise ValueError(f"bad {spec} parameter {item!r}: expected NAME=VALUE, e.g. "
                             f"{spec}:{next(iter(allowed))}=4")  # fmt: skip
        key, value = (x.strip() for x in item.split("=", 1))
        if key not in allowed:
            raise ValueError(f"unknown {spec} parameter {key!r}; allowed: {sorted(allowed)}")
        try:
            v = allowed[key](value)
        except ValueError:
            raise ValueError(f"{spec} parameter {key}={value!r} must be an integer") from None
        if v < 1:
            raise ValueError(f"{spec} parameter {key}={v} must be >= 1")
        out[key] = v
    return out


def spec_label(spec) -> str:
    """A short, stable name for a spec (used as the key of evaluation results)."""
    if isinstance(spec, str):
        return spec.strip()
    return str(getattr(spec, "name", type(spec).__name__))

