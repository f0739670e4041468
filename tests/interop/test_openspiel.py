"""The braincards games as OpenSpiel Python games (braincards.envs.openspiel): registration and
game types, OpenSpiel's own random-simulation test with serialization, the deal's chance
nodes against the env's deal (exactly: a seeded env deal is replayed outcome by outcome),
the game against the env along random playouts, the information state (no leak, perfect
recall), errors that name what is allowed, and the ISMCTS example at a tiny setting.

Needs open_spiel: run with ``make test-interop`` (.interop-venv); skipped in the main venv."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from braincards.envs import SPECS, make  # noqa: E402
from braincards.envs.brilliant_boar.cards import COPIES, NUM_MOTIFS  # noqa: E402
from braincards.envs.openspiel import (  # noqa: E402
    GAME_NAMES,
    deal_outcomes,
    load_game,
    new_state_from_seed,
)
from braincards.envs.openspiel.chance import ChanceSource, Recorder  # noqa: E402

from .examples import load_example  # noqa: E402

TABLES = [  # (env id, options): two player counts per game, and the solo games
    ("the_brain_v0", {"num_players": 2, "difficulty": "robber"}),
    ("the_brain_v0", {"num_players": 3}),
    ("the_brain_v0", {"num_players": 1}),
    ("oh_my_brain_v0", {"num_players": 2}),
    ("oh_my_brain_v0", {"num_players": 3}),
    ("brilliant_boar_v0", {"num_players": 2}),
    ("brilliant_boar_v0", {"num_players": 3, "level": 1}),
    ("brilliant_boar_v0", {"num_players": 1}),
]
IDS = [f"{g}-{'-'.join(f'{k}={v}' for k, v in o.items())}" for g, o in TABLES]
Utility = pyspiel.GameType.Utility


def _env(env_id, options):
    return make(env_id, raw=True, **options)


# ---------------------------------------------------------------------- registration
def test_every_game_is_registered_under_a_short_name():
    names = set(pyspiel.registered_names())
    assert set(GAME_NAMES) == set(SPECS)
    assert set(GAME_NAMES.values()) <= names
    assert GAME_NAMES["the_brain_v0"] == "braincards_the_brain"


@pytest.mark.parametrize(("env_id", "options"), TABLES, ids=IDS)
def test_game_type_and_info_match_the_env(env_id, options):
    game = load_game(env_id, **options)
    env = _env(env_id, options)
    gt = game.get_type()
    assert gt.short_name == GAME_NAMES[env_id]
    assert gt.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert gt.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert gt.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert gt.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert gt.provides_information_state_string and gt.provides_observation_tensor
    assert not gt.provides_information_state_tensor
    n = options["num_players"]
    assert game.num_players() == n
    assert game.num_distinct_actions() == env.action_space("player_0").n
    assert game.observation_tensor_size() == env.observation_space("player_0")["observation"].shape[0]
    assert game.max_game_length() == n * env.max_cycles
    assert game.max_chance_outcomes() == max(game.chance_sizes)
    want = {"the_brain_v0": Utility.IDENTICAL, "oh_my_brain_v0": Utility.ZERO_SUM}.get(env_id)
    if env_id == "brilliant_boar_v0":
        want = Utility.GENERAL_SUM if n == 1 else Utility.ZERO_SUM
    assert gt.utility == want
    params = game.get_parameters()
    assert params["num_players"] == n and "render_mode" not in params and "illegal_action" not in params


def test_parameters_default_to_the_env_options():
    game = load_game("the_brain")
    spec = SPECS["the_brain_v0"]
    assert game.env_options == {k: spec.default(k) for k in game.env_options}
    assert game.env_options["num_players"] == spec.default("num_players")
    assert load_game("the_brain", difficulty=20).env_options["difficulty"] == 20
    omb = load_game("oh_my_brain", num_players=2, deck={v: 2 for v in range(20)}, marshmallow_values=[1, 2])
    assert omb.env_options["deck"] == {v: 2 for v in range(20)}
    assert omb.env_options["marshmallow_values"] == [1, 2]
    again = pyspiel.load_game(str(omb))  # the game string reads back (serialization needs it)
    assert again.env_options == omb.env_options
    boar = load_game("brilliant_boar", num_players=2, reward="score", normalize=True)
    assert boar.get_type().utility == Utility.GENERAL_SUM
    assert (boar.min_utility(), boar.max_utility()) == (-1.0, 1.0)


# ---------------------------------------------------------------------- OpenSpiel's checks
@pytest.mark.parametrize(("env_id", "options"), TABLES, ids=IDS)
def test_openspiel_random_simulation_with_serialization(env_id, options):
    game = load_game(env_id, **options)
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


def test_truncation_by_max_cycles_ends_the_game_with_zero_returns():
    game = load_game("oh_my_brain", num_players=2, max_cycles=3)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    state = new_state_from_seed(game, 5)
    env = _env("oh_my_brain_v0", {"num_players": 2, "max_cycles": 3})
    env.reset(seed=5)
    while not state.is_terminal():
        a = state.legal_actions()[0]
        state.apply_action(a)
        env.step(a)
    assert state.decisions.count(3) == 1 and all(env.truncations.values())
    assert state.returns() == [0.0, 0.0]


def test_serialize_round_trip_and_clone_independence():
    game = load_game("the_brain", num_players=2)
    state = new_state_from_seed(game, 3)
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game) and str(state2) == str(state)
    assert state2.history() == state.history()
    assert state2.information_state_string(0) == state.information_state_string(0)
    clone = state.clone()
    before = str(state)
    clone.apply_action(clone.legal_actions()[-1])
    assert str(state) == before and len(clone.history()) == len(state.history()) + 1
    assert state.rules_state.to_dict() != clone.rules_state.to_dict()


# ---------------------------------------------------------------------- chance
def _expected_sizes(env_id, options):
    n = options["num_players"]
    seat = [n] if n > 1 else []
    if env_id == "the_brain_v0":
        return list(range(36, 1, -1)) + seat
    if env_id == "oh_my_brain_v0":
        return [n] + [256] * 8
    k = {1: 6, 2: 7, 3: 8, 4: 9}[options.get("level", 4)]
    motifs = [NUM_MOTIFS - i for i in range(k) if NUM_MOTIFS - i > 1]
    return motifs + list(range(k * COPIES, 1, -1)) + seat


@pytest.mark.parametrize(("env_id", "options"), TABLES, ids=IDS)
def test_chance_nodes_are_the_env_draws_and_sum_to_one(env_id, options):
    game = load_game(env_id, **options)
    assert game.chance_sizes == _expected_sizes(env_id, options)
    rng = random.Random(1)
    for _ in range(3):
        state, sizes = game.new_initial_state(), []
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert [o for o, _ in outcomes] == list(range(len(outcomes)))
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            assert len({p for _, p in outcomes}) == 1  # uniform
            sizes.append(len(outcomes))
            state.apply_action(rng.randrange(len(outcomes)))
        assert sizes == game.chance_sizes  # the same nodes whatever was drawn
        assert not state.is_terminal() and state.current_player() >= 0


@pytest.mark.parametrize(("env_id", "options"), TABLES, ids=IDS)
def test_a_seeded_env_deal_is_replayed_exactly(env_id, options):
    game = load_game(env_id, **options)
    env = _env(env_id, options)
    for seed in (0, 1, 12345):
        env.reset(seed=seed)
        outcomes = deal_outcomes(game, seed)
        assert len(outcomes) == len(game.chance_sizes)
        state = new_state_from_seed(game, seed)
        assert state.chance_outcomes_so_far == outcomes
        assert state.rules_state.to_dict() == env.state.to_dict()


def test_the_recorder_draws_as_a_plain_random():
    rec, plain = Recorder(7), random.Random(7)
    a, b = list(range(20)), list(range(20))
    rec.shuffle(a)
    plain.shuffle(b)
    assert a == b and rec.getrandbits(64) == plain.getrandbits(64)
    assert rec.sample(range(9), 4) == plain.sample(range(9), 4) and rec.randrange(3) == plain.randrange(3)
    replay, again = ChanceSource(list(rec.outcomes)), random.Random(7)
    c, d = list(range(20)), list(range(20))
    replay.shuffle(c)
    again.shuffle(d)
    assert c == d and replay.getrandbits(64) == again.getrandbits(64)
    assert replay.sample(range(9), 4) == again.sample(range(9), 4)
    assert replay.randrange(3) == again.randrange(3) and replay.used_all()
    assert replay.sizes == list(range(20, 1, -1)) + [256] * 8 + [9, 8, 7, 6] + [3]


def test_a_deal_asking_for_a_float_is_refused():
    with pytest.raises(NotImplementedError, match="float"):
        ChanceSource([]).random()


# ---------------------------------------------------------------------- the game is the env
@pytest.mark.parametrize(("env_id", "options"), TABLES, ids=IDS)
def test_the_game_plays_as_the_env_along_random_playouts(env_id, options):
    game = load_game(env_id, **options)
    env = _env(env_id, options)
    for seed in range(3):
        rng = random.Random(seed)
        env.reset(seed=seed)
        state = new_state_from_seed(game, seed)
        while not state.is_terminal():
            agent = env.agent_selection
            assert state.current_player() == env.possible_agents.index(agent)
            mask = env.observe(agent)["action_mask"]
            assert state.legal_actions() == [int(a) for a in np.flatnonzero(mask)]
            for p, a in enumerate(env.possible_agents):
                got = np.asarray(state.observation_tensor(p), np.float32)
                assert np.array_equal(got, env.observe(a)["observation"])
            action = rng.choice(state.legal_actions())
            state.apply_action(action)
            env.step(action)
        assert all(env.terminations.values())
        assert state.returns() == [float(env._cumulative_rewards[a]) for a in env.possible_agents]


# ---------------------------------------------------------------------- information state
def _deck_outcomes(order: list[int]) -> list[int]:
    """The Fisher-Yates outcomes that shuffle list(range(36)) into ``order``."""
    x, out = list(range(len(order))), []
    for i in reversed(range(1, len(x))):
        j = x.index(order[i])
        out.append(j)
        x[i], x[j] = x[j], x[i]
    return out


def test_information_state_hides_other_hands_and_recalls_own_history():
    game = load_game("the_brain", num_players=2, difficulty="robber")
    base = new_state_from_seed(game, 11)
    rs = base.rules_state
    first = base.current_player()
    other = 1 - first
    deck = [c for h in rs.hands for c in h] + list(rs.deck)  # the shuffled order, seat 0 first
    states = []
    for swap in (False, True):
        order = list(deck)
        if swap:  # one card of the other seat's hand traded with the deck's last card
            i = order.index(rs.hands[other][0])
            order[i], order[-1] = order[-1], order[i]
        state = game.new_initial_state()
        for o in _deck_outcomes(order) + [first]:
            state.apply_action(o)
        states.append(state)
    a, b = states
    assert a.rules_state.to_dict() == rs.to_dict()
    assert a.rules_state.hands[other] != b.rules_state.hands[other]
    assert a.information_state_string(first) == b.information_state_string(first)
    assert a.observation_tensor(first) == b.observation_tensor(first)
    assert a.information_state_string(other) != b.information_state_string(other)
    legal = a.legal_actions()
    assert len(legal) >= 2
    before = a.information_state_string(first)
    x, y = a.clone(), a.clone()
    x.apply_action(legal[0])
    y.apply_action(legal[1])
    sx, sy = x.information_state_string(first), y.information_state_string(first)
    assert sx != sy and sx.startswith(before) and sy.startswith(before)


def test_information_state_strings_agree_whether_built_at_once_or_move_by_move():
    game = load_game("oh_my_brain", num_players=2)
    live = new_state_from_seed(game, 2)
    rng = random.Random(0)
    for p in range(2):
        live.information_state_string(p)  # from now on kept up move by move
    for _ in range(15):
        live.apply_action(rng.choice(live.legal_actions()))
    fresh = game.new_initial_state()
    for action in live.history():
        fresh.apply_action(action)
    for p in range(2):
        assert live.information_state_string(p) == fresh.information_state_string(p)


# ---------------------------------------------------------------------- errors
def test_bad_names_and_parameters_say_what_is_allowed():
    with pytest.raises(ValueError, match="braincards_the_brain"):
        load_game("chess")
    with pytest.raises(ValueError, match="difficulty"):
        load_game("the_brain", colour="red")
    with pytest.raises(ValueError, match="allowed"):
        load_game("the_brain", difficulty="impossible")
    with pytest.raises(ValueError, match="allowed"):
        load_game("oh_my_brain", num_players=9)
    with pytest.raises(pyspiel.SpielError, match="Available parameters are"):
        pyspiel.load_game("braincards_brilliant_boar(colour=1)")


# ---------------------------------------------------------------------- the example
def test_the_ismcts_example_runs_at_a_tiny_setting(tmp_path):
    example = load_example("examples/openspiel_ismcts.py")
    out = tmp_path / "ismcts.json"
    result = example.main(["--games", "2", "--simulations", "4", "--json", str(out)])
    assert json.loads(out.read_text()) == result
    assert result["example"] == "examples/openspiel_ismcts.py" and result["library"] == "open_spiel"
    assert result["game"] == "the_brain_v0" and result["config"]["num_players"] == 2
    names = [r["policy"] for r in result["rows"]]
    assert names[-2:] == ["greedy", "pimc"] and len(names) == 4
    for r in result["rows"]:
        assert r["games"] == 2 and 0.0 <= r["low"] <= r["rate"] <= r["high"] <= 1.0
