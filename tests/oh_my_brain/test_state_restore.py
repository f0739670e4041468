"""State restore refuses every table Oh My Brain's rules cannot be played on (issue 9):
``State.from_dict`` and ``reset(options={"state": ...})`` raise a ValueError (or
TypeError) naming the field, before allocating anything the size of a bad count, and
every table they accept plays on to its end."""

from __future__ import annotations

import random
import tracemalloc

import pytest

from braincards.envs.oh_my_brain import rules
from braincards.envs.oh_my_brain.env import raw_env
from tests.common import HUGE, fuzz_state_restore, real_states

COUNTS = ("hands", "graves", "discard")


def _draft_table(n: int = 3) -> dict:
    """A real table in the middle of the first draft (R-O3)."""
    s = rules.new_game(rules.Config(num_players=n), random.Random(1))
    rules.apply_action(s, rules.legal_actions(s)[0])
    assert s.phase == rules.DRAFT and s.draft_count == 2
    return s.to_dict()


def _refused(data: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        rules.State.from_dict(data)
    env = raw_env(num_players=data["num_players"], starting_brains=data["starting_brains"])
    with pytest.raises(ValueError, match=match):
        env.reset(options={"state": data})


def test_RO3_mid_draft_table_whose_reserve_cannot_feed_the_rest_of_the_draft_is_refused():
    """R-O3: every seat receives three batches of three cards from the reserve; a table
    with too few reserve cards left would deal an empty batch (a live game, empty mask)."""
    d = _draft_table(3)
    assert rules.State.from_dict(d)
    need = 3 * (9 - d["draft_count"])
    moved = d["reserve"][need - 1 :]  # one card too few stays in the reserve
    d["reserve"] = d["reserve"][: need - 1]
    for v in moved:
        d["discard"][v] += 1
    _refused(d, "reserve")


def test_RO3_the_draft_comes_before_any_play():
    """R-O3: a round starts with the draft; nothing lies on the horde or the discard pile
    yet, and every seat holds exactly what its batches gave it (1 to the graveyard, 2 to
    the hand per batch)."""
    d = _draft_table(3)
    v = d["reserve"].pop()
    _refused(dict(d, horde=[v]), "draft")
    discard = [0] * 20
    discard[v] += 1
    _refused(dict(d, discard=discard), "draft")
    d["hands"][2][v] += 1  # seat 2 has had no batch yet
    _refused(d, "draft")


@pytest.mark.parametrize("field", ["hands", "graves", "discard", "extras", "copies"])
def test_huge_counts_are_refused_before_anything_of_their_size_is_allocated(field):
    """issue 9: 10**8 in a count allocated gigabytes before the table was refused."""
    d = _draft_table(2)
    if field == "hands":
        d["hands"][0][5] = HUGE
    elif field == "graves":
        d["graves"][1][7] = HUGE
    elif field == "discard":
        d["discard"][3] = HUGE
    elif field == "extras":
        d["extras"] = HUGE
    else:
        d["copies"][4] = HUGE
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=field):
            rules.State.from_dict(d)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000, f"{peak} bytes allocated to refuse {field}"


@pytest.mark.parametrize(
    "field,value",
    [
        ("hands", [[0] * 20, 5]),
        ("hands", [[0] * 20, {"a": 1}]),
        ("graves", None),
        ("discard", [2**70] + [0] * 19),
        ("reserve", [1.5]),
        ("horde", ["3"]),
        ("pending", [None]),
        ("brains", 9),
        ("dice", [[1]]),
        ("copies", [3] * 19),
        ("marshmallows", [[1]]),
        ("marshmallows", None),
        ("rng_key", 1.0),
        ("spider", 0),
        ("phase", "play"),
        ("seat", None),
    ],
)
def test_wrong_field_types_raise_value_or_type_errors_naming_the_field(field, value):
    d = _draft_table(2)
    d[field] = value
    with pytest.raises((ValueError, TypeError), match=field):
        rules.State.from_dict(d)


def test_RO5_keep_and_restart_decisions_need_the_discarded_horde():
    """R-O5: a pass discards the horde before the two cards are drawn, so the keep and
    restart decisions always face an empty horde (with a horde of 18 on the table the
    restart after the keep had no legal action: a live game with an empty mask)."""
    s = rules.new_game(rules.Config(num_players=2), random.Random(4))
    while s.phase != rules.KEEP:
        legal = rules.legal_actions(s)
        rules.apply_action(s, rules.PASS if s.phase == rules.PLAY else legal[-1])
    d = s.to_dict()
    assert rules.State.from_dict(d) and not d["horde"]
    v = d["reserve"].pop()
    _refused(dict(d, horde=[v]), "horde")
    rules.apply_action(s, rules.legal_actions(s)[0])
    assert s.phase == rules.RESTART
    d = s.to_dict()
    v = d["reserve"].pop()
    _refused(dict(d, horde=[v]), "horde")


CONFIGS = [dict(num_players=2), dict(num_players=3, starting_brains=4),
           dict(num_players=5, starting_brains=3)]


@pytest.mark.parametrize("cfg", CONFIGS)
def test_property_mutated_real_tables_are_refused_or_play_to_the_end(cfg):
    """Thousands of random edits of real tables (counts moved between piles, fields out of
    range, of the wrong type, huge): each is refused with a ValueError/TypeError, or the
    restored game keeps its cards, always offers a legal action and ends."""
    n = cfg["num_players"]
    states = real_states(lambda: raw_env(**cfg), 3, seed=n, every=7)
    stats = fuzz_state_restore(
        lambda: raw_env(max_cycles=40, **cfg), states, 1000, seed=200 + n, counts=COUNTS
    )
    assert stats.refused > 300 and stats.accepted > 50  # both paths are exercised
