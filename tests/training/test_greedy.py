"""The Brain's one-ply look-ahead heuristic (spec ``greedy``)."""

from __future__ import annotations

import numpy as np
import pytest

from braincards.envs import derive_seed, make
from braincards.envs.the_brain import rules
from braincards.training.agents.heuristics.the_brain import TheBrainHeuristic
from braincards.training.agents.search.greedy import TheBrainGreedy, make_greedy
from braincards.training.agents.search.solver import Solver, turns
from braincards.training.evaluation.evaluate import evaluate
from tests.the_brain.helpers import C, env_with, table


def _act(state: rules.State, **config) -> tuple[int, object]:
    env = env_with(state, **config)
    greedy = make_greedy("the_brain_v0", {"num_players": state.num_players, "difficulty": state.limit,
                                          **config})
    agent = env.agent_selection
    return greedy.act(env.observe(agent), agent), env


def test_never_reaches_the_limit_when_a_card_avoids_it():
    """R-B6: with the display one stack below the limit, a donate card (a new stack) loses;
    the cover keeps the count."""
    state = table(2, hands=[["blue fingerprint", "blue magnifying_glass"], ["purple brain"]],
                  display=[["red key"], ["grey brain"]], limit=3)
    action, _ = _act(state)
    assert action == C("blue magnifying_glass")  # a cover


def test_donates_to_the_seat_holding_fewest_cards():
    # seat 0 played purple brain (donate) and gives blue fingerprint; seat 1 holds 3 cards,
    # seat 2 one card in its domain: seat 2 (two seats on) gets it
    state = table(3, hands=[["purple brain", "blue fingerprint", "red key"],
                            ["grey brain", "green lock", "yellow safe"], []],
                  domains=[[], [], ["blue lock"]], deck=["red safe"])
    env = env_with(state)
    env.step(C("purple brain"))
    greedy = make_greedy("the_brain_v0", {"num_players": 3})
    assert env.state.phase == rules.DONATE_CARD
    env.step(greedy.act(env.observe("player_0")))
    assert env.state.phase == rules.DONATE_TARGET
    assert greedy.act(env.observe("player_0")) == rules.SEAT_ACTION + 1


def _turn_start_value(state: rules.State) -> tuple[bool, bool]:
    """(some whole turn of the seat to move stays below the limit, every turn reaches it)."""
    solver = Solver.for_state(state)
    seat, hold, disp, _ = solver.boundary_key(state)
    sizes = [len(d) for _, _, d in turns(seat, hold, disp, state.num_seats)]
    return min(sizes) < state.limit, min(sizes) >= state.limit


def assert_loses_only_unsurvivable_turns(player, config: dict, seed: int, games: int = 12) -> None:
    """``player`` in every seat of ``games`` real games: every action is legal, every lost game
    was lost on a turn where every way to play reached the limit (R-B6), and at least one game
    was lost (so the check was exercised)."""
    raw = make("the_brain_v0", raw=True, **config)
    losses = 0
    for g in range(games):
        raw.reset(seed=derive_seed(seed, g))
        start = None
        while not raw.terminations[raw.agent_selection]:
            if raw.state.phase == rules.PLAY:
                start = raw.state.copy()
            agent = raw.agent_selection
            action = player.act(raw.observe(agent), agent)
            assert raw.observe(agent)["action_mask"][action] == 1
            raw.step(action)
        if raw.state.outcome == rules.LOSS:
            losses += 1
            survivable, _ = _turn_start_value(start)
            assert not survivable, f"{player.name} reached the limit although a turn avoided it"
    assert losses >= 1  # the check was exercised


@pytest.mark.parametrize("config", [
    {"num_players": 3, "difficulty": "cat_burglar"},
    {"num_players": 2, "difficulty": "robber", "memory": "none", "draw_rule": "optional"},
    {"num_players": 4, "difficulty": "cat_burglar", "discard_peek": False, "open_hands": True},
    {"num_players": 1, "difficulty": "robber"},
])
def test_never_loses_on_a_turn_it_could_survive(config):
    """In real games, every lost game was lost on a turn where every way to play reached the
    limit (the greedy sees its own cards and the display, which is all a turn uses)."""
    assert_loses_only_unsurvivable_turns(make_greedy("the_brain_v0", config), config, seed=3)


@pytest.mark.parametrize("player", [TheBrainGreedy, TheBrainHeuristic])
def test_reads_only_its_observation(player):
    """Same observation, same action: hidden cards (another hand, the deck order) do not
    matter; the policy is deterministic (greedy, and the careful rule player)."""
    config = {"num_players": 3}
    deck = list(range(36))
    other = list(deck)
    other[5], other[33] = other[33], other[5]  # a card of seat 1's hand <-> the last deck card
    actions, observations = [], []
    for d in (deck, other):
        raw = make("the_brain_v0", raw=True, **config)
        raw.reset(options={"deck": d, "first_player": 0})
        obs = raw.observe("player_0")
        observations.append(obs["observation"])
        actions.append(player(raw.observation_layout(), config).act(obs))
    np.testing.assert_array_equal(*observations)
    assert actions[0] == actions[1]


def test_plays_legal_moves_everywhere_and_beats_the_old_heuristic():
    config = {"num_players": 3, "difficulty": "robber"}
    greedy = evaluate("the_brain_v0", config, seats=["greedy"] * 3, games=30, seed=0, progress=False)
    old = evaluate("the_brain_v0", config, seats=["heuristic:style=scoring"] * 3, games=30, seed=0, progress=False)
    assert greedy["team"]["win_rate"]["value"] > old["team"]["win_rate"]["value"] + 0.3
    with pytest.raises(ValueError, match="The Brain only"):
        make_greedy("oh_my_brain_v0", {})
