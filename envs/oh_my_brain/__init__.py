"""Oh My Brain (``oh_my_brain_v0``): competitive shedding game, 2-5 players, dice, rounds."""

from ..core.wrappers import env_factory
from .env import raw_env

env = env_factory(raw_env)

__all__ = ["env", "raw_env"]
