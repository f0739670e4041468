"""State restore refuses every table The Brain's rules cannot be played on (issue 9):
``State.from_dict`` and ``reset(options={"state": ...})`` raise a ValueError naming what
is wrong, and every table they accept plays on to its end."""

from __future__ import annotations

import pytest

from braincards.envs.the_brain import rules
from braincards.envs.the_brain.cards import NUM_CARDS
from braincards.envs.the_brain.env import raw_env
from tests.common import fuzz_state_restore, real_states

from .helpers import C, table


def _refused(data: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        rules.State.from_dict(data)
    env = raw_env(num_players=data["num_players"], difficulty=data["limit"],
                  draw_rule="optional" if data["draw_optional"] else "mandatory",
                  discard_peek=data["peek_allowed"])
    with pytest.raises(ValueError, match=match):
        env.reset(options={"state": data})


def _live(**changes) -> dict:
    """A real 3-seat table (seat 0 to play), with ``changes`` applied to its dict."""
    s = table(3, hands=[["blue key", "grey key"], ["red key"], ["green key"]],
              deck=["blue lock", "red lock"], display=[["purple lock"]])
    return dict(s.to_dict(), **changes)


def test_RB7_draw_decision_with_an_empty_deck_is_refused():
    """R-B7: a draw decision exists only while the deck holds a card (step raised
    IndexError on such a table)."""
    s = table(2, hands=[["blue key"], ["red key"]], deck=["grey key"], draw_rule="optional")
    d = s.to_dict()
    d["phase"] = rules.DRAW
    assert rules.State.from_dict(d).phase == rules.DRAW  # the real one
    d["hands"][0].append(d["deck"].pop())
    _refused(d, "draw")


def test_RB7_draw_decision_needs_the_optional_draw_rule():
    _refused(_live(phase=rules.DRAW), "draw")


@pytest.mark.parametrize("phase", [rules.COVER_TARGET, rules.TAKE_BACK_TARGET])
def test_RB5_cover_or_take_back_decision_with_no_other_stack_is_refused(phase):
    """R-B5: cover / take back choose one *other* display stack; with none the action is
    skipped, so the decision never exists."""
    card = C("blue magnifying_glass") if phase == rules.COVER_TARGET else C("blue brain")
    s = table(2, hands=[["red key"], ["grey key"]], deck=["green key"])
    d = s.to_dict()
    d.update(phase=phase, resolving=card, display=[[card]])
    _refused(d, "no legal action")


def test_RB5_take_back_decision_with_only_take_back_stacks_is_refused():
    card = C("blue brain")
    s = table(2, hands=[["red key"], ["grey key"]], deck=["green key"])
    d = s.to_dict()
    d.update(phase=rules.TAKE_BACK_TARGET, resolving=card, display=[[C("green magnifying_glass")], [card]])
    _refused(d, "no legal action")


@pytest.mark.parametrize("phase", [rules.PLAY, rules.EXTRA, rules.DONATE_CARD])
def test_RB4_seat_to_move_holding_nothing_is_refused(phase):
    """R-B4: a seat holding no card only draws; it never has a play (or extra card, or
    donation) decision."""
    d = _live(phase=phase, seat=1)
    d["deck"] += d["hands"][1]
    d["hands"][1] = []
    if phase != rules.PLAY:  # the card whose action is being resolved lies on the display
        card = C("purple lock") if phase == rules.EXTRA else C("yellow lock")
        d["display"] = [[C("blue lock")], [card]] if phase == rules.EXTRA else [[card]]
        d["deck"] = [c for c in d["deck"] if c not in (C("blue lock"), card)]
        d["resolving"] = card
    _refused(d, "no legal action")


def test_RB6_live_table_with_no_card_anywhere_is_refused():
    """R-B6: deck empty and no seat holding a card is a win, never a live decision."""
    d = _live(deck=[], hands=[[], [], []], discard=[C("blue key"), C("grey key"), C("red key"),
              C("green key"), C("blue lock"), C("red lock")])
    _refused(d, "win")


def test_RB8_peek_decision_when_peeking_is_not_allowed_is_refused():
    d = _live(phase=rules.PEEK, discard=[C("red lock")], deck=[C("blue lock")])
    _refused(d, "peek")


def test_RB8_peek_decision_after_a_seat_has_looked_is_refused():
    s = table(2, hands=[["blue key"], ["red key"]], deck=["grey key"], discard=["green key"],
              discard_peek=True)
    assert s.phase == rules.PEEK
    d = dict(s.to_dict(), peek_seat=1, peeked=[C("green key")])
    _refused(d, "peek")
    _refused(dict(s.to_dict(), phase=rules.PLAY, peek_seat=-1, peeked=[C("green key")]), "peeked")
    _refused(dict(s.to_dict(), phase=rules.PLAY, peek_seat=0, peeked=[C("red lock")]), "peeked")


def test_RB6_more_stacks_than_the_limit_is_refused():
    """R-B6: the game is lost as soon as the display reaches the limit, so a live turn
    never starts with limit stacks, and no table ever holds more than limit + 1."""
    d = _live(limit=5)
    d["display"] = [[c] for c in (C("purple lock"), C("blue safe"), C("red safe"), C("grey safe"),
                                  C("yellow safe"))]
    _refused(d, "stacks")
    over = dict(d, phase=rules.OVER, outcome=rules.LOSS)
    assert rules.State.from_dict(over).outcome == rules.LOSS  # 5 stacks at limit 5: lost
    over["display"] = over["display"] + [[C("purple safe")], [C("green safe")]]
    _refused(over, "stacks")


def test_RB6_finished_table_must_match_its_outcome():
    lost = _live(phase=rules.OVER, outcome=rules.LOSS)  # 1 stack, limit 7
    _refused(lost, "loss")
    won = _live(phase=rules.OVER, outcome=rules.WIN)  # cards left everywhere
    _refused(won, "win")


def test_RB3_solo_table_with_a_card_in_a_hand_is_refused():
    s = table(1, domains=[["blue key"], ["red key"]], deck=["grey key"])
    d = s.to_dict()
    d["hands"][0].append(d["deck"].pop())
    _refused(d, "solo")


def test_resolving_must_be_the_card_just_played():
    _refused(_live(resolving=C("blue lock")), "resolving")  # nothing is being resolved
    d = _live(phase=rules.COVER_TARGET, resolving=C("red key"))  # not on the display
    _refused(d, "resolving")


def test_every_table_met_in_real_games_is_still_accepted():
    configs = [dict(num_players=1), dict(num_players=2, draw_rule="optional"),
               dict(num_players=3, discard_peek=True), dict(num_players=4, difficulty=5)]
    kinds = set()
    for i, cfg in enumerate(configs):
        for data in real_states(lambda cfg=cfg: raw_env(**cfg), 12, seed=i, every=1):
            s = rules.State.from_dict(data)
            kinds.add(s.phase)
    assert kinds == set(range(rules.OVER + 1))


@pytest.mark.parametrize(
    "cfg",
    [dict(num_players=1), dict(num_players=2, draw_rule="optional"),
     dict(num_players=3, discard_peek=True), dict(num_players=4, difficulty=5)],
)
def test_property_mutated_real_tables_are_refused_or_play_to_the_end(cfg):
    """Thousands of random edits of real mid-game tables: each is refused with a
    ValueError/TypeError, or the restored game keeps its cards, always offers a legal
    action and ends."""
    i = cfg["num_players"]
    states = real_states(lambda: raw_env(**cfg), 4, seed=i)
    stats = fuzz_state_restore(lambda: raw_env(max_cycles=60, **cfg), states, 1000, seed=100 + i)
    assert stats.refused > 300 and stats.accepted > 50  # both paths are exercised
    assert NUM_CARDS == 36
