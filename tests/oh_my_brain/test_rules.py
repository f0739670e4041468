"""Oh My Brain rules engine: one scripted test per rule and ruling (R-O1..R-O10).

Cards are their values; ``table()`` builds a mid-game table with the default deck (cards
it is not given go to the bottom of the reserve, ascending).
"""

from __future__ import annotations

import random

import pytest

from braincards.envs.core.errors import IllegalActionError
from braincards.envs.oh_my_brain import rules
from braincards.envs.oh_my_brain.cards import DEFAULT_DECK, DEFAULT_MARSHMALLOWS, expand
from braincards.envs.oh_my_brain.rules import PASS

from .helpers import OPP, XG, XH, P, V, grave, hand, table

FULL = expand(rules.Config().deck)  # every card of the default deck, ascending


def apply(state, *actions):
    for a in actions:
        rules.apply_action(state, a)
    return state


def rejects(state, action):
    before = state.to_dict()
    with pytest.raises(IllegalActionError):
        rules.apply_action(state, action)
    assert state.to_dict() == before, "a rejected action changed the state"


# ----------------------------------------------------------------------------- R-O1, R-O2
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_RO1_every_seat_starts_with_9_brains(players):
    s = rules.new_game(rules.Config(num_players=players), random.Random(0))
    assert s.brains == [9] * players
    s = rules.new_game(rules.Config(num_players=players, starting_brains=30), random.Random(0))
    assert s.brains == [30] * players


def test_RO2_default_deck_is_the_rulings_table_of_50_cards():
    cfg = rules.Config()
    assert sum(DEFAULT_DECK.values()) == 50 == cfg.num_cards
    assert cfg.deck == (2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 2, 3, 3, 2, 2, 2, 2, 2, 2)
    assert cfg.marshmallow_values == DEFAULT_MARSHMALLOWS == (1, 2, 18, 19)
    assert cfg.max_copies == 3 and cfg.num_actions == 33 + 20 * 3
    s = rules.new_game(cfg, random.Random(0))
    assert sorted(s.cards()) == expand(cfg.deck)


def test_RO2_deck_and_marshmallows_are_replaceable_data():
    deck = {v: 1 for v in range(20)} | {5: 4, 7: 2}
    cfg = rules.Config(num_players=2, deck=deck, marshmallow_values=[5])
    assert cfg.num_cards == 24 and cfg.max_copies == 4 and cfg.num_actions == 33 + 80
    s = rules.new_game(cfg, random.Random(1))
    assert s.is_marsh[5] and not s.is_marsh[19]
    assert sorted(s.cards()) == expand(cfg.deck)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"deck": {20: 1}}, "allowed values: integers 0..19"),
        ({"deck": {-1: 1}}, "0..19"),
        ({"deck": {3: 0}}, "positive"),
        ({"deck": {3: -2}}, "positive"),
        ({"deck": {3: 1.5}}, "positive"),
        ({"deck": {"3": 1}}, "0..19"),
        ({"deck": [1, 2]}, "dict"),
        ({"deck": {}}, "non-empty"),
        ({"deck": {v: 1 for v in range(20)}, "num_players": 3}, "needs at least 27"),
        ({"marshmallow_values": [8]}, "cannot be marshmallows"),
        ({"marshmallow_values": [0]}, "cannot be marshmallows"),
        ({"marshmallow_values": [11]}, "cannot be marshmallows"),
        ({"marshmallow_values": [20]}, "0..19"),
        ({"marshmallow_values": [3, 3]}, "twice"),
        ({"marshmallow_values": "19"}, "list"),
        ({"marshmallow_values": [19], "deck": {v: 2 for v in range(19)}}, "no copies"),
        ({"num_players": 1}, "num_players"),
        ({"num_players": 6}, "num_players"),
        ({"starting_brains": 0}, "starting_brains"),
        ({"starting_brains": True}, "starting_brains"),
        ({"starting_brains": 101}, "starting_brains"),
        ({"deck": {v: 13 for v in range(20)}}, "at most 255"),
    ],
)
def test_RO2_bad_config_raises_a_clear_value_error(kwargs, match):
    with pytest.raises(ValueError, match=match):
        rules.Config(**kwargs)


# ----------------------------------------------------------------------------- R-O3 setup draft
def test_RO3_draft_three_passes_in_seat_order_from_the_starting_seat():
    deck = [3, 4, 5, 6, 7, 9, 10, 12, 13, 14, 15, 16, 17, 0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 12, 13, 14, 15]
    s = rules.new_game(rules.Config(num_players=3), random.Random(0), deck=deck, first_player=1)
    order = []
    for i in range(9):
        assert s.phase == rules.DRAFT
        batch = deck[3 * i : 3 * i + 3]
        assert s.pending == batch
        assert rules.legal_actions(s) == sorted({V(v) for v in batch})
        order.append(s.seat)
        apply(s, V(batch[1]))  # the middle card goes to the graveyard
    assert order == [1, 2, 0] * 3
    assert s.phase == rules.PLAY and s.seat == 1 and s.start_seat == 1
    for seat in range(3):
        assert sum(s.hands[seat]) == 6 and sum(s.graves[seat]) == 3
    # seat 1 got batches 0, 3, 6
    assert hand(s, 1) == sorted(deck[0:1] + deck[2:3] + deck[9:10] + deck[11:12] + deck[18:19] + deck[20:21])
    assert grave(s, 1) == sorted([deck[1], deck[10], deck[19]])
    assert len(s.reserve) == 50 - 27
    assert sorted(s.cards()) == FULL


def test_RO3_draft_with_identical_cards_offers_the_one_value():
    s = rules.new_game(rules.Config(num_players=2), random.Random(0), deck=[5, 5, 5], first_player=0)
    assert rules.legal_actions(s) == [V(5)]
    rejects(s, V(4))
    apply(s, V(5))
    assert hand(s, 0) == [5, 5] and grave(s, 0) == [5]


def test_RO3_starting_seat_is_drawn_from_the_seed_unless_given():
    firsts = {rules.new_game(rules.Config(num_players=4), random.Random(seed)).seat for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    a = rules.new_game(rules.Config(num_players=4), random.Random(9))
    b = rules.new_game(rules.Config(num_players=4), random.Random(9))
    assert a == b
    assert rules.new_game(rules.Config(num_players=4), random.Random(0), first_player=2).seat == 2


def test_RO3_scripted_deck_may_list_only_the_top_and_is_validated():
    s = rules.new_game(rules.Config(num_players=2), random.Random(0), deck=[19, 19], first_player=0)
    assert s.pending == [19, 19, 0]  # the rest follows ascending
    with pytest.raises(ValueError, match="more copies of 19"):
        rules.new_game(rules.Config(), random.Random(0), deck=[19, 19, 19])
    with pytest.raises(ValueError, match="not a card value"):
        rules.new_game(rules.Config(), random.Random(0), deck=[20])
    with pytest.raises(ValueError, match="draw order"):
        rules.new_game(rules.Config(), random.Random(0), deck="123")
    with pytest.raises(ValueError, match="die faces"):
        rules.new_game(rules.Config(), random.Random(0), dice=[7])
    with pytest.raises(ValueError, match="first_player"):
        rules.new_game(rules.Config(num_players=2), random.Random(0), first_player=2)


# ----------------------------------------------------------------------------- R-O4 playing
def test_RO4_rulebook_example_top_is_7_play_8_to_19():
    """The rulebook: the top is a 7; any single card or group of identical cards from 8
    to 19 may be added (and the 0, which is always playable)."""
    s = table(3, hands=[[0, 3, 7, 8, 9, 12, 12, 19], [1], [2]], horde=[7])
    assert rules.legal_actions(s) == [PASS, P(0), P(8), P(9), P(12), P(12, 2), P(19)]
    for bad in (P(3), P(7), P(12, 3), P(13), P(7, 2)):
        rejects(s, bad)


def test_RO4_any_value_on_an_empty_horde_and_several_identical_cards():
    s = table(2, hands=[[4, 4, 9], [1]])
    assert rules.legal_actions(s) == [PASS, P(4), P(4, 2), P(9)]


def test_RO4_three_5s_with_two_extras_split_between_two_opponents():
    s = table(3, hands=[[5, 5, 5, 9], [1], [2]], horde=[3])
    apply(s, P(5, 3))
    assert s.horde == [3, 5]  # one copy stays on the horde
    assert s.phase == rules.EXTRA_TARGET and s.extras == 2 and s.seat == 0
    assert rules.legal_actions(s) == [OPP(1), OPP(2)]
    rejects(s, OPP(3))
    apply(s, OPP(1))
    assert grave(s, 1) == [5] and s.phase == rules.EXTRA_TARGET and s.extras == 1
    apply(s, OPP(2))
    assert grave(s, 2) == [5] and s.extras == 0
    assert s.phase == rules.PLAY and s.seat == 1  # seat 0's turn ended (hand [9], no graveyard)
    assert hand(s, 0) == [9]


def test_RO4_extras_may_all_go_to_one_opponent():
    s = table(3, hands=[[5, 5, 5, 9], [1], [2]])
    apply(s, P(5, 3), OPP(2), OPP(2))
    assert grave(s, 2) == [5, 5] and grave(s, 1) == []


def test_RO4_extras_go_before_the_power_and_the_power_applies_once():
    """Two marshmallows: the extra copy is sent first, then the die is rolled once."""
    s = table(2, hands=[[19, 19, 4], [1]], horde=[10], dice=[4, 4])
    apply(s, P(19, 2))
    assert s.phase == rules.EXTRA_TARGET and s.die == 0  # not rolled yet
    apply(s, OPP(1))
    assert s.face_counts == [0, 0, 0, 1, 0, 0] and s.brains == [10, 9] and s.dice == [4]


def test_RO4_zero_on_top_of_19():
    s = table(2, hands=[[0, 5], [1]], horde=[12, 19])
    assert rules.legal_actions(s) == [PASS, P(0)]
    apply(s, P(0))
    assert s.horde == [12, 19, 0]
    # ordering resumes from the 0: anything higher
    s.seat, s.phase = 1, rules.PLAY
    assert rules.legal_actions(s) == [PASS, P(1)]


def test_RO4_spider_forces_below_8_then_the_order_ascends_again():
    s = table(3, hands=[[8, 10, 12], [0, 3, 9, 12], [2, 5, 9]], horde=[4])
    apply(s, P(8))
    assert s.spider and s.seat == 1
    assert rules.legal_actions(s) == [PASS, P(0), P(3)]  # 9 and 12 are not < 8
    rejects(s, P(9))
    apply(s, P(3))
    assert not s.spider and s.horde == [4, 8, 3]
    assert s.seat == 2
    assert rules.legal_actions(s) == [PASS, P(5), P(9)]  # > 3 again; the 2 is not


def test_RO4_spider_restriction_goes_with_the_horde_on_a_pass():
    s = table(3, hands=[[8, 10, 12], [3, 9, 12], [2]], horde=[4], reserve=[13, 14])
    apply(s, P(8), PASS)
    assert not s.spider and s.horde == [] and s.phase == rules.KEEP
    apply(s, V(14))
    assert s.phase == rules.RESTART
    assert rules.legal_actions(s) == [P(3), P(9), P(12), P(14)]  # any value on the new horde


def test_RO4_spider_after_a_spider_is_not_allowed_but_a_zero_is():
    s = table(2, hands=[[8, 10], [0, 8, 9]], horde=[4])
    apply(s, P(8))
    assert rules.legal_actions(s) == [PASS, P(0)]


# ----------------------------------------------------------------------------- R-O5 passing
def test_RO5_pass_discards_the_horde_costs_a_brain_draws_two_keeps_one_then_must_play():
    s = table(2, hands=[[3], [1]], horde=[5, 9], reserve=[12, 14])
    assert PASS in rules.legal_actions(s)
    apply(s, PASS)
    assert s.horde == [] and s.discard[5] == 1 and s.discard[9] == 1
    assert s.brains == [8, 9]
    assert s.phase == rules.KEEP and s.pending == [12, 14] and s.seat == 0
    assert rules.legal_actions(s) == [V(12), V(14)]
    rejects(s, V(3))
    apply(s, V(14))
    assert hand(s, 0) == [3, 14] and grave(s, 0) == [12]
    assert s.phase == rules.RESTART
    assert rules.legal_actions(s) == [P(3), P(14)]
    rejects(s, PASS)  # no second pass in the same turn
    apply(s, P(3))
    # refill: 1 card in hand, the graveyard's only card comes back without a choice
    assert hand(s, 1 - 1) == [12, 14] and grave(s, 0) == [] and s.seat == 1


def test_RO5_passing_on_an_empty_horde_is_allowed_and_costs_a_brain():
    s = table(2, hands=[[3], [1]])
    assert rules.legal_actions(s)[0] == PASS
    apply(s, PASS)
    assert s.brains == [8, 9]


def test_RO5_passing_at_the_last_brain_ends_the_game_at_once():
    s = table(3, hands=[[3], [1], [2]], horde=[5], brains=[1, 5, 4], reserve=[12, 14])
    apply(s, PASS)
    assert rules.is_terminal(s) and rules.current_seat(s) == -1
    assert s.brains == [0, 5, 4]
    assert s.reserve[:2] == [12, 14]  # nothing drawn
    assert rules.returns(s) == [-0.5, 1.0, -0.5]
    assert rules.legal_actions(s) == []
    rejects(s, PASS)


def test_RO5_reserve_reshuffle_when_the_reserve_runs_out():
    s = table(2, hands=[[3], [1]], horde=[16], reserve=[12], discard=[4, 6], rest=1)
    apply(s, PASS)  # draws 12, then reshuffles the discard (4, 6, 16) and draws one
    assert s.reshuffles == 1
    assert s.phase == rules.KEEP and s.pending[0] == 12 and s.pending[1] in (4, 6, 16)
    assert sum(s.discard) == 0 and len(s.reserve) == 2
    assert sorted(s.reserve + [s.pending[1]]) == [4, 6, 16]
    assert sorted(s.cards()) == FULL


def test_RO5_fewer_than_two_cards_to_draw_takes_what_there_is():
    s = table(2, hands=[[3], [1]], horde=[16], rest=1)  # reserve and discard empty
    apply(s, PASS)  # the horde (16) is reshuffled into the reserve: one card exists
    assert s.reshuffles == 1 and hand(s, 0) == [3, 16] and s.phase == rules.RESTART
    assert rules.legal_actions(s) == [P(3), P(16)]


def test_RO5_with_nothing_to_draw_and_an_empty_hand_the_play_is_skipped():
    """A seat emptied by someone else (R-O9) can only pass; with no card to draw its play
    is skipped, and its turn ends with no card: the round ends (R-O9)."""
    s = table(2, hands=[[], [1, 2]], graves=[[], [3]], rest=1)
    assert rules.legal_actions(s) == [PASS]
    apply(s, PASS)
    assert s.brains[0] == 8
    # round end: seat 1 loses one brain per card (its hand, graveyard and the rest)
    held = 50
    assert s.brains[1] == max(0, 9 - held) == 0 and rules.is_terminal(s)


# ----------------------------------------------------------------------------- R-O6 mouse
def test_RO6_mouse_discards_the_horde_refills_then_a_new_turn_for_the_same_seat():
    s = table(3, hands=[[11, 4], [1], [2]], graves=[[6, 7, 9], [], []], horde=[10])
    turn = s.turn
    apply(s, P(11))
    assert s.horde == [] and s.discard[10] == 1 and s.discard[11] == 1
    assert s.phase == rules.REFILL and s.seat == 0  # 3 graveyard cards, 2 needed: a choice
    assert rules.legal_actions(s) == [V(6), V(7), V(9)]
    apply(s, V(9))
    assert s.phase == rules.REFILL
    assert rules.legal_actions(s) == [V(6), V(7)]
    apply(s, V(6))
    assert hand(s, 0) == [4, 6, 9] and grave(s, 0) == [7]
    assert s.phase == rules.PLAY and s.seat == 0 and s.turn == turn + 1  # a whole new turn
    assert PASS in rules.legal_actions(s)  # it may pass again in its new turn


def test_RO6_two_mice_send_one_extra_and_give_one_new_turn():
    s = table(2, hands=[[11, 11, 4], [1]], horde=[10])
    apply(s, P(11, 2), OPP(1))
    assert grave(s, 1) == [11] and s.seat == 0 and s.phase == rules.PLAY and hand(s, 0) == [4]


def test_RO6_a_mouse_as_the_last_card_ends_the_round():
    s = table(3, hands=[[11], [1, 2], [4]], graves=[[], [3], []], horde=[10], brains=[9, 9, 5])
    apply(s, P(11))
    assert s.brains == [9, 6, 4]
    assert s.round == 2 and s.phase == rules.DRAFT and s.seat == 2  # fewest brains starts


# ----------------------------------------------------------------------------- R-O7 die faces
def _marsh(num_players=3, face=1, **kw):
    kw.setdefault("hands", [[19, 4, 6], [1], [2]][:num_players])
    return table(num_players, horde=[10], dice=[face], **kw)


def test_RO7_face_1_give_a_hand_card_to_a_chosen_opponent():
    s = _marsh(face=1)
    apply(s, P(19))
    assert s.die == 1 and s.phase == rules.GIVE_CARD
    assert rules.legal_actions(s) == [V(4), V(6)]
    rejects(s, V(19))
    apply(s, V(6))
    assert s.phase == rules.GIVE_TARGET and s.give == 6
    assert rules.legal_actions(s) == [OPP(1), OPP(2)]
    apply(s, OPP(2))
    assert grave(s, 2) == [6] and hand(s, 0) == [4] and s.give == -1
    assert s.phase == rules.PLAY and s.seat == 1  # refill (nothing) and the turn ended


def test_RO7_face_1_is_skipped_with_an_empty_hand():
    s = _marsh(face=1, hands=[[19], [1], [2]], graves=[[5], [], []])
    apply(s, P(19))
    assert s.die == 1 and hand(s, 0) == [5] and s.seat == 1  # skipped, then the refill


def test_RO7_face_2_every_seat_from_the_roller_takes_the_top_reserve_card():
    s = table(3, hands=[[1], [19, 4], [2]], horde=[10], reserve=[12, 13, 14], dice=[2], seat=1)
    apply(s, P(19))
    assert grave(s, 1) == [] and hand(s, 1) == [4, 12]  # took 12, then refilled it
    assert grave(s, 2) == [13] and grave(s, 0) == [14]


def test_RO7_face_2_reshuffles_and_stops_when_no_card_exists():
    s = table(3, hands=[[1], [19, 4, 5, 6], [2]], horde=[10], reserve=[12], discard=[3], dice=[2], seat=1, rest=0)
    held0 = sum(s.graves[0])
    apply(s, P(19))
    # 12 to seat 1; the reserve is empty: the discard (3) becomes the reserve: 3 to seat 2;
    # no card is left for seat 0
    assert s.reshuffles == 1
    assert grave(s, 1) == [12] and grave(s, 2) == [3] and sum(s.graves[0]) == held0
    assert s.reserve == [] and sum(s.discard) == 0
    assert s.horde == [10, 19]


def test_RO7_face_3_steal_a_brain_from_a_chosen_opponent():
    s = _marsh(face=3, brains=[9, 4, 7])
    apply(s, P(19))
    assert s.phase == rules.STEAL and rules.legal_actions(s) == [OPP(1), OPP(2)]
    apply(s, OPP(2))
    assert s.brains == [10, 4, 6] and s.seat == 1


def test_RO7_face_3_stealing_a_last_brain_ends_the_game_at_once():
    s = _marsh(face=3, brains=[9, 1, 5])
    apply(s, P(19), OPP(1))
    assert rules.is_terminal(s) and s.brains == [10, 0, 5]
    assert rules.returns(s) == [1.0, -0.5, -0.5]


def test_RO7_face_4_gain_a_brain():
    s = _marsh(face=4)
    apply(s, P(19))
    assert s.brains == [10, 9, 9] and s.seat == 1


def test_RO7_face_5_exchange_restrictions_like_swaps_like_and_no_empty_pile():
    """Your own pile may be empty; the opponent's pile of that kind may not."""
    s = _marsh(face=5, hands=[[19], [5, 6], []], graves=[[3], [], [7]])
    apply(s, P(19))
    assert s.phase == rules.EXCHANGE
    assert rules.legal_actions(s) == [XH(1), XG(2)]
    rejects(s, XH(2))  # seat 2's hand is empty
    rejects(s, XG(1))  # seat 1's graveyard is empty
    apply(s, XH(1))  # my empty hand for seat 1's two cards
    assert hand(s, 1) == [] and hand(s, 0) == [3, 5, 6] and grave(s, 0) == []  # then refill
    # R-O9: seat 1, emptied by someone else, plays on and can only pass
    assert s.seat == 1 and rules.legal_actions(s) == [PASS]


def test_RO7_face_5_exchange_graveyards():
    s = _marsh(face=5, hands=[[19, 4, 6, 9], [5], [2]], graves=[[3], [12, 13], []])
    apply(s, P(19), XG(1))
    assert grave(s, 0) == [12, 13] and grave(s, 1) == [3]


def test_RO7_face_5_is_skipped_when_no_opponent_qualifies():
    s = _marsh(2, face=5, hands=[[19, 4], []], graves=[[], []])
    apply(s, P(19))
    assert s.die == 5 and s.seat == 1 and rules.legal_actions(s) == [PASS]


def test_RO7_face_6_play_again_at_once_before_the_refill():
    s = _marsh(face=6, hands=[[19, 0, 5], [1], [2]], graves=[[7], [], []])
    apply(s, P(19))
    assert s.seat == 0 and s.phase == rules.PLAY and s.horde == [10, 19]
    assert grave(s, 0) == [7]  # no refill yet
    assert rules.legal_actions(s) == [PASS, P(0)]
    apply(s, P(0))
    assert hand(s, 0) == [5, 7] and s.seat == 1  # the refill comes at the end of the extra turn


def test_RO7_face_6_with_the_last_card_applies_the_roll_first_and_forces_a_pass():
    """The rulebook: a last card that forces a roll applies the roll first; no round end
    in between; with an empty hand the extra turn is a forced pass (R-O5)."""
    s = _marsh(face=6, hands=[[19], [1], [2]], reserve=[12, 13])
    apply(s, P(19))
    assert s.round == 1 and s.seat == 0 and rules.legal_actions(s) == [PASS]
    apply(s, PASS)
    assert s.brains[0] == 8 and s.phase == rules.KEEP and s.pending == [12, 13]


def test_RO7_the_face_applies_before_the_round_end_check():
    s = _marsh(face=3, hands=[[19], [1], [2]], brains=[9, 9, 9])
    apply(s, P(19), OPP(1))
    # seat 0 stole a brain, then its turn ended with no card: the round ends
    assert s.round == 2
    held1 = 1 + 0  # seat 1 holds its hand card; the rest of the deck lies in the reserve
    assert s.brains == [10, 8 - held1, 9 - 1]


def test_RO7_the_die_comes_from_the_seeded_rng_when_not_scripted():
    faces = set()
    for seed in range(60):
        s = table(2, hands=[[19, 4], [1]], horde=[10], rng_seed=seed)
        apply(s, P(19))
        faces.add(s.die)
        t = table(2, hands=[[19, 4], [1]], horde=[10], rng_seed=seed)
        apply(t, P(19))
        assert t.die == s.die  # same key, same roll
    assert faces == {1, 2, 3, 4, 5, 6}


# ----------------------------------------------------------------------------- R-O8 refill
def test_RO8_refill_without_a_choice_takes_the_whole_small_graveyard():
    s = table(2, hands=[[4, 9], [1]], graves=[[6, 7], []])
    apply(s, P(4))
    assert hand(s, 0) == [6, 7, 9] and grave(s, 0) == []


def test_RO8_refill_is_a_choice_when_the_graveyard_holds_more_than_needed():
    s = table(2, hands=[[4, 9, 12], [1]], graves=[[6, 7, 7], []])
    apply(s, P(4))
    assert s.phase == rules.REFILL and rules.legal_actions(s) == [V(6), V(7)]
    rejects(s, V(9))
    apply(s, V(7))
    assert hand(s, 0) == [7, 9, 12] and grave(s, 0) == [6, 7] and s.seat == 1


def test_RO8_no_refill_with_three_or_more_cards_in_hand():
    s = table(2, hands=[[4, 9, 12, 13], [1]], graves=[[6], []])
    apply(s, P(4))
    assert hand(s, 0) == [9, 12, 13] and grave(s, 0) == [6]


def test_RO8_refill_after_the_marshmallow_effect():
    s = table(2, hands=[[19, 4], [1]], horde=[10], reserve=[12, 13], dice=[2])
    apply(s, P(19))
    assert hand(s, 0) == [4, 12] and grave(s, 0) == [] and grave(s, 1) == [13]


# ----------------------------------------------------------------------------- R-O9 round end
def test_RO9_round_end_scoring_and_the_fewest_brains_seat_starts_the_next_round():
    s = table(3, hands=[[12], [1, 2], [4]], graves=[[], [3], []], horde=[10], brains=[9, 9, 5])
    apply(s, P(12))
    assert s.brains == [9, 6, 4]
    assert s.round == 2 and s.start_seat == 2
    assert s.phase == rules.DRAFT and s.seat == 2 and len(s.pending) == 3
    assert all(sum(h) == 0 for h in s.hands) and all(sum(g) == 0 for g in s.graves)
    assert len(s.reserve) == 47 and s.horde == [] and sum(s.discard) == 0
    assert sorted(s.cards()) == FULL  # all 50 cards re-drafted


def test_RO9_ties_for_fewest_brains_are_broken_by_the_seeded_rng():
    starters = set()
    for seed in range(30):
        s = table(3, hands=[[12], [1], [4]], horde=[10], brains=[9, 6, 6], rng_seed=seed)
        apply(s, P(12))
        assert s.brains == [9, 5, 5]
        starters.add(s.start_seat)
    assert starters == {1, 2}


def test_RO9_round_end_is_checked_for_the_active_seat_only():
    """A seat emptied by someone else's action does not end the round."""
    s = table(2, hands=[[19, 4, 5, 6], [7, 8]], horde=[10], dice=[5])
    apply(s, P(19), XH(1))  # seat 1 now holds nothing at all
    assert s.round == 1 and s.seat == 1 and rules.legal_actions(s) == [PASS]


def test_RO9_brains_never_go_below_zero_and_zero_ends_the_game():
    s = table(3, hands=[[12], [1, 2, 3, 4], [5]], horde=[10], brains=[9, 2, 3])
    apply(s, P(12))
    assert s.brains == [9, 0, 2] and rules.is_terminal(s)
    assert rules.returns(s) == [1.0, -0.5, -0.5]


# ----------------------------------------------------------------------------- R-O10 rewards
def test_RO10_three_way_tie_at_game_end():
    s = table(4, hands=[[1], [2], [3], [4]], brains=[3, 3, 1, 3], seat=2)
    apply(s, PASS)
    assert rules.is_terminal(s)
    third = pytest.approx(1 / 3)
    assert rules.returns(s) == [third, third, -1.0, third]
    assert sum(rules.returns(s)) == pytest.approx(0)


def test_RO10_two_way_tie_at_game_end():
    s = table(3, hands=[[1], [2], [3]], brains=[4, 1, 4], seat=1)
    apply(s, PASS)
    assert rules.returns(s) == [0.5, -1.0, 0.5]


def test_RO10_all_tied_pays_zero_and_a_running_game_pays_zero():
    s = table(2, hands=[[1], [2]], brains=[3, 3])
    assert rules.returns(s) == [0.0, 0.0]
    s.phase = rules.OVER
    assert rules.returns(s) == [0.0, 0.0]
    s.brains = [2, 0]
    assert rules.returns(s) == [1.0, -1.0]


# ----------------------------------------------------------------------------- engine contract
def test_apply_action_rejects_out_of_range_and_non_int_actions_without_change():
    s = table(2, hands=[[4], [1]])
    for bad in (-1, 93, 1.0, "0", None, True):
        rejects(s, bad)
    for bad in (V(4), OPP(1), XH(1), XG(1)):  # wrong decision kind
        rejects(s, bad)


def test_state_round_trip_and_validation():
    s = table(3, hands=[[4], [1], [2]], horde=[3])
    d = s.to_dict()
    assert rules.State.from_dict(d) == s and s.copy() == s
    bad = dict(d, hands=[[0] * 20] * 3)  # cards vanish
    with pytest.raises(ValueError, match="do not match the deck"):
        rules.State.from_dict(bad)
    with pytest.raises(ValueError, match="missing keys"):
        rules.State.from_dict({k: v for k, v in d.items() if k != "horde"})
    with pytest.raises(ValueError, match="pending"):
        rules.State.from_dict(dict(d, phase=rules.KEEP))
    with pytest.raises(ValueError, match="must be a dict"):
        rules.State.from_dict([1])
    with pytest.raises(ValueError, match="seat"):
        rules.State.from_dict(dict(d, seat=3))


def _base_dict(**mods):
    d = table(3, hands=[[4], [1], [2]], horde=[3]).to_dict()
    return dict(d, **mods)


def _no_hand(**mods):
    """Seat 0 holds nothing (its card 4 goes to the bottom of the reserve)."""
    d = _base_dict(**mods)
    d["hands"] = [[0] * 20, *d["hands"][1:]]
    d["reserve"] = d["reserve"] + [4]
    return d


@pytest.mark.parametrize(
    "data,match",
    [
        # R-O4: extra copies are copies of the horde's top; was an IndexError
        (dict(_base_dict(extras=2, horde=[]), reserve=_base_dict()["reserve"] + [3]), "extras"),
        (_base_dict(extras=-1), "extras"),  # was accepted; observe() then crashed
        (_base_dict(die=-1), "die"),  # was accepted and lit the spider entry of the observation
        (_base_dict(give=-2), "give"),
        (_base_dict(round=-1), "round"),
        (_base_dict(turn=-1), "turn"),
        (_base_dict(reshuffles=-1), "reshuffles"),
        (_base_dict(draft_count=99), "draft"),  # R-O3: 3 batches per seat
        (_base_dict(draft_count=0), "draft"),  # R-O3: the draft is over once play began
        (_base_dict(spider=True), "spider"),  # R-O4: the restriction needs a spider on top
        (_base_dict(mouse=True), "mouse"),  # R-O6: only during the mouse's own refill
        (_base_dict(brains=[0, 5, 5]), "0 brains"),  # R-O10: 0 brains ends the game at once
        (_base_dict(phase=rules.REFILL), "no legal action"),  # nothing in the graveyard
        (_no_hand(phase=rules.GIVE_CARD), "no legal action"),  # R-O7 face 1 needs a hand card
        (_no_hand(phase=rules.RESTART, horde=[], discard=[int(v == 3) for v in range(20)]),
         "no legal action"),  # R-O5: a restart needs a hand card
    ],
)
def test_state_from_dict_rejects_unreal_tables_with_a_value_error(data, match):
    """to_dict/from_dict: a table the rules cannot reach (R-O3..R-O10) raises a clear
    ValueError instead of an IndexError later, a corrupt observation or a seat to move
    with no legal action."""
    with pytest.raises(ValueError, match=match):
        rules.State.from_dict(data)


def test_state_from_dict_still_accepts_every_reached_table():
    """Every table met in play (draft, mouse refill, spider, extras, give, round 2+)
    passes the stricter from_dict checks."""
    rng = random.Random(3)
    kinds = set()
    for game in range(40):
        n = 2 + game % 4
        s = rules.new_game(rules.Config(num_players=n, starting_brains=30), random.Random(game))
        while s.phase != rules.OVER and s.round < 3:
            assert rules.State.from_dict(s.to_dict()) == s
            kinds.add(s.phase)
            legal = rules.legal_actions(s)
            plays = [a for a in legal if a != PASS]
            rules.apply_action(s, rng.choice(plays or legal))
        assert rules.State.from_dict(s.to_dict()) == s
    assert kinds == set(range(len(rules.DECISIONS)))
    # a mouse as the last card whose round end takes a last brain: over, mouse still set
    s = table(2, hands=[[11], [1, 2]], horde=[10], brains=[9, 2])
    rules.apply_action(s, P(11))
    assert rules.is_terminal(s) and s.mouse and rules.State.from_dict(s.to_dict()) == s


def test_action_decoders_read_the_encoding_backwards():
    """Players decode actions with the rules' own decoders, never with raw offsets."""
    for maxc in (1, 2, 3, 4):
        assert rules.max_copies_of(rules.num_actions(maxc)) == maxc
        for v in range(rules.NUM_VALUES):
            for k in range(1, maxc + 1):
                assert rules.played(rules.play_action(v, k, maxc), maxc) == (v, k)
    for v in range(rules.NUM_VALUES):
        assert rules.chosen_value(rules.VALUE_ACTION + v) == v
    for k in range(1, rules.MAX_PLAYERS):
        for base in (rules.OPPONENT_ACTION, rules.EXCHANGE_HAND, rules.EXCHANGE_GRAVE):
            assert rules.opponent_of(base + k - 1) == k
    with pytest.raises(ValueError, match="names no opponent"):
        rules.opponent_of(rules.PASS)
