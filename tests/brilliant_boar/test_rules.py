"""One scripted test per rule of The Brilliant Boar and per ruling R-W1..R-W9, including
the rulebook's examples (the wolf, the end of the game with Klaus, Andrea and Iris)."""

from __future__ import annotations

import random

import pytest

from braincards.envs.brilliant_boar import rules
from braincards.envs.brilliant_boar.cards import (
    LEVELS,
    MOTIF_OF,
    MOTIFS,
    NUM_CARDS,
    card_id,
    cards_of,
    motif_name,
)
from braincards.envs.core.errors import IllegalActionError

from ..common import accepted_actions
from .helpers import motifs_of, play, table

A = rules.apply_action
DRAW, TOP, MIDDLE = rules.DRAW, rules.TAKE_TOP, rules.TAKE_MIDDLE
WOLF = MOTIFS.index("wolf")


def accepted(state):
    return accepted_actions(state, rules, rules.num_actions(state.name_card), check_unchanged=True)


# ----------------------------------------------------------------------------- cards
def test_RW1_deck_is_9_motifs_of_6_cards():
    assert MOTIFS == ("badger", "wolf", "owl", "fox", "mouse", "hare", "duck", "stag", "boar")
    assert NUM_CARDS == 54
    for m in range(9):
        assert [MOTIF_OF[c] for c in cards_of(m)] == [m] * 6
    assert motif_name(card_id("wolf", 5)) == "wolf"
    with pytest.raises(ValueError, match="copy"):
        card_id("wolf", 6)


# ----------------------------------------------------------------------------- R-W1
@pytest.mark.parametrize("level,motifs", [(1, 6), (2, 7), (3, 8), (4, 9)])
def test_RW1_levels_use_6_to_9_motifs_of_6_cards(level, motifs):
    s = rules.new_game(rules.Config(num_players=2, level=level), random.Random(1))
    assert LEVELS[level] == motifs and len(s.motifs) == motifs
    assert sorted(s.cards()) == sorted(c for m in s.motifs for c in cards_of(m))
    assert len(s.pile) == 6 * motifs
    assert all(h == [] for h in s.hands)  # nobody holds a card at the start


def test_RW1_set_aside_motifs_come_from_the_seed():
    cfg = rules.Config(num_players=2, level=1)
    sets = {tuple(rules.new_game(cfg, random.Random(seed)).motifs) for seed in range(30)}
    assert len(sets) > 5  # random ...
    a = rules.new_game(cfg, random.Random(7))
    b = rules.new_game(cfg, random.Random(7))
    assert a == b  # ... and reproducible


def test_RW1_set_aside_motifs_can_be_given_by_name_or_index():
    cfg = rules.Config(num_players=2, level=2)
    names = ["wolf", "owl", "fox", "mouse", "hare", "duck", "boar"]
    s = rules.new_game(cfg, random.Random(0), motifs=names)
    assert [MOTIFS[m] for m in s.motifs] == sorted(names, key=MOTIFS.index)
    t = rules.new_game(cfg, random.Random(0), motifs=[1, 2, 3, 4, 5, 6, 8])
    assert s == t
    assert "badger" not in motifs_of(s.cards()) and "stag" not in motifs_of(s.cards())


@pytest.mark.parametrize(
    "motifs,match",
    [
        (["wolf"], "exactly 6 motifs"),
        (["wolf", "wolf", "owl", "fox", "mouse", "hare"], "twice"),
        (["wolf", "dog", "owl", "fox", "mouse", "hare"], "not a motif"),
        ([0, 1, 2, 3, 4, 9], "not a motif"),
        ([0, 1, 2, 3, 4, True], "not a motif"),
        ("wolf", "list"),
    ],
)
def test_RW1_bad_motifs_are_rejected(motifs, match):
    with pytest.raises(ValueError, match=match):
        rules.new_game(rules.Config(level=1), random.Random(0), motifs=motifs)


def test_RW1_scripted_deck_must_fit_the_motifs_in_play():
    cfg = rules.Config(num_players=2, level=1)
    with pytest.raises(ValueError, match="set aside"):
        rules.new_game(cfg, random.Random(0), deck=[card_id("boar")], motifs=[0, 1, 2, 3, 4, 5])
    with pytest.raises(ValueError, match="7 motifs"):
        rules.new_game(cfg, random.Random(0), deck=[card_id(m) for m in MOTIFS[:7]])
    with pytest.raises(ValueError, match="duplicate"):
        rules.new_game(cfg, random.Random(0), deck=[0, 0])
    with pytest.raises(ValueError, match="not a card id"):
        rules.new_game(cfg, random.Random(0), deck=[54])
    # without motifs: the deck's motifs are in play, the others drawn from the seed
    s = rules.new_game(cfg, random.Random(0), deck=[card_id("boar"), card_id("stag")])
    assert {7, 8} <= set(s.motifs) and len(s.motifs) == 6
    assert s.pile == [card_id("boar"), card_id("stag")]


# ----------------------------------------------------------------------------- R-W2
def test_RW2_pile_lies_face_up_and_drawing_reveals_the_next_card():
    s = table(2, pile=["wolf", "owl", "fox"])
    assert motifs_of(s.pile[:1]) == ["wolf"]
    A(s, DRAW)
    assert motifs_of(s.pile[:1]) == ["owl"]
    assert motifs_of(s.hands[0]) == ["wolf"]  # the drawn card is the one that lay on top


# ----------------------------------------------------------------------------- R-W3
def test_RW3_drawn_cards_are_appended_at_the_end_of_the_hand():
    s = table(1, pile=["wolf", "owl", "fox", "mouse"], hands=[["badger", "hare"]])
    A(s, DRAW)
    A(s, DRAW)
    assert motifs_of(s.hands[0]) == ["badger", "hare", "wolf", "owl"]


def test_RW3_playing_from_the_middle_of_the_hand_closes_the_gap():
    s = table(2, pile=["stag", "duck"], hands=[["badger", "hare", "wolf"], ["owl"]])
    A(s, play(1))  # the hare: no match, to the middle
    assert motifs_of(s.hands[0]) == ["badger", "wolf"]
    assert motifs_of(s.middle) == ["hare"]


# ----------------------------------------------------------------------------- R-W4
def test_RW4_first_turn_only_draw_is_possible():
    s = rules.new_game(rules.Config(num_players=3), random.Random(2))
    assert rules.legal_actions(s) == [DRAW] == accepted(s)


def test_RW4_draw_or_play_any_position():
    s = table(2, pile=["wolf"], hands=[["owl", "fox", "hare"], ["duck"]])
    assert rules.legal_actions(s) == [DRAW, play(0), play(1), play(2)] == accepted(s)


def test_RW4_empty_pile_means_you_must_play():
    s = table(3, pile=[], hands=[["owl", "fox"], ["duck"], ["stag"]])
    assert rules.legal_actions(s) == [play(0), play(1)] == accepted(s)
    with pytest.raises(IllegalActionError, match="pile is empty"):
        A(s, DRAW)


def test_RW4_a_seat_with_no_legal_action_is_skipped():
    # the pile is empty and seat 1 holds nothing: after seat 0, seat 2 moves
    s = table(3, pile=[], hands=[["owl", "hare"], [], ["fox"]], middle=["stag"], won=[[], ["wolf", "wolf"], []])
    assert s.seat == 0
    A(s, play(0))  # owl: miss
    assert s.seat == 2 and s.phase == rules.TURN
    # a table whose seat to start has nothing is skipped on at once
    t = table(3, pile=[], hands=[[], ["owl"], ["fox"]], seat=0)
    assert t.seat == 1


# ----------------------------------------------------------------------------- R-W5
def test_RW5_match_with_the_pile_top_takes_both_and_plays_again():
    s = table(2, pile=["wolf", "owl"], hands=[["fox", "wolf"], ["duck"]])
    A(s, play(1))
    assert motifs_of(s.won[0]) == ["wolf", "wolf"]
    assert motifs_of(s.pile) == ["owl"] and motifs_of(s.hands[0]) == ["fox"]
    assert s.seat == 0 and s.phase == rules.TURN  # another turn
    A(s, DRAW)
    assert s.seat == 1


def test_RW5_match_with_a_middle_card_takes_both_and_plays_again():
    s = table(2, pile=["owl"], hands=[["fox"], ["duck"]], middle=["hare", "fox"])
    A(s, play(0))
    assert motifs_of(s.won[0]) == ["fox", "fox"]
    assert motifs_of(s.middle) == ["hare"] and motifs_of(s.pile) == ["owl"]
    assert s.seat == 0 and s.phase == rules.TURN


def test_RW5_no_match_stays_face_up_in_the_middle_and_ends_the_turn():
    s = table(2, pile=["owl"], hands=[["fox"], ["duck"]], middle=["hare"])
    A(s, play(0))
    assert motifs_of(s.middle) == ["hare", "fox"] and s.won == [[], []]
    assert s.seat == 1


def test_RW5_repeated_matches_give_repeated_turns():
    s = table(2, pile=["owl", "fox", "duck"], hands=[["owl", "hare", "fox"], ["stag"]], middle=["hare"])
    A(s, play(0))  # owl with the pile's owl; now the fox is on top
    A(s, play(0))  # hare with the middle's hare
    A(s, play(0))  # fox with the pile's fox
    assert len(s.won[0]) == 6 and s.seat == 0 and s.hands[0] == []
    assert rules.legal_actions(s) == [DRAW]


def test_RW5_wolf_example_choice_between_pile_top_and_middle():
    """The rulebook's wolf: a wolf played without a match stays in the middle; a draw
    reveals another wolf on the pile; the next wolf played chooses which one to take."""
    s = table(2, pile=["owl", "wolf", "fox"], hands=[["wolf", "hare", "wolf"], ["duck"]])
    A(s, play(0))  # player 0's wolf: no match (the top is an owl): into the middle
    assert motifs_of(s.middle) == ["wolf"] and s.seat == 1
    A(s, DRAW)  # player 1 takes the owl: beneath it a wolf becomes visible
    assert motifs_of(s.pile[:1]) == ["wolf"] and motifs_of(s.middle) == ["wolf"]
    assert s.seat == 0 and motifs_of(s.hands[0]) == ["hare", "wolf"]
    A(s, play(1))  # player 0 plays its other wolf: pile top and middle both match
    assert s.phase == rules.CHOOSE and s.seat == 0
    assert rules.legal_actions(s) == [TOP, MIDDLE] == accepted(s)
    assert motifs_of([s.pending]) == ["wolf"]
    take_top, take_mid = s.copy(), s.copy()
    A(take_top, TOP)
    assert motifs_of(take_top.won[0]) == ["wolf", "wolf"]
    assert motifs_of(take_top.middle) == ["wolf"] and motifs_of(take_top.pile) == ["fox"]
    A(take_mid, MIDDLE)
    assert motifs_of(take_mid.won[0]) == ["wolf", "wolf"]
    assert take_mid.middle == [] and motifs_of(take_mid.pile) == ["wolf", "fox"]
    for t in (take_top, take_mid):  # either way the match earns another turn
        assert t.seat == 0 and t.phase == rules.TURN


def test_RW5_choice_is_never_made_on_the_players_behalf():
    """"if possible": with two legal ways (pile top, middle) the env asks; with one it
    takes it without a question."""
    s = table(2, pile=["wolf"], hands=[["wolf"], ["duck"]], middle=["wolf"])
    A(s, play(0))
    assert s.phase == rules.CHOOSE
    t = table(2, pile=["owl"], hands=[["wolf"], ["duck"]], middle=["wolf"])
    A(t, play(0))
    assert t.phase == rules.TURN and len(t.won[0]) == 2


def test_RW5_choose_decision_rejects_every_other_action():
    s = table(2, pile=["wolf"], hands=[["wolf", "owl"], ["duck"]], middle=["wolf"])
    A(s, play(0))
    for a in (DRAW, play(0), rules.NUM_ACTIONS_PLAIN, -1):
        with pytest.raises(IllegalActionError):
            A(s.copy(), a)


def test_RW5_starting_seat_is_drawn_from_the_seed_unless_given():
    cfg = rules.Config(num_players=4)
    seats = {rules.new_game(cfg, random.Random(seed)).seat for seed in range(40)}
    assert seats == {0, 1, 2, 3}
    assert rules.new_game(cfg, random.Random(0), first_player=2).seat == 2
    with pytest.raises(ValueError, match="first_player"):
        rules.new_game(cfg, random.Random(0), first_player=4)


def test_RW5_end_is_checked_before_the_extra_turn():
    """A match that empties the pile while at most one seat holds cards ends the game
    at once: the matching seat gets no extra turn for the cards it still holds."""
    s = table(2, pile=["wolf"], hands=[["wolf", "owl"], []], won=[[], ["fox", "fox"]])
    A(s, play(0))
    assert rules.is_terminal(s) and rules.current_seat(s) == -1
    assert motifs_of(s.hands[0]) == ["owl"]
    assert rules.scores(s) == [2 - 1, 2]
    assert rules.legal_actions(s) == [] == accepted(s)


def test_RW5_base_game_middle_never_holds_two_cards_of_one_motif():
    # playing a motif that lies in the middle always matches it
    s = table(2, pile=["owl"], hands=[["fox"], ["duck"]], middle=["fox"])
    A(s, play(0))
    assert s.middle == []


# ----------------------------------------------------------------------------- R-W6
def test_RW6_named_play_matches_only_with_the_right_name():
    s = table(2, pile=["owl"], hands=[["fox"], ["duck"]], middle=["fox"], name_card=True)
    right = s.copy()
    A(right, play(0, "fox"))
    assert motifs_of(right.won[0]) == ["fox", "fox"] and right.seat == 0
    A(s, play(0, "wolf"))  # a miss although a fox lies in the middle
    assert motifs_of(s.middle) == ["fox", "fox"]  # the middle now holds two foxes
    assert s.won == [[], []] and s.seat == 1


def test_RW6_miss_with_the_pile_top_matching_too():
    s = table(2, pile=["fox", "owl"], hands=[["fox"], ["duck"]], name_card=True)
    A(s, play(0, "owl"))
    assert motifs_of(s.middle) == ["fox"] and motifs_of(s.pile) == ["fox", "owl"]


def test_RW6_right_name_without_a_matching_card_is_a_miss():
    s = table(2, pile=["owl"], hands=[["fox"], ["duck"]], name_card=True)
    A(s, play(0, "fox"))
    assert motifs_of(s.middle) == ["fox"] and s.seat == 1


def test_RW6_two_of_a_motif_in_the_middle_then_a_match_takes_one():
    s = table(2, pile=["owl"], hands=[["duck"], ["fox"]], middle=["fox", "fox"], name_card=True)
    A(s, play(0, "duck"))  # miss
    A(s, play(0, "fox"))  # seat 1 matches one of the two foxes
    assert motifs_of(s.middle) == ["fox", "duck"] and motifs_of(s.won[1]) == ["fox", "fox"]


def test_RW6_right_name_with_both_matches_asks_for_the_choice():
    s = table(2, pile=["fox"], hands=[["fox"], ["duck"]], middle=["fox"], name_card=True)
    A(s, play(0, "fox"))
    assert s.phase == rules.CHOOSE


def test_RW6_every_play_names_a_motif_in_play():
    s = table(2, pile=["owl"], hands=[["fox", "hare"], ["owl"]], name_card=True, level=1)
    legal = rules.legal_actions(s)
    assert legal == [DRAW] + [play(p, MOTIFS[m]) for p in range(2) for m in s.motifs] == accepted(s)
    with pytest.raises(IllegalActionError, match="R-W6"):
        A(s, play(0))  # a plain play does not name a motif
    with pytest.raises(IllegalActionError, match="not in play"):
        A(s, play(0, "boar"))  # level 1 here plays badger..hare
    with pytest.raises(IllegalActionError, match="no position"):
        A(s, play(2, "fox"))
    plain = table(2, pile=["owl"], hands=[["fox"], ["duck"]])
    with pytest.raises(IllegalActionError, match="0..56"):
        A(plain, play(0, "fox"))  # named plays do not exist without the variant


# ----------------------------------------------------------------------------- R-W7
def _klaus_andrea_iris() -> rules.State:
    """The pile is empty; Andrea (seat 1) is about to pair her fox with the middle's."""
    return table(
        3,
        pile=[],
        hands=[["badger", "wolf"], ["fox"], []],
        middle=["badger", "hare", "fox"],
        seat=1,
        fill_won=(18, 12, 18),
    )


def test_RW7_end_of_game_example_klaus_16_andrea_14_iris_18():
    s = _klaus_andrea_iris()
    assert len(s.cards()) == 54 and not rules.is_terminal(s)
    A(s, play(0))  # Andrea's fox pairs with the middle fox: 7 pairs
    assert rules.is_terminal(s)
    assert [len(w) for w in s.won] == [18, 14, 18] and len(s.middle) == 2
    assert rules.scores(s) == [16, 14, 18]
    assert rules.returns(s, "score") == [16.0, 14.0, 18.0]
    assert rules.returns(s) == [-0.5, -0.5, 1.0]  # Iris wins (zero-sum by rank)


def test_RW7_final_player_may_not_play_out_even_with_a_match_lying_open():
    s = _klaus_andrea_iris()
    A(s, play(0))
    assert motifs_of(s.hands[0]) == ["badger", "wolf"] and "badger" in motifs_of(s.middle)
    assert rules.legal_actions(s) == [] == accepted(s)
    with pytest.raises(IllegalActionError, match="game is over"):
        A(s, play(0))


def test_RW7_play_goes_on_while_two_seats_hold_cards_after_the_pile_empties():
    s = table(3, pile=["owl"], hands=[["fox"], ["duck"], []])
    A(s, DRAW)  # the pile is empty, but seats 0 and 1 hold cards
    assert not rules.is_terminal(s) and s.seat == 1
    assert rules.legal_actions(s) == [play(0)]
    A(s, play(0))  # duck to the middle; only seat 0 holds cards now
    assert rules.is_terminal(s)
    assert rules.scores(s) == [-2, 0, 0]


def test_RW7_rank_rewards_share_plus_one_and_minus_one():
    s = table(4, pile=[], hands=[["fox"], [], [], []], won=[["owl"] * 2, ["wolf"] * 2, ["hare"] * 2, ["duck"] * 2])
    assert rules.is_terminal(s) and rules.scores(s) == [1, 2, 2, 2]
    assert rules.returns(s) == [-1.0, 1 / 3, 1 / 3, 1 / 3]
    t = table(2, pile=[], won=[["owl"] * 2, ["wolf"] * 2])
    assert rules.returns(t) == [0.0, 0.0]  # all tied
    assert rules.returns(t, "score", normalize=True) == [0.5, 0.5]  # 2 of 4 cards each


# ----------------------------------------------------------------------------- R-W8
def test_RW8_solo_miss_sends_the_card_and_the_pile_top_to_the_error_stack():
    s = table(1, pile=["owl", "hare", "duck"], hands=[["fox"]])
    A(s, play(0))
    assert motifs_of(s.errors) == ["fox", "owl"] and s.middle == []
    assert motifs_of(s.pile) == ["hare", "duck"] and s.seat == 0


def test_RW8_solo_match_with_the_pile_top():
    s = table(1, pile=["owl", "hare"], hands=[["owl"]])
    A(s, play(0))
    assert motifs_of(s.won[0]) == ["owl", "owl"] and s.errors == []


def test_RW8_solo_ends_when_the_pile_is_empty_and_scores_with_the_error_stack():
    s = table(1, pile=["owl", "hare", "duck", "stag"], hands=[["fox", "hare", "wolf"]], won=[["badger"] * 2])
    A(s, play(2))  # wolf vs owl: miss -> wolf + owl to the error stack
    A(s, play(0))  # fox vs hare: miss -> fox + hare
    A(s, DRAW)  # the duck; the stag is on top
    assert not rules.is_terminal(s)
    A(s, DRAW)  # the stag: the pile is empty, the game ends at once
    assert rules.is_terminal(s)
    assert len(s.won[0]) == 2 and len(s.errors) == 4 and len(s.hands[0]) == 3
    assert rules.scores(s) == [2 - 4 - 3]
    assert rules.returns(s) == [-5.0]
    assert rules.returns(s, normalize=True) == [-5 / 9]
    assert len(s.cards()) == 9


def test_RW8_solo_miss_that_empties_the_pile_ends_the_game():
    s = table(1, pile=["owl"], hands=[["fox", "hare"]])
    A(s, play(0))
    assert rules.is_terminal(s) and rules.scores(s) == [0 - 2 - 1]


def test_RW8_solo_starts_with_seat_0_and_first_decision_is_draw():
    s = rules.new_game(rules.Config(num_players=1, level=1), random.Random(5))
    assert s.seat == 0 and rules.legal_actions(s) == [DRAW]


# ----------------------------------------------------------------------------- misc
def test_apply_action_rejects_bad_values_before_changing_anything():
    s = table(2, pile=["owl"], hands=[["fox"], ["duck"]])
    before = s.to_dict()
    for a in (-1, 57, 1.0, "0", None, True, play(1)):
        with pytest.raises(IllegalActionError):
            A(s, a)
        assert s.to_dict() == before
    with pytest.raises(IllegalActionError, match="no choice"):
        A(s, TOP)


def test_empty_scripted_deck_is_over_at_once():
    s = rules.new_game(rules.Config(num_players=2), random.Random(0), deck=[])
    assert rules.is_terminal(s) and rules.returns(s) == [0.0, 0.0]


def test_state_round_trip_and_validation():
    s = table(2, pile=["wolf"], hands=[["wolf"], ["duck"]], middle=["wolf"])
    A(s, play(0))
    assert s.phase == rules.CHOOSE
    d = s.to_dict()
    assert rules.State.from_dict(d) == s and s.copy() == s
    c = s.copy()
    c.hands[1].append(0)
    assert c != s and s.hands[1] != c.hands[1]  # copy() shares no list

    def bad(**change):
        data = dict(d, **change)
        with pytest.raises(ValueError):
            rules.State.from_dict(data)

    bad(pile=d["pile"] + d["middle"])  # a card in two places
    bad(pending=-1)  # CHOOSE without a pending card
    bad(phase=rules.OVER)  # the game is not over
    bad(seat=2)
    bad(level=5)
    bad(motifs=[0, 1, 2])
    bad(hands=[[]])
    bad(name_card=1)
    with pytest.raises(ValueError, match="missing keys"):
        rules.State.from_dict({"pile": []})
    with pytest.raises(ValueError, match="dict"):
        rules.State.from_dict([])
    with pytest.raises(ValueError, match="solo middle"):
        table(1, pile=["owl"], hands=[["fox"]], middle=["hare"])


def test_config_validation():
    for kw, match in [
        ({"num_players": 0}, "num_players"),
        ({"num_players": 5}, "num_players"),
        ({"num_players": 2.0}, "num_players"),
        ({"level": 0}, "level"),
        ({"level": 5}, "level"),
        ({"name_card": 1}, "name_card"),
    ]:
        with pytest.raises(ValueError, match=match):
            rules.Config(**kw)


# ----------------------------------------------------------------------------- state checks (review)
def test_RW8_solo_game_ending_with_all_54_cards_in_hand_round_trips():
    """R-W8: a solo player may draw the whole pile without ever playing; the game ends when
    the pile is empty with all 54 cards in hand (score -54). That finished table is a real
    one: to_dict/from_dict and the env's reset(options={"state": ...}) must accept it."""
    from braincards.envs.brilliant_boar.env import raw_env

    s = rules.new_game(rules.Config(num_players=1, level=4), random.Random(0))
    while not rules.is_terminal(s):
        A(s, DRAW)
    assert len(s.hands[0]) == NUM_CARDS and rules.scores(s) == [-NUM_CARDS]
    assert rules.State.from_dict(s.to_dict()) == s
    e = raw_env(num_players=1)
    e.reset(options={"state": s.to_dict()})
    assert e.terminations["player_0"] and e.rewards["player_0"] == -NUM_CARDS
    assert e.observe("player_0")["observation"].shape == e.observation_space("player_0")["observation"].shape


def test_RW8_error_stack_exists_only_in_solo_state_check():
    """R-W8: the error stack is a solo rule; with 2+ players a miss stays in the middle
    (R-W5), so a 2+ player table with cards on an error stack is not a real table (it would
    also lower every seat's observed score while rules.scores ignores it)."""
    s = table(2, pile=["owl", "hare"], hands=[["fox"], ["duck"]])
    d = s.to_dict()
    d["errors"] = [d["pile"].pop()]
    with pytest.raises(ValueError, match="error stack"):
        rules.State.from_dict(d)


def test_RW5_base_game_middle_with_two_cards_of_one_motif_is_not_a_real_table():
    """R-W5: in the base game the middle never holds two cards of one motif (only the
    name-a-card variant R-W6 allows that), so from_dict rejects such a table."""
    with pytest.raises(ValueError, match="two cards of one motif"):
        table(2, pile=["owl"], hands=[["fox"], ["duck"]], middle=["wolf", "wolf"])
    t = table(2, pile=["owl"], hands=[["fox"], ["duck"]], middle=["wolf", "wolf"], name_card=True)
    assert motifs_of(t.middle) == ["wolf", "wolf"]
