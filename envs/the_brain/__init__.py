"""The Brain (``the_brain_v0``): cooperative, 1-4 players, hidden hands, no communication."""

from ..core.solo import solo_factory
from ..core.spec import GameSpec
from ..core.wrappers import env_factory
from . import rules
from .env import raw_env

env = env_factory(raw_env)
solo_env = solo_factory(raw_env, "braincards/TheBrainSolo-v0")  # solo: R-B3

SPEC = GameSpec(
    id="the_brain_v0",
    title="The Brain",
    cooperative=True,
    players=(1, rules.MAX_PLAYERS),
    raw_env=raw_env,
    env=env,
    decisions=rules.DECISIONS,
    scores=rules.scores,
    progress=rules.progress,
    score_label="cards played out",
    variant_option="difficulty",
    variant_names=tuple(rules.DIFFICULTIES),
)

__all__ = ["SPEC", "env", "raw_env", "solo_env"]
