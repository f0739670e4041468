"""Oh My Brain (``oh_my_brain_v0``): competitive shedding game, 2-5 players, dice, rounds."""

from ..core.wrappers import OrderEnforcing
from .env import raw_env


def env(**config):
    """The wrapped AEC env (PettingZoo's order enforcing checks over :class:`raw_env`)."""
    return OrderEnforcing(raw_env(**config))


__all__ = ["env", "raw_env"]
