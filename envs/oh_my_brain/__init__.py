"""Oh My Brain (``oh_my_brain_v0``): competitive shedding game, 2-5 players, dice, rounds."""

from ..core.spec import GameSpec
from ..core.wrappers import env_factory
from . import rules
from .env import raw_env

env = env_factory(raw_env)

SPEC = GameSpec(
    id="oh_my_brain_v0",
    title="Oh My Brain",
    cooperative=False,
    players=(rules.MIN_PLAYERS, rules.MAX_PLAYERS),
    raw_env=raw_env,
    env=env,
    decisions=rules.DECISIONS,
    scores=rules.scores,
    score_label="brains",
    # what a seat drafts, keeps, refills and gives is hidden from the other seats
    private_decisions=frozenset({"draft", "keep", "refill", "give_card"}),
    reward_options=("brain_shaping",),
)

__all__ = ["SPEC", "env", "raw_env"]
