"""One scripted test per rule of The Brain and per ruling R-B1..R-B9, including every
example of the English rulebook."""

from __future__ import annotations

import random

import pytest

from braincards.envs.core.errors import IllegalActionError
from braincards.envs.the_brain import rules
from braincards.envs.the_brain.cards import (
    COLOR_OF,
    COLORS,
    DECK_TABLE,
    NUM_CARDS,
    OBJECT_OF,
    OBJECTS,
    REMOVE_COLOR,
    SYMBOL_OF,
    TARGET_OF,
    action_name,
)

from .helpers import C, names, table

A = rules.apply_action
SEAT_PLUS_1 = rules.SEAT_ACTION


# ----------------------------------------------------------------------------- R-B1
def test_RB1_deck_is_a_latin_square_of_36_unique_cards():
    assert NUM_CARDS == 36 and len(set(range(NUM_CARDS))) == 36
    for obj in OBJECTS:
        assert len(DECK_TABLE[obj]) == 6
    symbols_by_object = {}
    symbols_by_color = {}
    for c in range(NUM_CARDS):
        key = "remove" if action_name(c).startswith("remove") else action_name(c)
        symbols_by_object.setdefault(OBJECT_OF[c], []).append(key)
        symbols_by_color.setdefault(COLOR_OF[c], []).append(key)
    for row in list(symbols_by_object.values()) + list(symbols_by_color.values()):
        # every action once per object and per color (remove twice: object + color kinds)
        assert sorted(row) == sorted(["donate", "cover", "take_back", "extra_card", "remove", "remove"])
    for c in range(NUM_CARDS):  # no remove card targets its own object or color
        if action_name(c).startswith("remove "):
            target = action_name(c)[len("remove ") :]
            assert target not in (OBJECTS[OBJECT_OF[c]], COLORS[COLOR_OF[c]])


def test_RB1_deck_matches_every_card_the_rulebook_examples_name():
    assert action_name(C("blue fingerprint")) == "donate"
    assert action_name(C("green magnifying_glass")) == "take_back"
    assert action_name(C("blue brain")) == "take_back"
    assert action_name(C("purple lock")) == "extra_card"
    for card in ("yellow safe", "red key", "purple fingerprint", "grey brain"):
        assert action_name(C(card)) == "cover", card
    assert action_name(C("red brain")) == "remove grey"
    # each remove target is one object or one color, each named exactly once
    removes = [action_name(c)[7:] for c in range(NUM_CARDS) if action_name(c).startswith("remove")]
    assert sorted(removes) == sorted(OBJECTS + COLORS)


# ----------------------------------------------------------------------------- R-B2
@pytest.mark.parametrize("players,hand_size", [(2, 2), (3, 5), (4, 7), (1, 5)])
def test_RB2_setup_deals_hand_size_cards_to_every_seat(players, hand_size):
    cfg = rules.Config(num_players=players, hand_size=hand_size)
    s = rules.new_game(cfg, random.Random(3))
    seats = cfg.num_seats
    held = [len(s.hands[i]) + len(s.domains[i]) for i in range(seats)]
    assert held == [hand_size] * seats
    assert len(s.deck) == NUM_CARDS - seats * hand_size
    assert sorted(s.cards()) == list(range(NUM_CARDS))


def test_RB2_loss_limits_and_integer_limit():
    assert [rules.limit_of(d) for d in ("amateur", "robber", "cat_burglar")] == [7, 6, 5]
    assert rules.limit_of(4) == 4
    with pytest.raises(ValueError, match="difficulty"):
        rules.limit_of("expert")


def test_RB2_starting_seat_is_random_from_the_seed_unless_given():
    cfg = rules.Config(num_players=4)
    firsts = {rules.new_game(cfg, random.Random(seed)).seat for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    assert rules.new_game(cfg, random.Random(1)).seat == rules.new_game(cfg, random.Random(1)).seat
    assert rules.new_game(cfg, random.Random(1), first_player=2).seat == 2


def test_RB2_scripted_deck_deals_in_draw_order():
    deck = list(range(NUM_CARDS))
    s = rules.new_game(rules.Config(num_players=2, hand_size=3), random.Random(0), deck, 1)
    assert s.hands == [[0, 1, 2], [3, 4, 5]]
    assert s.deck == list(range(6, NUM_CARDS))
    assert s.seat == 1


# ----------------------------------------------------------------------------- R-B3
def test_RB3_solo_alternates_own_and_virtual_seat_with_everything_face_up():
    cfg = rules.Config(num_players=1, hand_size=3)
    deck = [C("blue safe"), C("purple lock"), C("green lock"),  # own seat: extra cards + cover
            C("red lock"), C("grey lock"), C("yellow lock"),  # virtual seat
            C("blue key"), C("purple key")]
    s = rules.new_game(cfg, random.Random(0), deck)
    assert s.hands == [[], []]  # solo: nothing is hidden
    assert names(s.domains[0]) == ["blue safe", "green lock", "purple lock"]
    assert s.seat == 0
    A(s, C("green lock"))  # cover, nothing to cover: skipped
    assert s.seat == 1 and s.domains[0][-1] == C("blue key")  # the draw lands face up
    assert s.hands == [[], []]
    A(s, C("yellow lock"))  # donate: choose the card, then the (only) other seat
    assert s.phase == rules.DONATE_CARD
    A(s, C("red lock"))
    assert rules.legal_actions(s) == [SEAT_PLUS_1]
    A(s, SEAT_PLUS_1)
    assert C("red lock") in s.domains[0]
    assert s.seat == 0 and C("purple key") in s.domains[1]


# ----------------------------------------------------------------------------- R-B4
def test_RB4_turn_is_play_resolve_check_draw():
    s = table(hands=[["green key"], ["red key"]], deck=["blue key", "purple key"])
    assert s.phase == rules.PLAY and rules.legal_actions(s) == [C("green key")]
    A(s, C("green key"))  # donate, but nothing left to give: action skipped
    assert s.display == [[C("green key")]]
    assert s.hands[0] == [C("blue key")]  # drew after the action
    assert s.seat == 1 and s.turn == 1


def test_RB4_a_card_must_be_played_from_hand_or_domain():
    s = table(hands=[["green key"], ["red key"]], domains=[["blue safe"], []], deck=["blue key"])
    assert rules.legal_actions(s) == sorted([C("green key"), C("blue safe")])
    with pytest.raises(IllegalActionError, match="not in seat 0"):
        A(s, C("red key"))
    with pytest.raises(IllegalActionError, match="card must be played"):
        A(s, rules.DRAW_YES)


def test_RB4_no_card_turn_only_draws_without_a_decision():
    """Rulebook: a player with no cards at the start of the turn only draws."""
    s = table(3, hands=[[], ["red key"], ["grey key"]], deck=["blue key", "purple key"], seat=0)
    # seat 0 held nothing: it drew automatically and seat 1 is to play
    assert s.hands[0] == [C("blue key")]
    assert s.seat == 1 and s.phase == rules.PLAY
    assert s.display == []


def test_RB4_no_card_and_empty_deck_turn_is_skipped():
    s = table(3, hands=[[], ["red key"], ["grey key"]], seat=0)
    assert s.seat == 1 and s.phase == rules.PLAY and s.hands[0] == []


# ----------------------------------------------------------------------------- R-B5
def test_RB5_donate_rulebook_example_steve_gives_purple_key_to_jenny():
    """Steve plays the blue fingerprint and must donate: the purple key goes face up to Jenny."""
    steve, jenny = 0, 1
    s = table(3, hands=[["blue fingerprint", "purple key"], ["red key"], ["grey key"]],
              domains=[["yellow lock"], [], []], deck=["blue key"])
    A(s, C("blue fingerprint"))
    assert s.phase == rules.DONATE_CARD
    # any remaining card of hand or domain may be given
    assert rules.legal_actions(s) == sorted([C("purple key"), C("yellow lock")])
    A(s, C("purple key"))
    assert s.phase == rules.DONATE_TARGET and s.donating == C("purple key")
    assert rules.legal_actions(s) == [SEAT_PLUS_1, SEAT_PLUS_1 + 1]  # Jenny or the third seat
    A(s, SEAT_PLUS_1 + (jenny - steve - 1))
    assert s.domains[jenny] == [C("purple key")]  # face up in Jenny's domain
    assert s.hands[jenny] == [C("red key")]
    assert s.seat == 1


def test_RB5_donate_target_must_be_another_seat():
    s = table(2, hands=[["blue fingerprint", "purple key"], ["red key"]])
    A(s, C("blue fingerprint"))
    A(s, C("purple key"))
    with pytest.raises(IllegalActionError, match="donate to one of the seats"):
        A(s, SEAT_PLUS_1 + 1)  # only +1 exists with two seats


def test_RB5_cover_example_stack_counts_once_and_only_its_top_matters():
    """Cover: the played card goes on another stack; the stack counts as one card and only
    its top card counts for removal. The rulebook's three-card stack with a take back in it
    is removed whole by a remove card matching its top, and cannot be taken back."""
    s = table(2, hands=[["red key", "green lock", "grey safe", "yellow key"], ["blue lock"]],
              display=[["blue brain"], ["purple safe"]])
    # blue brain (take_back) covered by red key (cover): 2 stacks -> play red key, cover
    A(s, C("red key"))
    assert s.phase == rules.COVER_TARGET
    assert rules.legal_actions(s) == sorted([C("blue brain"), C("purple safe")])  # never itself
    A(s, C("blue brain"))
    assert s.display == [[C("blue brain"), C("red key")], [C("purple safe")]]  # count did not grow
    # a third card on the same stack: green lock (cover)
    s.seat = 0
    rules._start_turn(s)
    A(s, C("green lock"))
    A(s, C("red key"))
    stack = [C("blue brain"), C("red key"), C("green lock")]
    assert s.display[0] == stack and len(s.display) == 2
    # take back cannot take it (a take back lies inside); grey safe removes lock: whole stack goes
    s.seat = 0
    rules._start_turn(s)
    A(s, C("grey safe"))  # remove lock
    assert s.display == [[C("purple safe")], [C("grey safe")]]
    assert s.discard == stack


def test_RB5_cover_needs_another_stack():
    s = table(2, hands=[["red key", "blue lock"], ["grey key"]], deck=["blue key"])
    A(s, C("red key"))  # cover, display was empty: skipped
    assert s.display == [[C("red key")]] and s.seat == 1


def test_RB5_take_back_rulebook_example_jenny_cannot_take_the_blue_brain_stack():
    """Jenny plays the green magnifying glass (take back); the stack with the red key on top
    holds the blue brain (take back) so she must take the purple fingerprint stack, whose two
    cards go separately, face up, into her domain."""
    s = table(2, hands=[["green magnifying_glass", "blue safe"], ["grey key"]],
              display=[["blue brain", "red key"], ["yellow lock", "purple fingerprint"]],
              deck=["blue key"])
    A(s, C("green magnifying_glass"))
    assert s.phase == rules.TAKE_BACK_TARGET
    assert rules.legal_actions(s) == [C("purple fingerprint")]
    with pytest.raises(IllegalActionError, match="take_back card"):
        A(s, C("red key"))
    A(s, C("purple fingerprint"))
    assert names(s.domains[0]) == ["purple fingerprint", "yellow lock"]
    # the played take back card stays in the display
    assert s.display == [[C("blue brain"), C("red key")], [C("green magnifying_glass")]]


def test_RB5_take_back_never_takes_its_own_card_and_is_skipped_without_a_target():
    s = table(2, hands=[["green magnifying_glass", "blue safe"], ["grey key"]],
              display=[["yellow key"]], deck=["blue key"])
    A(s, C("green magnifying_glass"))  # the only other stack is a take back: skipped
    assert s.seat == 1 and len(s.display) == 2


def test_RB5_extra_card_rulebook_example_timmy_plays_another_card_unresolved():
    """Timmy plays an extra card and must play another from hand or domain; its action is
    not resolved."""
    s = table(2, hands=[["purple lock", "blue fingerprint"], ["grey key"]],
              domains=[["red safe"], []], deck=["blue key"])
    A(s, C("purple lock"))
    assert s.phase == rules.EXTRA
    assert rules.legal_actions(s) == sorted([C("blue fingerprint"), C("red safe")])
    A(s, C("red safe"))  # a donate card from the domain: not resolved
    assert s.display == [[C("purple lock")], [C("red safe")]]
    assert s.seat == 1 and s.hands[0] == [C("blue fingerprint"), C("blue key")]


def test_RB5_extra_card_rulebook_example_mary_ignores_the_yellow_safes_cover():
    """Mary plays the purple lock and then the yellow safe, whose cover is ignored."""
    s = table(2, hands=[["purple lock", "yellow safe"], ["grey key"]],
              display=[["blue key"]], deck=["purple key"])
    A(s, C("purple lock"))
    A(s, C("yellow safe"))
    assert s.display == [[C("blue key")], [C("purple lock")], [C("yellow safe")]]
    assert s.phase == rules.PLAY and s.seat == 1


def test_RB5_remove_rulebook_example_peter_red_brain_removes_the_grey_cards():
    """Peter plays the red brain (remove grey): the grey safe and the stack topped by the
    grey brain go to the discard pile; a stack with grey underneath stays."""
    s = table(2, hands=[["red brain", "blue lock"], ["grey key"]],
              display=[["grey safe"], ["blue safe", "grey brain"], ["grey lock", "yellow safe"], ["green key"]],
              deck=["blue key"])
    A(s, C("red brain"))
    assert s.display == [[C("grey lock"), C("yellow safe")], [C("green key")], [C("red brain")]]
    assert s.discard == [C("grey safe"), C("blue safe"), C("grey brain")]


def test_RB5_remove_object_uses_the_top_card_only():
    s = table(2, hands=[["purple magnifying_glass", "blue lock"], ["grey key"]],
              display=[["blue brain", "yellow safe"], ["green brain"]], deck=["blue key"])
    A(s, C("purple magnifying_glass"))  # remove brain
    assert s.display == [[C("blue brain"), C("yellow safe")], [C("purple magnifying_glass")]]
    assert s.discard == [C("green brain")]


def test_RB5_remove_counts_the_played_card_when_it_matches(monkeypatch):
    # no default card targets itself (R-B1), so script one: the red brain removes red
    s = table(2, hands=[["red brain", "blue lock"], ["grey key"]], display=[["grey safe"]], deck=["blue key"])
    card = C("red brain")
    assert SYMBOL_OF[card] == REMOVE_COLOR
    monkeypatch.setattr(rules, "TARGET_OF", tuple(COLORS.index("red") if c == card else t for c, t in enumerate(TARGET_OF)))
    A(s, card)
    assert s.display == [[C("grey safe")]] and s.discard == [card]


# ----------------------------------------------------------------------------- R-B6
def test_RB6_loss_when_display_reaches_the_limit():
    s = table(2, hands=[["purple lock", "blue key"], ["grey key"]],
              display=[["green key"], ["red key"], ["yellow key"]], limit=5, deck=["blue safe"])
    A(s, C("purple lock"))  # 4 stacks, extra card
    A(s, C("blue key"))  # 5 stacks >= limit 5
    assert s.phase == rules.OVER and s.outcome == rules.LOSS
    assert rules.returns(s) == [-1.0, -1.0]


def test_RB6_loss_is_checked_before_win():
    """The last card of the game leaves the display at the limit: a loss, not a win."""
    s = table(2, hands=[["blue key"], []], display=[["green key"], ["red key"]], limit=3)
    A(s, C("blue key"))  # remove fingerprint: no match; deck empty, nobody holds a card
    assert s.outcome == rules.LOSS


def test_RB6_win_when_deck_and_every_hand_and_domain_are_empty():
    s = table(2, hands=[["blue key"], []], display=[["green key"]], limit=3)
    A(s, C("blue key"))
    assert s.outcome == rules.WIN and rules.returns(s) == [1.0, 1.0]


def test_RB6_no_win_while_a_seat_still_holds_a_card():
    s = table(2, hands=[["blue key"], []], domains=[[], ["grey key"]], limit=5)
    A(s, C("blue key"))
    assert s.phase == rules.PLAY and s.seat == 1


# ----------------------------------------------------------------------------- R-B7
def test_RB7_mandatory_draw_into_the_hand():
    s = table(2, hands=[["blue key", "grey key"], ["red key"]], deck=["purple key"])
    A(s, C("blue key"))
    assert s.hands[0] == [C("grey key"), C("purple key")] and s.deck == []


def test_RB7_optional_draw_is_a_choice():
    s = table(2, hands=[["blue key", "grey key"], ["red key"]], deck=["purple key"], draw_rule="optional")
    A(s, C("blue key"))
    assert s.phase == rules.DRAW and rules.legal_actions(s) == [rules.DRAW_YES, rules.DRAW_NO]
    t = s.copy()
    A(s, rules.DRAW_NO)
    assert s.deck == [C("purple key")] and s.seat == 1
    A(t, rules.DRAW_YES)
    assert t.deck == [] and t.hands[0][-1] == C("purple key")


def test_RB7_optional_draw_is_forced_when_no_seat_holds_a_card():
    s = table(2, hands=[["blue key"], []], deck=["purple key", "red key"], draw_rule="optional")
    A(s, C("blue key"))  # nobody holds a card now: the draw is mandatory, no decision
    assert s.hands[0] == [C("purple key")] and s.seat == 1
    # seat 1 holds nothing but seat 0 now does: seat 1 may choose
    assert s.phase == rules.DRAW


def test_RB7_optional_draw_for_a_seat_without_cards_is_offered_when_others_hold_cards():
    s = table(2, hands=[[], ["red key"]], deck=["purple key"], draw_rule="optional")
    assert s.seat == 0 and s.phase == rules.DRAW
    A(s, rules.DRAW_NO)
    assert s.seat == 1 and s.phase == rules.PLAY


def test_RB7_no_draw_decision_with_an_empty_deck():
    s = table(2, hands=[["blue key", "grey key"], ["red key"]], draw_rule="optional")
    A(s, C("blue key"))
    assert s.seat == 1 and s.phase == rules.PLAY


# ----------------------------------------------------------------------------- R-B8 peek
def test_RB8_discard_peek_once_per_game_by_one_seat_before_playing():
    s = table(2, hands=[["blue key", "grey key"], ["red lock", "yellow key"]],
              discard=["green brain", "green safe"], deck=["purple key", "purple safe"], discard_peek=True)
    assert s.phase == rules.PEEK and rules.legal_actions(s) == [rules.PEEK_YES, rules.PEEK_NO]
    A(s, rules.PEEK_NO)
    assert s.phase == rules.PLAY
    A(s, C("blue key"))
    assert s.phase == rules.PEEK and s.seat == 1  # still available to the next seat
    A(s, rules.PEEK_YES)
    assert s.peek_seat == 1 and s.peeked == [C("green brain"), C("green safe")]
    A(s, C("red lock"))  # remove safe: nothing to remove
    assert s.seat == 0 and s.phase == rules.PLAY  # used: never offered again


def test_RB8_discard_peek_is_amateur_only():
    with pytest.raises(ValueError, match="amateur"):
        rules.Config(limit=6, discard_peek=True)
    rules.Config(limit=7, discard_peek=True)


# ----------------------------------------------------------------------------- R-B9
def test_RB9_rewards_are_equal_for_every_seat():
    s = table(3, hands=[["blue key"], [], []], display=[["green key"]], limit=3)
    A(s, C("blue key"))
    assert rules.returns(s) == [1.0, 1.0, 1.0]


# ----------------------------------------------------------------------------- misc
def test_illegal_actions_leave_the_state_unchanged():
    s = table(2, hands=[["blue fingerprint", "purple key"], ["red key"]], deck=["blue key"])
    before = s.to_dict()
    for bad in (-1, 43, 99, C("red key"), rules.DRAW_YES, SEAT_PLUS_1):
        with pytest.raises(IllegalActionError):
            A(s, bad)
    assert s.to_dict() == before


def test_the_rules_engine_refuses_non_int_actions_even_bool_and_int_valued_floats():
    """The engine takes plain ints only (the env converts numpy ints); ``True`` is not card
    1 and ``1.0`` is not an action (issue 9)."""
    s = table(2, hands=[["blue fingerprint", "purple fingerprint"], ["red key"]], deck=["blue key"])
    assert C("purple fingerprint") == 1
    before = s.to_dict()
    for bad in (True, 1.0, "1", None):
        with pytest.raises(IllegalActionError, match="integers"):
            A(s, bad)
    assert s.to_dict() == before


def test_no_action_is_accepted_once_the_game_is_over():
    s = table(2, hands=[["blue key"], []], limit=3)
    A(s, C("blue key"))
    assert rules.is_terminal(s) and rules.legal_actions(s) == [] and rules.current_seat(s) == -1
    with pytest.raises(IllegalActionError, match="over"):
        A(s, 0)
