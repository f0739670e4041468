"""The Brain (``the_brain_v0``): cooperative, 1-4 players, hidden hands, no communication."""

from ..core.solo import SoloGymEnv
from ..core.wrappers import OrderEnforcing
from .env import raw_env


def env(**config):
    """The wrapped AEC env (PettingZoo's order enforcing checks over :class:`raw_env`)."""
    return OrderEnforcing(raw_env(**config))


def solo_env(**config) -> SoloGymEnv:
    """The solo game (R-B3) as a gymnasium Env: ``braincards/TheBrainSolo-v0``."""
    if config.get("num_players", 1) != 1:
        raise ValueError(f"the solo env has num_players=1, got {config['num_players']!r}")
    config["num_players"] = 1
    return SoloGymEnv(raw_env(**config))


__all__ = ["env", "raw_env", "solo_env"]
