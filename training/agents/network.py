"""Trained networks at a table: :class:`CheckpointPolicy` and :func:`load_policy`.

A checkpoint (``NAME.zip`` + ``NAME.json``, :mod:`braincards.training.agents.checkpoint`:
tensors and JSON, never a pickle) is rebuilt into its sb3-contrib policy network, which then
plays the most likely legal action (or samples from the masked distribution with its own
seeded generator). Networks are cached by file identity, so seating the same checkpoint at
many tables reads it once.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np
import torch

from .checkpoint import (
    CheckpointConfigWarning,
    check_fits,
    checkpoint_paths,
    config_differences,
    load_checkpoint_policy,
    read_metadata,
)
from .locations import resolve_checkpoint
from .logits import action_log_probs
from .policy import legal_actions

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
                 seed: int | None = None, name: str = "checkpoint"):
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
        policy = self.network
        x = torch.as_tensor(obs[: self.observation_size], dtype=torch.float32).reshape(1, -1)
        with torch.no_grad():
            if not self.recurrent:
                return action_log_probs(policy, x)[0].numpy().astype(np.float64)
            if self._state is None:
                shape = policy.lstm_hidden_state_shape
                self._state = (torch.zeros(shape[0], 1, shape[2]), torch.zeros(shape[0], 1, shape[2]))
            start = torch.tensor([1.0 if self._start else 0.0])
            dist, self._state = policy.get_distribution(x, self._state, start)
            self._start = False
            return dist.distribution.logits[0].numpy().astype(np.float64)

    def ranked(self, observation: dict) -> list[int]:
        """The legal actions, most likely first (ties in action order)."""
        return self.ranked_with_probabilities(observation)[0]

    def ranked_with_probabilities(self, observation: dict) -> tuple[list[int], np.ndarray]:
        """The legal actions, most likely first (ties in action order), and the network's
        probability of each (a softmax over the legal actions only), in the same order."""
        legal, logits = self._legal_logits(observation)
        order = np.argsort(-logits, kind="stable")
        p = np.exp(logits[order] - logits[order[0]])
        return [int(a) for a in legal[order]], p / p.sum()

    def _checked(self, observation: dict) -> np.ndarray:
        obs = observation["observation"]
        if obs.shape[-1] < self.observation_size:
            raise ValueError(
                f"policy {self.name} reads {self.observation_size} observation floats but got "
                f"{obs.shape[-1]}" + (f" (it needs the history wrapper with k={self.history_k})"
                                      if self.history_k else "")
            )
        return obs

    def _legal_logits(self, observation: dict) -> tuple[np.ndarray, np.ndarray]:
        """The legal actions and the network's logits of them (a ValueError when the network
        gives a non-finite one: broken weights must not silently play the first action)."""
        obs = self._checked(observation)
        legal = legal_actions(observation)
        logits = self._logits(obs)[legal]
        if not np.isfinite(logits).all():
            raise ValueError(f"policy {self.name} gives non-finite logits {logits[~np.isfinite(logits)][:3].tolist()} "
                             f"for this observation (legal actions {legal.tolist()[:8]}): its weights are broken")
        return legal, logits

    def act(self, observation: dict, agent: str | None = None) -> int:
        legal, logits = self._legal_logits(observation)
        if self.deterministic:
            return int(legal[int(np.argmax(logits))])
        p = np.exp(logits - logits.max())
        p /= p.sum()
        return int(legal[self._rng.choice(legal.size, p=p)])


def set_torch_threads(threads: int = 1) -> None:
    """Tiny-batch inference is several times faster on one thread than on torch's default."""
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
    unpickled, see :mod:`braincards.training.agents.checkpoint`). ``path`` is a checkpoint
    name (``"the_brain/ppo_3p"``, looked up as :func:`~.locations.resolve_checkpoint` does, so
    it works from any folder) or a path.

    With ``game`` (and ``config``) given, refuses a checkpoint trained for another game or
    whose observation/action spaces differ from that env's; without them, the checkpoint must
    fit the game and options it was trained for. When ``config`` decides another game than
    the one it was trained for (other player count, level, difficulty...), a
    :class:`~.checkpoint.CheckpointConfigWarning` names the differences. ``torch_threads`` sets torch's
    thread count (default 1; None leaves it alone). Raises :class:`CheckpointError` with a
    clear message for a missing, corrupt or unsafe file or a checkpoint that does not fit.
    """
    given, path = path, resolve_checkpoint(str(path)) or path
    meta = read_metadata(path)
    zip_path, _ = checkpoint_paths(path)
    # without a game, the checkpoint must still fit its own game and env config: that bounds
    # its spaces exactly as seating it at a table does
    check_fits(meta, game or meta["game"], config, where=f"checkpoint {zip_path}")
    if config is not None:
        diffs = config_differences(meta, config)
        if diffs:
            warnings.warn(CheckpointConfigWarning(
                f"checkpoint {name or given} was trained for other options than this table's: "
                + "; ".join(diffs)), stacklevel=2)
    if torch_threads is not None:
        set_torch_threads(torch_threads)
    meta, network = _load_network(path)
    return CheckpointPolicy(network, meta, deterministic=deterministic, seed=seed,
                            name=name or str(given))
