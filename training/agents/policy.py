"""What sits at a table: the :class:`Policy` protocol, :class:`RandomPolicy`, and the small
helpers every policy shares (the legal actions of an observation, labels).

A policy answers ``act(observation, agent=None) -> int`` with a legal action (it reads
``observation["action_mask"]``) and is told ``reset(seed=None)`` at the start of every game
(recurrent state, memory, and the policy's own random generator are reset there, so a game's
play depends only on the seeds it is given, never on earlier games).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


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



def history_k_of(policies) -> int:
    """The longest event history any of ``policies`` reads (0: none needs the wrapper)."""
    return max((int(getattr(p, "history_k", 0) or 0) for p in policies), default=0)


def spec_label(spec) -> str:
    """A short, stable name for a spec (used as the key of evaluation results)."""
    if isinstance(spec, str):
        return spec.strip()
    return str(getattr(spec, "name", type(spec).__name__))
