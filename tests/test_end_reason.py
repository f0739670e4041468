"""Every env says why a finished game ended (``env.unwrapped.end_reason()``): None while it
goes on, one sentence with the agents' names after, and a truncation says so."""

from __future__ import annotations

import random

import numpy as np
import pytest

from braincards.envs import make
from braincards.envs.the_brain import rules

from .the_brain.helpers import C, env_with, table


def _play_out(env, seed: int) -> None:
    rng = random.Random(seed)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("game, config, words", [
    ("the_brain_v0", {"num_players": 3}, "the loss limit"),
    ("oh_my_brain_v0", {"num_players": 4}, "reached 0 brains"),
    ("brilliant_boar_v0", {"num_players": 3}, "at most one seat still holds cards"),
    ("brilliant_boar_v0", {"num_players": 1}, "The pile is empty:"),
])
def test_a_finished_game_says_why(game, config, words):
    env = make(game, **config)
    env.reset(seed=2)
    assert env.unwrapped.end_reason() is None
    _play_out(env, 2)
    reason = env.unwrapped.end_reason()
    assert words in reason and reason.endswith(".")
    if game != "the_brain_v0" and config["num_players"] > 1:
        assert "player_" in reason and ("wins." in reason or "win." in reason)


def test_a_truncated_game_says_it_was_cut_short():
    env = make("oh_my_brain_v0", num_players=2, max_cycles=4)
    env.reset(seed=0)
    _play_out(env, 0)
    assert "cut short" in env.unwrapped.end_reason() and "max_cycles=4" in env.unwrapped.end_reason()


def test_the_brain_says_a_loss_came_before_the_win():
    """R-B6: the last card brings the display to the limit: lost, though every card is out."""
    state = table(2, hands=[["blue fingerprint"], []], display=[["red key"], ["grey brain"], ["green lock"],
                                                                   ["yellow safe"]], limit=5)
    env = env_with(state)
    env.step(C("blue fingerprint"))
    assert env.state.outcome == rules.LOSS
    assert env.end_reason() == ("The display reached 5 stacks, the loss limit of 5: the team loses, "
                                "with 0 cards still to play.")
