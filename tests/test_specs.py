"""The game specs (``braincards.envs.SPECS``): one place per game fact, read by every layer.

Each spec's facts are checked against the game itself: its scores against the rules state of
scripted and random games, its progress measure, who won (R-B9, R-O10, R-W7, R-W8), its
options checker (every bad key and value named), its variants, its decision kinds, and that
a pickled spec comes back as the registered one (worker processes).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from braincards.envs import ENVS, GAMES, SPECS, get_spec, make
from braincards.envs.brilliant_boar import rules as boar_rules
from braincards.envs.oh_my_brain import rules as omb_rules
from braincards.envs.the_brain import rules as brain_rules
from braincards.envs.the_brain.cards import NUM_CARDS

from .the_brain.helpers import table as brain_table


def _random_game(spec, config, seed, stop_after=None):
    """Play random legal moves (all of a game, or ``stop_after`` decisions); the raw env."""
    raw = spec.raw_env(**config)
    raw.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    while not (raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]):
        if stop_after is not None and steps == stop_after:
            break
        legal = raw.legal_actions()
        raw.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    return raw


def test_registry_is_built_from_the_game_packages():
    assert [g.SPEC for g in GAMES] == list(SPECS.values())
    assert set(SPECS) == set(ENVS) == {"the_brain_v0", "oh_my_brain_v0", "brilliant_boar_v0"}
    for spec in SPECS.values():
        assert spec.raw_env.metadata["name"] == spec.id
        assert get_spec(spec.id) is spec and get_spec(spec.name) is spec
        assert ENVS[spec.id] == f"braincards.envs.{spec.name}"
    assert [s.id for s in SPECS.values() if s.cooperative] == ["the_brain_v0"]
    with pytest.raises(ValueError, match=r"unknown game 'chess'; known games: \['brilliant_boar_v0'"):
        get_spec("chess")
    with pytest.raises(ValueError, match="unknown game"):
        get_spec(None)


def test_player_counts_are_the_envs_own():
    for spec in SPECS.values():
        lo, hi = spec.players
        for n in (lo, hi):
            assert len(spec.raw_env(num_players=n).possible_agents) == n
        for n in (lo - 1, hi + 1):
            with pytest.raises(ValueError, match="num_players"):
                spec.raw_env(num_players=n)
        assert spec.num_players({}) == len(spec.raw_env().possible_agents)
        assert spec.num_players({"num_players": hi}) == hi


def test_a_pickled_spec_is_the_registered_one():
    for spec in SPECS.values():
        assert pickle.loads(pickle.dumps(spec)) is spec


def test_the_brain_scores_and_progress_count_the_cards_played_out():
    """R-B9: the team's goal is every card out of play; the score and progress count them."""
    spec = SPECS["the_brain_v0"]
    state = brain_table(2, hands=[["blue brain"], ["red brain"]], display=[["green brain"]],
                        discard=["yellow brain"], deck=["blue key"])
    held = 3  # two in hand, one in the deck: the rest of the 36 are out of play
    assert brain_rules.cards_out(state) == NUM_CARDS - held
    assert spec.scores(state) == [float(NUM_CARDS - held)] * 2
    assert spec.progress(state) == pytest.approx((NUM_CARDS - held) / NUM_CARDS)
    fresh = spec.raw_env(num_players=3)
    fresh.reset(seed=0)
    assert spec.scores(fresh.state) == [0.0] * 3 and spec.progress(fresh.state) == 0.0
    for seed in range(20):
        raw = _random_game(spec, {"num_players": 3}, seed)
        s = raw.state
        out = sum(len(st) for st in s.display) + len(s.discard)
        assert spec.scores(s) == [float(out)] * 3 and spec.progress(s) == out / NUM_CARDS


def test_competitive_scores_are_brains_and_points():
    omb, boar = SPECS["oh_my_brain_v0"], SPECS["brilliant_boar_v0"]
    for seed in range(10):
        raw = _random_game(omb, {"num_players": 3}, seed)
        assert omb.scores(raw.state) == [float(b) for b in raw.state.brains[:3]]
        raw = _random_game(boar, {"num_players": 2}, seed)
        assert boar.scores(raw.state) == [float(x) for x in boar_rules.scores(raw.state)]
    solo = _random_game(boar, {"num_players": 1}, 0)
    assert boar.scores(solo.state) == [float(boar_rules.scores(solo.state)[0])]  # R-W8


@pytest.mark.parametrize("game", sorted(SPECS))
def test_wins_follow_the_rulings_over_random_games(game):
    """R-B9 (team: the reward is positive), R-O10 / R-W7 (the best score wins, all tied: no
    winner); a truncated game has no winner."""
    spec = SPECS[game]
    for seed in range(30):
        raw = _random_game(spec, {"num_players": 2}, seed)
        rewards = [float(raw._cumulative_rewards[a]) for a in raw.possible_agents]
        truncated = any(raw.truncations.values())
        wins = spec.wins(raw.state, rewards, truncated)
        if truncated:
            assert wins == [False, False]
        elif spec.cooperative:
            assert wins == [r > 0 for r in rewards] and len(set(wins)) == 1
        else:
            scores = spec.scores(raw.state)
            tied = scores[0] == scores[1]
            assert wins == ([False, False] if tied else [x == max(scores) for x in scores])
            assert [r > 0 for r in rewards] == wins  # rank rewards agree with the spec
        assert spec.wins(raw.state, rewards, True) == [False, False]


def test_competitive_wins_read_scores_not_rewards():
    spec = SPECS["oh_my_brain_v0"]
    raw = _random_game(spec, {"num_players": 3}, 1)
    state = raw.state
    state.brains[:3] = [2, 5, 5]
    assert spec.wins(state, [9.0, -1.0, -1.0], False) == [False, True, True]
    state.brains[:3] = [4, 4, 4]
    assert spec.wins(state, [1.0, 0.0, 0.0], False) == [False, False, False]


@pytest.mark.parametrize("game", sorted(SPECS))
def test_check_options_names_the_key_and_the_allowed_values(game):
    spec = SPECS[game]
    assert spec.check_options(None) == {}
    config = {"num_players": spec.players[1]}
    checked = spec.check_options(config)
    assert checked == config and checked is not config
    with pytest.raises(ValueError, match=r"unknown option 'num_player' for .*; its options: \['num_players'"):
        spec.check_options({"num_player": 2})
    with pytest.raises(ValueError, match=r"num_players=99 is out of range"):
        spec.check_options({"num_players": 99})
    with pytest.raises(ValueError, match="options must be a mapping"):
        spec.check_options([("num_players", 2)])
    assert spec.default("num_players") == spec.num_players({})
    assert spec.default("render_mode") is None
    with pytest.raises(ValueError, match=r"unknown option 'colour' for .*; its options"):
        spec.default("colour")
    assert "num_players" in spec.option_names() and "render_mode" in spec.option_names()


def test_variants_of_the_brain_difficulty_list():
    spec = SPECS["the_brain_v0"]
    assert spec.variants({"num_players": 2}) == [{"num_players": 2}]
    got = spec.variants({"num_players": 2, "difficulty": ["amateur", "robber"]})
    assert got == [{"num_players": 2, "difficulty": "amateur"}, {"num_players": 2, "difficulty": "robber"}]
    assert spec.check_options({"difficulty": ["amateur", 9]})["difficulty"] == ["amateur", 9]
    with pytest.raises(ValueError, match="difficulty list is empty"):
        spec.variants({"difficulty": []})
    with pytest.raises(ValueError, match=r"difficulty list names \['robber'\] more than once"):
        spec.variants({"difficulty": ["robber", "robber"]})
    with pytest.raises(ValueError, match="difficulty="):
        spec.check_options({"difficulty": ["amateur", "expert"]})
    # a game without a variant option takes its options as they are
    assert SPECS["oh_my_brain_v0"].variants({"num_players": 2}) == [{"num_players": 2}]


def test_tables_spaces_and_layouts():
    boar = SPECS["brilliant_boar_v0"]
    plain = boar.spaces({"num_players": 2, "memory": "none"})
    wrapped = boar.spaces({"num_players": 2, "memory": "none"}, history_k=8)
    assert wrapped["action_n"] == plain["action_n"]
    assert wrapped["observation_shape"][0] > plain["observation_shape"][0]
    assert boar.table({"num_players": 2}, history_k=8).k == 8
    assert boar.history_wrapper is not None
    for spec in (SPECS["the_brain_v0"], SPECS["oh_my_brain_v0"]):
        assert spec.history_wrapper is None
        with pytest.raises(ValueError, match="has no history wrapper"):
            spec.table({}, history_k=4)
    layout = SPECS["the_brain_v0"].observation_layout({"num_players": 2})
    env = make("the_brain_v0", num_players=2)
    assert layout == env.unwrapped.observation_layout()


def test_decisions_and_private_decisions():
    for spec, rules in ((SPECS["the_brain_v0"], brain_rules), (SPECS["oh_my_brain_v0"], omb_rules),
                        (SPECS["brilliant_boar_v0"], boar_rules)):
        assert spec.decisions == rules.DECISIONS
        assert spec.private_decisions <= set(spec.decisions)
        raw = spec.raw_env(num_players=2)
        raw.reset(seed=0)
        assert spec.decision(raw.state) == rules.DECISIONS[raw.state.phase]
        done = _random_game(spec, {"num_players": 2}, 0)
        if any(done.terminations.values()):
            assert spec.decision(done.state) is None
    assert SPECS["oh_my_brain_v0"].private_decisions == {"draft", "keep", "refill", "give_card"}
    assert not SPECS["the_brain_v0"].private_decisions


def test_a_table_config_is_resolved_once_and_handed_out_as_copies(monkeypatch):
    from braincards.envs.core.base import CardGameEnv

    spec = get_spec("the_brain_v0")
    built = []
    init = CardGameEnv.__init__
    monkeypatch.setattr(CardGameEnv, "__init__", lambda self, *a, **kw: built.append(1) or init(self, *a, **kw))
    config = {"num_players": 3, "difficulty": ["robber", "cat_burglar"], "hand_size": 4}
    first = spec.check_options(config)
    assert first == config and len(built) == 2  # one env per variant checks it
    again = spec.check_options(dict(config))
    assert again == first and again is not first and again["difficulty"] is not first["difficulty"]
    again["difficulty"].append("amateur")  # a caller's change never reaches the next caller
    assert spec.check_options(config)["difficulty"] == ["robber", "cat_burglar"]
    layout = spec.observation_layout({"num_players": 3})
    layout["decision"]["start"] = 99
    assert spec.observation_layout({"num_players": 3})["decision"]["start"] == 0
    assert spec.spaces({"num_players": 3}) == spec.spaces({"num_players": 3})
    before = len(built)
    for _ in range(5):
        spec.check_options(config)
        spec.observation_layout({"num_players": 3})
        spec.spaces({"num_players": 3})
    assert len(built) == before  # asked again, built no more
    for _ in range(2):  # a bad config is refused every time, never remembered
        with pytest.raises(ValueError, match="num_players"):
            spec.check_options({"num_players": 9})
    # the same pairs as a list are no options mapping, however often the dict was checked
    with pytest.raises(ValueError, match="options must be a mapping"):
        spec.check_options(sorted(config.items()))
