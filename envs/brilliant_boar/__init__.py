"""Brainwaves: The Brilliant Boar (``brilliant_boar_v0``): a 1-4 player memory game in
which you cannot see your own hand (a working-memory benchmark)."""

from ..core.solo import SoloGymEnv
from ..core.wrappers import OrderEnforcing
from .env import raw_env
from .history import HistoryWrapper


def env(**config):
    """The wrapped AEC env (PettingZoo's order enforcing checks over :class:`raw_env`)."""
    return OrderEnforcing(raw_env(**config))


def solo_env(**config) -> SoloGymEnv:
    """The solo game (R-W8) as a gymnasium Env: ``braincards/BrilliantBoarSolo-v0``."""
    if config.get("num_players", 1) != 1:
        raise ValueError(f"the solo env has num_players=1, got {config['num_players']!r}")
    config["num_players"] = 1
    return SoloGymEnv(raw_env(**config))


__all__ = ["HistoryWrapper", "env", "raw_env", "solo_env"]
