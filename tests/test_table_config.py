"""TableConfig: a game and its options resolved once (issue 39), and passed down instead of a
game id and an options dict: one object per options in a process, checked by the game,
immutable, pickled by value, with the layout and spaces an env would tell, cached."""

from __future__ import annotations

import pickle

import pytest

from braincards.envs import TableConfig, get_spec, make, table_config
from braincards.envs.core import spec as spec_module
from braincards.envs.core import table_config as module


def test_the_same_options_resolve_to_the_same_object_checked_once(monkeypatch):
    calls = []
    real = spec_module.GameSpec.check_options
    monkeypatch.setattr(spec_module.GameSpec, "check_options", lambda self, c: calls.append(c) or real(self, c))
    monkeypatch.setattr(module, "_RESOLVED", {})
    first = table_config("oh_my_brain", {"num_players": 3})
    again = table_config("oh_my_brain_v0", {"num_players": 3})
    assert first is again and len(calls) == 1
    assert table_config(get_spec("oh_my_brain"), {"num_players": 3}) is first
    assert table_config(first) is first and table_config(first, {"num_players": 3}) is first
    assert first != table_config("oh_my_brain", {"num_players": 4})
    assert len({first, again, table_config("oh_my_brain", {"num_players": 4})}) == 2


def test_it_tells_what_an_env_would_tell():
    table = table_config("the_brain", {"num_players": 3, "difficulty": "robber"})
    env = make("the_brain_v0", raw=True, num_players=3, difficulty="robber")
    assert (table.id, table.num_players, table.cooperative) == ("the_brain_v0", 3, True)
    assert table.layout() == env.observation_layout()
    assert table.spaces() == {"observation_shape": [env.layout.size], "action_n": env.action_space("player_0").n}
    assert table.config == {"num_players": 3, "difficulty": "robber"}
    assert table.variants == (table,)
    boar = table_config("brilliant_boar", {"num_players": 2})
    assert boar.spaces(8)["observation_shape"][0] > boar.spaces()["observation_shape"][0]
    assert type(boar.table(8)).__name__ == get_spec("brilliant_boar").history_wrapper.__name__


def test_what_it_hands_out_are_copies():
    table = table_config("the_brain", {"num_players": 2})
    table.config["num_players"] = 4
    table.layout()["own_hand"]["start"] = -1
    table.spaces()["observation_shape"].append(1)
    assert table.config == {"num_players": 2}
    assert table.layout()["own_hand"]["start"] >= 0
    assert len(table.spaces()["observation_shape"]) == 1


def test_a_variant_list_gives_one_table_per_variant():
    table = table_config("the_brain", {"num_players": 2, "difficulty": ["amateur", "robber"]})
    assert [v.config["difficulty"] for v in table.variants] == ["amateur", "robber"]
    assert table.variants[1] is table_config("the_brain", {"num_players": 2, "difficulty": "robber"})
    with pytest.raises(ValueError, match="difficulty=\\['amateur', 'robber'\\] is not allowed"):
        table.layout()  # a table of several variants has no single layout: ask a variant


def test_it_pickles_as_its_game_and_options():
    table = table_config("brilliant_boar", {"num_players": 3, "level": 2})
    back = pickle.loads(pickle.dumps(table))
    assert back == table and back is table  # resolved again, in this process the same object
    assert "brilliant_boar_v0" in repr(table) and "level=2" in repr(table)


@pytest.mark.parametrize("game, config, message", [
    ("chess", None, "unknown game 'chess'; known games: \\['brilliant_boar_v0', 'oh_my_brain_v0', 'the_brain_v0'\\]"),
    ("the_brain", {"num_playres": 2}, "unknown option 'num_playres' for the_brain_v0; its options: "),
    ("the_brain", {"num_players": 9}, "num_players"),
    ("the_brain", [("num_players", 2)], "the_brain_v0 options must be a mapping, got list"),
    ("the_brain", {1: 2, "a": 3}, "unknown option 1"),
    (3, None, "unknown game 3"),
])
def test_bad_games_and_options_say_what_is_allowed(game, config, message):
    with pytest.raises(ValueError, match=message):
        table_config(game, config)


def test_a_table_config_given_with_other_options_is_refused():
    table = table_config("the_brain", {"num_players": 2})
    with pytest.raises(ValueError, match="was given with other options"):
        table_config(table, {"num_players": 3})


def test_the_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(module, "_RESOLVED", {})
    monkeypatch.setattr(module, "_RESOLVED_MAX", 3)
    for n in range(2, 6):
        table_config("oh_my_brain", {"num_players": n})
    assert len(module._RESOLVED) <= 3
    assert isinstance(table_config("oh_my_brain", {"num_players": 2}), TableConfig)


def test_the_game_loops_take_a_table_config_and_give_the_same_numbers():
    from braincards.training.agents.specs import make_policy
    from braincards.training.evaluation.crossplay import crossplay
    from braincards.training.evaluation.evaluate import evaluate
    from braincards.training.learning.learner_env import LearnerEnv

    table = table_config("the_brain", {"num_players": 2, "difficulty": "robber"})
    by_name = evaluate("the_brain", {"num_players": 2, "difficulty": "robber"}, ["heuristic", "greedy"],
                       games=6, seed=4, progress=False)
    assert evaluate(table, None, ["heuristic", "greedy"], games=6, seed=4, progress=False) == by_name
    assert crossplay(table, None, ["heuristic", "random"], games=2, progress=False)["config"] == table.config
    assert type(make_policy("greedy", table)).__name__ == "TheBrainGreedy"
    env = LearnerEnv(table)
    assert env.observation_space.shape == tuple(table.spaces()["observation_shape"])


def test_an_evaluation_checks_its_options_once(monkeypatch):
    from braincards.training.evaluation.evaluate import evaluate

    calls = []
    real = spec_module.GameSpec.check_options
    monkeypatch.setattr(spec_module.GameSpec, "check_options", lambda self, c: calls.append(c) or real(self, c))
    monkeypatch.setattr(module, "_RESOLVED", {})
    evaluate("oh_my_brain", {"num_players": 3}, ["heuristic", "random", "heuristic"], games=3, progress=False)
    assert len(calls) == 1  # the table is resolved once and passed down: policies, tables, summary
