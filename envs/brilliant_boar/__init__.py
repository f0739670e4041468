"""Brainwaves: The Brilliant Boar (``brilliant_boar_v0``): a 1-4 player memory game in
which you cannot see your own hand (a working-memory benchmark)."""

from ..core.solo import solo_factory
from ..core.spec import GameSpec
from ..core.wrappers import env_factory
from . import rules
from .env import raw_env
from .history import HistoryWrapper

env = env_factory(raw_env)
solo_env = solo_factory(raw_env, "braincards/BrilliantBoarSolo-v0")  # solo: R-W8


def scores(state) -> list[float]:
    """Points per seat (R-W7; solo R-W8), as the spec's floats."""
    return [float(x) for x in rules.scores(state)]


SPEC = GameSpec(
    id="brilliant_boar_v0",
    title="Brainwaves: The Brilliant Boar",
    cooperative=False,
    players=(1, rules.MAX_PLAYERS),
    raw_env=raw_env,
    env=env,
    decisions=rules.DECISIONS,
    scores=scores,
    score_label="points",
    solo_wins=False,  # R-W8: the solo game is scored, never won or lost
    history_wrapper=HistoryWrapper,
    reward_options=("reward", "normalize"),
)

__all__ = ["SPEC", "HistoryWrapper", "env", "raw_env", "solo_env"]
