"""The Brain (``the_brain_v0``): cooperative, 1-4 players, hidden hands, no communication."""

from ..core.solo import solo_factory
from ..core.wrappers import env_factory
from .env import raw_env

env = env_factory(raw_env)
solo_env = solo_factory(raw_env, "braincards/TheBrainSolo-v0")  # solo: R-B3

__all__ = ["env", "raw_env", "solo_env"]
