"""A braincards game as a plain single-agent gymnasium env: the public view for your own
trainer (a CleanRL-style script, any library that takes a ``gymnasium.Env``).

:func:`gym_env` (or :class:`GymView`) shows one learner's decisions of a game:

* ``mode="team"`` (the default for cooperative games): the learner plays every seat, one
  shared policy; each step is the decision of whichever seat moves, seen from that seat, and
  the reward is the team's. Self-play for The Brain;
* ``mode="seat"`` (the default for competitive games): the learner plays one seat, drawn
  each game; every other seat is played inside the env by a policy drawn from
  ``opponents`` (policy specs, optionally weighted: ``[("heuristic", 3), ("random", 1)]``).

The observation is a dict, as PettingZoo's: ``{"observation": float32 vector,
"action_mask": int8 vector}``, so the mask travels with the observation through gymnasium's
vector envs (``SyncVectorEnv`` / ``AsyncVectorEnv`` stack both keys). ``action_masks()``
gives the same mask as booleans (sb3-contrib's convention). At the end of a game ``info``
holds ``episode_return`` (the game's, unshaped) and ``win``. ``reset(seed=s)`` makes the
deal, the learner's seat and the opponents' draws a function of ``s``.

It is the training backends' own view (:class:`~.learner_env.LearnerEnv`) with the mask put
into the observation: what you train on here is what ``braincards train`` trains on.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from gymnasium import spaces

from braincards.envs import table_config

from .learner_env import LearnerEnv, OpponentPool


def _sources(opponents) -> list[tuple[str, float]]:
    """``opponents`` as (spec, weight) pairs: a spec string, a list of specs, or of pairs."""
    if isinstance(opponents, str):
        opponents = [opponents]
    pairs = []
    for item in opponents:
        spec, weight = (item, 1.0) if isinstance(item, str) else tuple(item)
        if not isinstance(spec, str):
            raise ValueError(f"opponent {item!r}: give a policy spec string, or (spec, weight)")
        pairs.append((spec, float(weight)))
    return pairs


class GymView(LearnerEnv):
    """One game of ``game`` as a single-agent gymnasium env (see the module docstring).

    ``options`` are the game's env options (``num_players=3, difficulty="robber"``), checked
    by the game; ``opponents`` (seat mode) defaults to the game's baseline policy;
    ``history_k`` adds the last k public events to the observation where the game has a
    history wrapper; ``shaping`` credits c x the game's progress (a training signal only).
    """

    def __init__(self, game: str, *, mode: str | None = None,
                 opponents: str | Sequence | None = None, history_k: int = 0,
                 shaping: float = 0.0, **options):
        table = table_config(game, options)
        spec = table.spec
        mode = mode if mode is not None else ("team" if spec.cooperative else "seat")
        if mode == "team" and opponents is not None:
            raise ValueError("opponents are for mode='seat'; in team mode the learner plays every seat")
        pool = None
        if mode == "seat":
            pool = OpponentPool(table, None, _sources(opponents or spec.baseline))
        super().__init__(table, mode=mode, pool=pool, history_k=history_k, shaping=shaping)
        n = self.action_space.n
        self.observation_space = spaces.Dict({
            "observation": self.observation_space,
            "action_mask": spaces.Box(0, 1, (n,), np.int8),
        })

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = super().reset(seed=seed, options=options)
        return self._with_mask(obs), info

    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        return self._with_mask(obs), reward, terminated, truncated, info

    def _with_mask(self, observation: np.ndarray) -> dict:
        return {"observation": observation, "action_mask": self._mask.copy()}


def gym_env(game: str, *, mode: str | None = None, opponents: str | Sequence | None = None,
            history_k: int = 0, shaping: float = 0.0, **options) -> GymView:
    """The single-agent gymnasium view of ``game`` (see :class:`GymView`)::

        env = gym_env("the_brain_v0", num_players=3, difficulty="robber")      # team
        env = gym_env("oh_my_brain_v0", num_players=2, opponents="heuristic")  # seat
    """
    return GymView(game, mode=mode, opponents=opponents, history_k=history_k, shaping=shaping,
                   **options)
