"""A one-agent braincards game as a gymnasium Env (for the solo variants)."""

from __future__ import annotations

import numbers

import gymnasium
import numpy as np

from .base import CardGameEnv


class SoloGymEnv(gymnasium.Env):
    """Wraps a one-agent :class:`CardGameEnv` as a ``gymnasium.Env``.

    Observations are the env's observation vector; ``info["action_mask"]`` and
    ``action_masks()`` (sb3-contrib's MaskablePPO convention) give the legal actions.
    The reward of a step is what the game paid for it (R-B9 / R-W8: at the end).
    """

    def __init__(self, game: CardGameEnv):
        if len(game.possible_agents) != 1:
            raise ValueError(
                f"SoloGymEnv needs a one-agent game, got {len(game.possible_agents)} agents"
            )
        self.game = game
        self.agent = game.possible_agents[0]
        self.observation_space = game.observation_space(self.agent)["observation"]
        self.action_space = game.action_space(self.agent)
        self.metadata = {"render_modes": list(game.metadata["render_modes"])}
        self.render_mode = game.render_mode
        self._mask = np.zeros(self.action_space.n, np.int8)

    def _observe(self):
        obs = self.game.observe(self.agent)
        self._mask = obs["action_mask"]
        return obs["observation"], {"action_mask": self._mask}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.game.reset(seed=seed, options=options)
        return self._observe()

    def step(self, action):
        self.game.step(action)
        _, reward, terminated, truncated, _ = self.game.last(observe=False)
        obs, info = self._observe()
        return obs, float(reward), bool(terminated), bool(truncated), info

    def action_masks(self) -> np.ndarray:
        return self._mask.astype(bool)

    def render(self):
        return self.game.render()

    def close(self):
        self.game.close()


def solo_factory(raw_env_cls, gym_id: str):
    """A game's ``solo_env(**config)``: its one-player game as a :class:`SoloGymEnv`
    (registered with gymnasium as ``gym_id``)."""

    def solo_env(**config) -> SoloGymEnv:
        if "num_players" in config:
            n = config["num_players"]
            if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n != 1:
                raise ValueError(
                    f"num_players={n!r} is not allowed: the solo env always has num_players=1 "
                    "(leave the option out or pass the integer 1)"
                )
        config["num_players"] = 1
        return SoloGymEnv(raw_env_cls(**config))

    solo_env.__doc__ = f"The solo game as a gymnasium Env: ``{gym_id}``."
    return solo_env
