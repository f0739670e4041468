"""The rule baselines: The Brain's careful casual player (``heuristic``), its ``cautious``
style and the first heuristic kept as ``style=scoring``; the other styles of Oh My Brain
(``shedder``) and Brilliant Boar (``setter``). Scripted tables check each rule of the
careful player (the deck of R-B1); real games check legality, the styles' rules and that the
careful team is a baseline worth beating at 3 players, robber."""

from __future__ import annotations

import pytest

from braincards.envs import derive_seed, make
from braincards.envs.brilliant_boar.env import raw_env as boar_raw_env
from braincards.envs.oh_my_brain.cards import MOSQUITO, MOUSE
from braincards.envs.oh_my_brain.rules import PLAY_ACTION, max_copies_of, played
from braincards.envs.the_brain import rules
from braincards.training.agents.heuristics import STYLES, make_heuristic
from braincards.training.agents.heuristics.brilliant_boar import DRAW, PLAY
from braincards.training.agents.heuristics.the_brain_scoring import TheBrainScoringHeuristic
from braincards.training.agents.policy import PolicySpecError, legal_actions
from braincards.training.agents.specs import make_policy
from braincards.training.evaluation.evaluate import evaluate
from tests.the_brain.helpers import C, env_with, table

from .test_greedy import assert_loses_only_unsurvivable_turns


def _act(state: rules.State, style: str = "careful", **config) -> int:
    env = env_with(state, **config)
    player = make_heuristic("the_brain_v0", {"num_players": state.num_players, "difficulty": state.limit,
                                             **config}, style=style)
    agent = env.agent_selection
    return player.act(env.observe(agent), agent)


# ---------------------------------------------------------------- The Brain: each rule, scripted
def test_a_remove_card_that_clears_two_stacks_comes_first():
    """R-B5 remove: the red brain removes both grey tops; it is played before the donate card,
    although the display has room to shed it."""
    state = table(2, hands=[["red brain", "blue fingerprint", "green fingerprint"], ["purple brain"]],
                  display=[["grey brain"], ["grey key"]], deck=["red safe"])
    assert _act(state) == C("red brain")


def test_with_room_it_sheds_the_cards_that_add_stacks():
    """Room for two stacks: the extra_card (with another card to play) goes first; with room
    for one, a donate card, before the cover it keeps for later (R-B5 donate, cover)."""
    hand = ["green fingerprint", "blue fingerprint", "blue magnifying_glass"]
    state = table(2, hands=[hand, ["purple brain"]], display=[["red key"]], deck=["red safe"])
    assert _act(state) == C("green fingerprint")  # limit 7: room for 5
    state = table(2, hands=[hand, ["purple brain"]], display=[["red key"]], deck=["red safe"], limit=3)
    assert _act(state) == C("blue fingerprint")  # room for one: no extra card, a donate


def test_the_cautious_style_keeps_two_stacks_of_room():
    """The same table with room for one stack: careful still sheds, cautious covers."""
    hand = ["blue fingerprint", "blue magnifying_glass"]
    state = table(2, hands=[hand, ["purple brain"]], display=[["red key"]], deck=["red safe"], limit=3)
    assert _act(state, "careful") == C("blue fingerprint")
    assert _act(state, "cautious") == C("blue magnifying_glass")


def test_never_reaches_the_limit_when_a_card_avoids_it():
    """R-B6: one stack below the limit, the donate card would lose; the cover keeps the count."""
    state = table(2, hands=[["blue fingerprint", "blue magnifying_glass"], ["purple brain"]],
                  display=[["red key"], ["grey brain"]], limit=3)
    assert _act(state) == C("blue magnifying_glass")


def test_when_tight_a_one_card_take_back_before_a_cover():
    """R-B5 take_back: taking a one-card stack back keeps the count and the cover for later;
    the cautious style covers first."""
    state = table(2, hands=[["red fingerprint", "blue magnifying_glass"], ["purple brain"]],
                  display=[["red key"], ["grey brain"], ["green lock"]], limit=4)
    assert _act(state) == C("red fingerprint")
    assert _act(state, "cautious") == C("blue magnifying_glass")


def test_the_bold_style_takes_back_a_big_stack_before_it_covers():
    """R-B5 take_back: with the display tight and no one-card stack, the bold style takes a
    two-card stack back (holding more cards for later) where the careful player covers."""
    state = table(2, hands=[["red fingerprint", "blue magnifying_glass"], ["purple brain"]],
                  display=[["red key", "grey safe"], ["grey brain", "green lock"]], limit=3)
    assert _act(state) == C("blue magnifying_glass")
    assert _act(state, "bold") == C("red fingerprint")


def test_the_extra_card_is_the_card_it_would_least_keep():
    """R-B5 extra_card: the second card's action is ignored, so a donate card goes, not the
    cover or the remove card."""
    state = table(2, hands=[["green fingerprint", "blue magnifying_glass", "red brain", "blue fingerprint"],
                            ["purple brain"]], display=[["red key"]], deck=["red safe"])
    env = env_with(state)
    player = make_heuristic("the_brain_v0", {"num_players": 2, "difficulty": 7})
    assert player.act(env.observe("player_0")) == C("green fingerprint")
    env.step(C("green fingerprint"))
    assert env.state.phase == rules.EXTRA
    assert player.act(env.observe("player_0")) == C("blue fingerprint")


def test_donates_its_most_useful_card_to_the_seat_holding_fewest():
    """R-B5 donate: the cover goes (not the extra_card), to seat 2, which holds one card."""
    state = table(3, hands=[["purple brain", "blue magnifying_glass", "green fingerprint"],
                            ["grey brain", "green lock", "yellow safe"], []],
                  domains=[[], [], ["blue lock"]], deck=["red safe"])
    env = env_with(state)
    player = make_heuristic("the_brain_v0", {"num_players": 3, "difficulty": 7})
    env.step(C("purple brain"))  # (it would play the extra_card first: room for two stacks)
    assert env.state.phase == rules.DONATE_CARD
    assert player.act(env.observe("player_0")) == C("blue magnifying_glass")
    env.step(C("blue magnifying_glass"))
    assert player.act(env.observe("player_0")) == rules.SEAT_ACTION + 1


def test_covers_the_top_nobody_can_clear_any_more():
    """R-B5 cover, R-B8 memory: both removers of the red key are in the discard pile, so its
    stack is covered, not the grey brain's (two removers still to come)."""
    state = table(2, hands=[["blue magnifying_glass", "purple brain"], ["purple key"]],
                  display=[["grey brain"], ["red key"]], discard=["blue lock", "yellow fingerprint"],
                  deck=["red safe"], limit=3)
    env = env_with(state)
    player = make_heuristic("the_brain_v0", {"num_players": 2, "difficulty": 3})
    assert player.act(env.observe("player_0")) == C("blue magnifying_glass")
    env.step(C("blue magnifying_glass"))
    assert env.state.phase == rules.COVER_TARGET
    assert player.act(env.observe("player_0")) == C("red key")


def test_takes_back_the_stack_worth_most_for_its_size():
    """R-B5 take_back: with no room, a take back before the donate card; the stack of two
    covers comes back (two safety valves), not the lone donate card."""
    state = table(2, hands=[["red fingerprint", "purple brain"], ["purple key"]],
                  display=[["grey brain", "blue magnifying_glass"], ["grey magnifying_glass"]],
                  deck=["red safe"], limit=3)
    env = env_with(state)
    player = make_heuristic("the_brain_v0", {"num_players": 2, "difficulty": 3})
    assert player.act(env.observe("player_0")) == C("red fingerprint")
    env.step(C("red fingerprint"))
    assert env.state.phase == rules.TAKE_BACK_TARGET
    assert player.act(env.observe("player_0")) == C("blue magnifying_glass")


# ---------------------------------------------------------------- The Brain: real games
@pytest.mark.parametrize("config", [
    {"num_players": 3, "difficulty": "cat_burglar"},
    {"num_players": 2, "difficulty": "robber", "memory": "none", "draw_rule": "optional"},
    {"num_players": 4, "difficulty": "robber", "open_hands": True},
    {"num_players": 3, "difficulty": "amateur", "discard_peek": True, "hand_size": 4},
    {"num_players": 1, "difficulty": "robber"},
])
@pytest.mark.parametrize("style", ["careful", "cautious", "bold"])
def test_legal_everywhere_and_never_loses_a_turn_it_could_survive(config, style):
    """Every action is legal, and every lost game was lost on a turn where every way to play
    reached the limit (R-B6; the player sees its own cards and the display, all a turn uses)."""
    assert_loses_only_unsurvivable_turns(make_heuristic("the_brain_v0", config, style=style), config, seed=5)


def test_the_careful_team_wins_more_than_half_at_three_players_robber():
    """The baseline a reviewer accepts: the careful team wins at least 0.55 of 3-player robber
    games (measured 0.65 on these 300 deals; the rules were designed on seed 101). The first
    heuristic, kept as style=scoring, plays exactly as before: 17 wins of 300 on seed 101."""
    config = {"num_players": 3, "difficulty": "robber"}
    careful = evaluate("the_brain_v0", config, seats=["heuristic"] * 3, games=300, seed=0, progress=False)
    assert careful["team"]["win_rate"]["value"] >= 0.55
    scoring = evaluate("the_brain_v0", config, seats=["heuristic:style=scoring"] * 3, games=300, seed=101,
                       progress=False)
    assert round(scoring["team"]["win_rate"]["value"] * 300) == 17


# ---------------------------------------------------------------- styles and their specs
def test_each_game_names_its_styles_and_refuses_the_others():
    assert STYLES == {"the_brain_v0": ("careful", "cautious", "bold", "scoring"),
                      "oh_my_brain_v0": ("tidy", "shedder"), "brilliant_boar_v0": ("keeper", "shedder")}
    assert isinstance(make_policy("heuristic:style=scoring", "the_brain_v0"), TheBrainScoringHeuristic)
    assert make_policy("heuristic:style=cautious", "the_brain_v0").name == "heuristic:style=cautious"
    assert make_policy("heuristic:style=bold", "the_brain_v0").name == "heuristic:style=bold"
    assert make_policy("heuristic:style=careful", "the_brain_v0").name == "heuristic"
    with pytest.raises(PolicySpecError, match=r"unknown heuristic style 'careful' for Oh My Brain; "
                                              r"allowed: \['tidy', 'shedder'\]"):
        make_policy("heuristic:style=careful", "oh_my_brain_v0")
    with pytest.raises(PolicySpecError, match="unknown heuristic style 'brave'"):
        make_policy("heuristic:style=brave", "the_brain_v0")
    with pytest.raises(ValueError, match="unknown Brilliant Boar heuristic style 'tidy'"):
        make_heuristic("brilliant_boar_v0", {}, style="tidy")


def test_the_shedder_plays_the_value_it_holds_most_copies_of():
    """Oh My Brain: at every play decision with a normal value to play, the shedder plays the
    most copies (the highest value on a tie), the tidy player the lowest value."""
    config = {"num_players": 3}
    env = make("oh_my_brain_v0", raw=True, **config)
    shedder = make_policy("heuristic:style=shedder", "oh_my_brain_v0", config)
    tidy = make_policy("heuristic", "oh_my_brain_v0", config)
    differed = checked = 0
    for g in range(20):
        env.reset(seed=derive_seed(7, g))
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            maxc = max_copies_of(len(obs["action_mask"]))
            action = shedder.act(obs, agent)
            plays = [played(a, maxc) for a in legal_actions(obs) if a >= PLAY_ACTION]
            normal = [p for p in plays if p[0] not in (MOSQUITO, MOUSE)]
            if action >= PLAY_ACTION and normal:
                assert played(action, maxc) == max(normal, key=lambda p: (p[1], p[0]))
                checked += 1
                differed += action != tidy.act(obs, agent)
            env.step(action)
    assert checked > 100 and differed > 20


def test_the_boar_shedder_lays_a_card_down_rather_than_draw():
    """Brilliant Boar (R-W4, R-W5 miss): with no known match and at least 7 cards in hand, the
    shedder plays its oldest card where the keeper draws; with fewer it draws too."""
    config = {"num_players": 2, "level": 4, "memory": "none"}
    env = boar_raw_env(**config)
    shedder = make_policy("heuristic:style=shedder", "brilliant_boar_v0", config)
    keeper = make_policy("heuristic", "brilliant_boar_v0", config)
    shed = drew = 0
    for g in range(40):
        env.reset(seed=derive_seed(9, g))
        shedder.reset()
        keeper.reset()
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            held = len(shedder.memory(agent))
            kept = keeper.act(obs, agent)  # the keeper follows the same game to keep its memory
            action = shedder.act(obs, agent)
            if kept == DRAW and action != DRAW:
                assert held >= 7 and action == PLAY, (held, action)  # position 0: its oldest card
                shed += 1
            elif kept == DRAW:
                drew += 1
            keeper.played(agent, action)
            env.step(action)
    assert shed >= 10 and drew > 500
