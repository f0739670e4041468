"""Brainwaves: The Brilliant Boar (``brilliant_boar_v0``): a 1-4 player memory game in
which you cannot see your own hand (a working-memory benchmark)."""

from ..core.solo import solo_factory
from ..core.wrappers import env_factory
from .env import raw_env
from .history import HistoryWrapper

env = env_factory(raw_env)
solo_env = solo_factory(raw_env, "braincards/BrilliantBoarSolo-v0")  # solo: R-W8

__all__ = ["HistoryWrapper", "env", "raw_env", "solo_env"]
