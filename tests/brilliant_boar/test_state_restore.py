"""State restore refuses every table Brilliant Boar's rules cannot be played on (issue 9):
mutated real tables are refused with a ValueError/TypeError naming the field, or they
play on to their end."""

from __future__ import annotations

import random

import pytest

from braincards.envs.brilliant_boar import rules
from braincards.envs.brilliant_boar.env import raw_env
from tests.common import HUGE, fuzz_state_restore, real_states


def _mid_game() -> dict:
    s = rules.new_game(rules.Config(num_players=3), random.Random(2))
    rng = random.Random(0)
    for _ in range(20):
        rules.apply_action(s, rng.choice(rules.legal_actions(s)))
    assert not rules.is_terminal(s)
    return s.to_dict()


@pytest.mark.parametrize(
    "field,value",
    [
        ("pile", [HUGE]),
        ("pile", {"a": 1}),
        ("hands", [[0], 5, []]),
        ("hands", None),
        ("won", [[1.0], [], []]),
        ("middle", ["wolf"]),
        ("errors", None),
        ("motifs", None),
        ("motifs", [0, 1, 2, 3, 4, 5, 6, 7, HUGE]),
        ("motifs", {"wolf": 1}),
        ("pending", HUGE),
        ("pending", 1.0),
        ("seat", -1),
        ("phase", HUGE),
        ("level", "4"),
        ("name_card", 0),
        ("turn", None),
    ],
)
def test_wrong_field_values_raise_value_or_type_errors_naming_the_field(field, value):
    d = dict(_mid_game(), **{field: value})
    with pytest.raises((ValueError, TypeError), match=field):
        rules.State.from_dict(d)


CONFIGS = [dict(num_players=1), dict(num_players=2, name_card=True), dict(num_players=3, level=2),
           dict(num_players=4)]


@pytest.mark.parametrize("cfg", CONFIGS)
def test_property_mutated_real_tables_are_refused_or_play_to_the_end(cfg):
    """Thousands of random edits of real tables (cards moved between piles, fields out of
    range, of the wrong type, huge): each is refused with a ValueError/TypeError, or the
    restored game keeps its cards, always offers a legal action (R-W4) and ends (R-W7/R-W8)."""
    n = cfg["num_players"]
    states = real_states(lambda: raw_env(**cfg), 3, seed=n, every=5)
    stats = fuzz_state_restore(lambda: raw_env(max_cycles=60, **cfg), states, 1000, seed=300 + n)
    assert stats.refused > 300 and stats.accepted > 50  # both paths are exercised
