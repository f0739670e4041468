"""The table primitive every game loop builds on: seats, whose turn, the observation each
policy reads, the moves and the game's record."""

from __future__ import annotations

import numpy as np
import pytest

from braincards.envs import get_spec
from braincards.training.agents.policy import RandomPolicy
from braincards.training.agents.specs import make_policy
from braincards.training.agents.table import Table, prefix, seats_config

BOAR = get_spec("brilliant_boar_v0")
BRAIN = get_spec("the_brain_v0")


class Reader(RandomPolicy):
    """Random play that remembers the observation lengths it was given."""

    def __init__(self, seed, observation_size=None):
        super().__init__(seed)
        if observation_size is not None:
            self.observation_size = observation_size
        self.seen = []

    def act(self, observation, agent=None):
        self.seen.append(observation["observation"].shape[0])
        return super().act(observation, agent)


def test_the_record_is_the_games_own():
    policies = [RandomPolicy(1), RandomPolicy(2), RandomPolicy(3)]
    table = Table.for_policies(BRAIN, {"num_players": 3}, policies, record=True)
    table.seat(policies)
    table.reset(seed=4)
    table.play_seated()
    record, raw = table.record(), table.raw
    assert table.over and table.to_move is None
    assert record["length"] == len(table.steps) > 0
    # the returns are every step's rewards summed, per seat; a cooperative game pays every seat alike
    summed = [sum(r[a] for _, _, r in table.steps) for a in table.agents]
    assert record["returns"] == summed and len(set(summed)) == 1
    assert record["scores"] == BRAIN.scores(raw.state)
    assert record["wins"] == BRAIN.wins(raw.state, summed, record["truncated"])
    # a new game starts a new record
    table.reset(seed=5)
    assert table.length == 0 and table.steps == [] and set(table.returns.values()) == {0.0}


def test_each_policy_reads_its_prefix_and_an_outside_seat_the_whole():
    window = make_policy("heuristic:window=8", BOAR.id, {"num_players": 2})
    plain = Reader(0)
    table = Table.for_policies(BOAR, {"num_players": 2}, [window, plain, None])
    whole = table.env.observation_space("player_0")["observation"].shape[0]
    assert whole == window.observation_size > table.base  # behind the history wrapper, k=8
    table.seat([window, plain])
    table.reset(seed=0)
    table.play_seated()
    assert set(plain.seen) == {table.base}  # a policy without history sees the base observation
    outside = Table(BOAR, {"num_players": 2}, 8)
    outside.seat([None, None])
    outside.reset(seed=0)
    assert outside.observe(outside.to_move)["observation"].shape[0] == whole


def test_play_seated_stops_where_an_outside_seat_decides():
    table = Table(BRAIN, {"num_players": 3})
    table.seat([RandomPolicy(0), None, RandomPolicy(1)])
    table.reset(seed=2)
    paid = []
    while not table.over:
        table.play_seated(on_step=lambda rewards: paid.append(dict(rewards)))
        if table.over:
            break
        assert table.to_move == "player_1" and not table.seated("player_1")
        legal = np.flatnonzero(table.observe("player_1")["action_mask"])
        paid.append(dict(table.play(int(legal[0]))))
    assert len(paid) == table.length


def test_seats_must_fit_the_players():
    table = Table(BRAIN, {"num_players": 2})
    with pytest.raises(ValueError, match="3 seats for 2 players"):
        table.seat([None, None, None])
    assert seats_config(BRAIN, {}, 3) == {"num_players": 3}
    with pytest.raises(ValueError, match="config has num_players=2 but 3 seats were given"):
        seats_config(BRAIN, {"num_players": 2}, 3)


def test_prefix_keeps_a_short_observation_as_it_is():
    obs = {"observation": np.arange(5.0), "action_mask": np.ones(2, np.int8)}
    assert prefix(obs, 5) is obs and prefix(obs, 9) is obs
    assert prefix(obs, 3)["observation"].tolist() == [0.0, 1.0, 2.0]
