"""The history observation wrapper: the last K public events, fixed length (R-W9 companion)."""

from __future__ import annotations

import numpy as np
import pytest

from braincards.envs.brilliant_boar import HistoryWrapper, env, rules
from braincards.envs.brilliant_boar.cards import MOTIFS
from braincards.envs.brilliant_boar.history import (
    CHOICE,
    CHOOSE_EVENT,
    DRAW_EVENT,
    EVENT_LAYOUT,
    EVENT_SIZE,
    MATCH,
    MISS,
    PLAY_EVENT,
)
from braincards.envs.core.errors import IllegalActionError

from ..common import run_api_and_seed_tests
from .helpers import play, table


@pytest.mark.parametrize("cfg,k", [({}, 4), ({"num_players": 1}, 1), ({"num_players": 4, "name_card": True, "memory": "perfect"}, 16)])
def test_history_api_and_seed(cfg, k):
    run_api_and_seed_tests(lambda: HistoryWrapper(env(**cfg), k=k), num_cycles=200)


def test_history_space_and_layout():
    base = env()
    h = HistoryWrapper(env(), k=5)
    size = base.observation_space("player_0")["observation"].shape[0]
    assert h.observation_space("player_0")["observation"].shape == (size + 5 * EVENT_SIZE,)
    assert EVENT_SIZE == EVENT_LAYOUT.size == 85
    lay = h.observation_layout()
    assert lay["history"] == {"start": size, "stop": size + 5 * EVENT_SIZE, "size": 5 * EVENT_SIZE, "doc": lay["history"]["doc"]}
    with pytest.raises(ValueError, match="k"):
        HistoryWrapper(env(), k=0)


def _slot(h, obs, i):
    start = h.observation_layout()["history"]["start"] + i * EVENT_SIZE
    ev = obs["observation"][start : start + EVENT_SIZE]
    return {name: ev[p["start"] : p["stop"]] for name, p in EVENT_LAYOUT.as_dict().items()}


def _scripted(state, k=8):
    h = HistoryWrapper(env(num_players=state.num_players, name_card=state.name_card), k=k)
    h.reset(options={"state": state.to_dict()})
    return h


def test_history_records_draws_plays_and_choices():
    s = table(2, pile=["wolf", "owl", "fox"], hands=[["wolf", "hare"], ["duck"]], middle=["owl"])
    h = _scripted(s)
    assert h.events() == []
    assert _slot(h, h.observe("player_0"), 0)["valid"][0] == 0
    h.step(play(1))  # seat 0: hare, miss
    h.step(rules.DRAW)  # seat 1 draws the wolf to position 1
    h.step(play(0))  # seat 0: wolf; the pile's top is the owl now, the middle owl + hare: miss
    assert h.events() == [
        (0, PLAY_EVENT, 0, MOTIFS.index("wolf"), -1, MISS, -1),
        (1, DRAW_EVENT, 1, MOTIFS.index("wolf"), -1, -1, -1),
        (0, PLAY_EVENT, 1, MOTIFS.index("hare"), -1, MISS, -1),
    ]
    h.step(play(0))  # seat 1: duck, miss
    h.step(rules.DRAW)  # seat 0 draws the owl (fox on top now)
    assert h.events()[0] == (0, DRAW_EVENT, 0, MOTIFS.index("owl"), -1, -1, -1)
    obs = h.observe("player_1")  # seen by seat 1: the actor is its seat +1
    slot = _slot(h, obs, 0)
    assert slot["valid"][0] == 1 and slot["actor"].tolist() == [0, 1, 0, 0]
    assert slot["kind"].tolist() == [1, 0, 0] and slot["position"].argmax() == 0
    assert slot["motif"].argmax() == MOTIFS.index("owl") and slot["named"].sum() == 0
    assert slot["result"].sum() == 0 and slot["took"].sum() == 0
    own = _slot(h, h.observe("player_0"), 0)
    assert own["actor"].tolist() == [1, 0, 0, 0]


def test_history_records_the_choice_and_a_match():
    s = table(2, pile=["wolf", "owl"], hands=[["wolf", "owl"], ["duck"]], middle=["wolf"])
    h = _scripted(s)
    h.step(play(0))
    assert h.events()[0] == (0, PLAY_EVENT, 0, MOTIFS.index("wolf"), -1, CHOICE, -1)
    h.step(rules.TAKE_MIDDLE)
    assert h.events()[0] == (0, CHOOSE_EVENT, -1, MOTIFS.index("wolf"), -1, MATCH, 1)
    h.step(play(0))  # extra turn: the owl; the pile's top is a wolf, the middle empty: miss
    assert h.events()[0][5] == MISS
    slot = _slot(h, h.observe("player_0"), 1)
    assert slot["kind"].tolist() == [0, 0, 1] and slot["took"].tolist() == [0, 1]
    assert slot["result"].tolist() == [1, 0, 0] and slot["position"].sum() == 0


def test_history_records_the_named_motif():
    s = table(2, pile=["owl"], hands=[["fox"], ["duck"]], middle=["fox"], name_card=True)
    h = _scripted(s)
    h.step(play(0, "wolf"))
    assert h.events()[0] == (0, PLAY_EVENT, 0, MOTIFS.index("fox"), MOTIFS.index("wolf"), MISS, -1)
    slot = _slot(h, h.observe("player_0"), 0)
    assert slot["named"].argmax() == MOTIFS.index("wolf") and slot["motif"].argmax() == MOTIFS.index("fox")


def test_history_is_fixed_length_most_recent_first():
    h = HistoryWrapper(env(num_players=2), k=3)
    h.reset(seed=0)
    for _ in range(5):
        h.step(rules.DRAW)
    ev = h.events()
    assert len(ev) == 3 and [e[2] for e in ev] == [2, 1, 1]  # positions: the newest first
    seat = h.unwrapped.state.seat  # to move now; the newest event is the other seat's
    assert [e[0] for e in ev] == [1 - seat, seat, 1 - seat]
    start = h.observation_layout()["history"]["start"]
    obs = h.observe("player_0")
    assert obs["observation"].shape == h.observation_space("player_0")["observation"].shape
    assert obs["observation"][start:].sum() == 3 * 5  # valid, actor, kind, position, motif
    h.reset(seed=1)
    assert h.events() == []
    assert h.observe("player_0")["observation"][start:].sum() == 0


def test_history_ignores_illegal_actions():
    h = HistoryWrapper(env(num_players=2), k=3)
    h.reset(seed=0)
    with pytest.raises(IllegalActionError):
        h.step(play(0))
    assert h.events() == []
    p = HistoryWrapper(env(num_players=2, illegal_action="penalize"), k=3)
    p.reset(seed=0)
    p.step(play(0))
    assert p.events() == [] and all(p.terminations.values())


def test_history_keeps_the_base_observation_and_mask():
    base = env(num_players=3)
    h = HistoryWrapper(env(num_players=3), k=4)
    base.reset(seed=3)
    h.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(30):
        a = base.last()[0]
        b = h.last()[0]
        n = a["observation"].shape[0]
        np.testing.assert_array_equal(a["observation"], b["observation"][:n])
        np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
        legal = np.flatnonzero(a["action_mask"])
        act = int(legal[rng.integers(len(legal))])
        base.step(act)
        h.step(act)
