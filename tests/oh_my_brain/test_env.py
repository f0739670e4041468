"""Oh My Brain env: the PettingZoo contract, random-play invariants, observations (R-O11),
rewards (R-O10), errors, render."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pettingzoo
import pytest

from braincards.envs import ENVS, IllegalActionError, make
from braincards.envs.oh_my_brain import env as wrapped_env
from braincards.envs.oh_my_brain import raw_env, rules
from braincards.envs.oh_my_brain.cards import expand
from braincards.envs.oh_my_brain.rules import PASS

from ..common import (
    check_max_cycles_truncation,
    check_round_trip,
    check_seeded_determinism,
    observe_after,
    play_games,
    run_api_and_seed_tests,
)
from .helpers import OPP, P, V, counts, env_with, table

CONFIGS = [
    {},
    {"num_players": 2},
    {"num_players": 5, "starting_brains": 30},
    {"num_players": 4, "deck": {v: 2 for v in range(20)} | {7: 5}, "marshmallow_values": [3, 19]},
    {"num_players": 3, "brain_shaping": 0.1, "max_cycles": 40},
]


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_pettingzoo_api_and_seed_tests(config):
    run_api_and_seed_tests(lambda: wrapped_env(**config))


# ----------------------------------------------------------------------------- random play
def _forced_only(raw, legal, rng):
    """A player that passes only when it must (otherwise uniform over the rest)."""
    plays = [a for a in legal if a != PASS]
    return rng.choice(plays or legal)


def _invariant_checks(seen):
    def on_step(raw):
        s = raw.state
        assert min(s.brains) >= 0, "brains went negative"
        assert s.hsize == [sum(h) for h in s.hands] and s.gsize == [sum(g) for g in s.graves]
        if s.phase != rules.OVER:
            assert all(s.brains), "a seat at 0 brains but the game goes on (R-O10)"
        seen["max_round"] = max(seen["max_round"], s.round)

    def on_end(raw, returns):
        s = raw.state
        assert sum(returns.values()) == pytest.approx(0.0), f"not zero-sum: {returns}"
        if s.phase == rules.OVER:
            assert 0 in s.brains
            best = max(s.brains)
            for i, agent in enumerate(raw.possible_agents):
                assert (returns[agent] > 0) == (s.brains[i] == best and min(s.brains) != best)
        seen["games"] += 1
        seen["rounds"] += s.round - 1  # round ends that started a new round
        seen["reshuffles"] += s.reshuffles
        seen["faces"] = [a + b for a, b in zip(seen["faces"], s.face_counts, strict=True)]
        seen["players"].add(s.num_players)
        seen["max_decisions"] = max(seen["max_decisions"], max(raw._decisions))

    return on_step, on_end


def _seen():
    return {"games": 0, "rounds": 0, "reshuffles": 0, "faces": [0] * 6, "players": set(),
            "max_round": 0, "max_decisions": 0}


def test_random_play_invariants_uniform_players_2_to_5():
    """R-O10 zero-sum rewards and brains >= 0, card conservation, mask == exactly the
    actions the rules accept, termination within max_cycles: 700 uniformly random games."""
    seen = _seen()
    on_step, on_end = _invariant_checks(seen)

    def make_env(rng):
        return wrapped_env(num_players=rng.randint(2, 5))

    stats = play_games(make_env, rules, 700, seed=3, mask_check_every=7, on_step=on_step, on_end=on_end)
    assert stats.games == 700 and stats.truncated == 0
    assert seen["players"] == {2, 3, 4, 5}
    assert all(seen["faces"]) and seen["reshuffles"] > 0


def test_random_play_invariants_players_who_pass_only_when_forced():
    """Uniform players almost never finish a round, so these players pass only when
    they must, with 30 brains: round ends (R-O9), new rounds with a new draft (R-O3),
    reserve reshuffles (R-O5) and all six die faces (R-O7) must really occur."""
    seen = _seen()
    on_step, on_end = _invariant_checks(seen)

    def make_env(rng):
        return wrapped_env(num_players=rng.randint(2, 5), starting_brains=30)

    stats = play_games(make_env, rules, 320, seed=5, choose=_forced_only, mask_check_every=13,
                       on_step=on_step, on_end=on_end)
    assert stats.games == 320 and stats.truncated == 0
    assert seen["players"] == {2, 3, 4, 5}
    assert seen["rounds"] > 320 and seen["max_round"] >= 4
    assert seen["reshuffles"] > 100
    assert min(seen["faces"]) > 50, seen["faces"]
    assert seen["max_decisions"] < raw_env.DEFAULT_MAX_CYCLES


def test_mask_equals_the_accepted_actions_at_every_decision():
    """Every action tried on a copy of the state at every decision of 60 games (uniform
    players and players who pass only when forced): the mask is exactly what the rules
    accept, and every decision kind is met."""
    kinds = set()
    seen = _seen()
    on_step, on_end = _invariant_checks(seen)

    def step_and_record(raw):
        on_step(raw)
        kinds.add(raw.state.phase)

    def make_env(rng):
        return wrapped_env(num_players=rng.randint(2, 5), starting_brains=rng.choice([3, 9]))

    for seed, choose in ((11, None), (12, _forced_only)):
        play_games(make_env, rules, 30, seed=seed, choose=choose, mask_check_every=1,
                   on_step=step_and_record, on_end=on_end)
    assert kinds >= set(range(len(rules.DECISIONS))), sorted(kinds)


def test_random_play_with_a_custom_deck_and_truncation():
    """A replaced deck (R-O2) with 5 copies of a value; short max_cycles truncate with
    reward 0 (checked by the runner)."""
    seen = _seen()
    on_step, on_end = _invariant_checks(seen)
    config = CONFIGS[3]

    def make_env(rng):
        return wrapped_env(**config, max_cycles=rng.choice([15, 2000]))

    stats = play_games(make_env, rules, 60, seed=8, choose=_forced_only, mask_check_every=3,
                       on_step=on_step, on_end=on_end)
    assert stats.truncated > 0 and stats.terminated > 0


# ----------------------------------------------------------------------------- round trip, seeds
def test_round_trip_mid_game_continues_identically():
    for seed, split in itertools.product(range(4), (0, 7, 40)):
        config = CONFIGS[seed % 4]
        check_round_trip(lambda config=config: wrapped_env(**config), seed, split, rng_seed=seed)


def test_same_seed_same_game_and_reset_without_seed_continues_the_rng():
    check_seeded_determinism(lambda: wrapped_env(num_players=3))


def test_scripted_reset_options_deck_dice_first_player():
    env = raw_env(num_players=2)
    env.reset(seed=0, options={"deck": [19, 4, 5], "dice": [4, 6], "first_player": 1})
    s = env.state
    assert env.agent_selection == "player_1" and s.pending == [19, 4, 5] and s.dice == [4, 6]


# ----------------------------------------------------------------------------- observation
def _obs(env, agent):
    return env.observe(agent)["observation"]


def _hide_and_shuffle(state, observer, rng):
    """Redistribute every card the observer may not see (other seats' hands and
    graveyards, the reserve, another seat's pending cards), keeping every pile's size."""
    s = state.copy()
    n = s.num_players
    others = [i for i in range(n) if i != observer]
    pool = []
    for i in others:
        pool += expand(s.hands[i]) + expand(s.graves[i])
    pending_hidden = s.seat != observer and s.pending
    pool += s.reserve + (s.pending if pending_hidden else [])
    rng.shuffle(pool)
    sizes = [(i, sum(s.hands[i]), sum(s.graves[i])) for i in others]
    for i, h, g in sizes:
        s.hands[i] = counts(pool[:h])
        del pool[:h]
        s.graves[i] = counts(pool[:g])
        del pool[:g]
    if pending_hidden:
        k = len(s.pending)
        s.pending, pool = pool[:k], pool[k:]
    s.reserve = pool
    if s.give >= 0 and s.seat != observer:
        s.give = rng.randrange(20)
    assert sorted(s.cards()) == sorted(state.cards())
    return s


def test_RO11_other_seats_hands_and_graveyards_never_leak_into_an_observation():
    """Reshuffle everything an observer may not see (R-O11: other seats' hands and
    graveyards, the reserve's order and contents, another seat's dealt or drawn cards):
    its observation does not change. Changing its own hand does change it."""
    rng = random.Random(0)
    checked = 0
    for n, seed, steps in itertools.product((2, 3, 5), range(5), (0, 4, 13, 30, 70)):
        env = observe_after(lambda n=n: wrapped_env(num_players=n), seed, steps, seed)
        raw = env.unwrapped
        if raw.state.phase == rules.OVER:
            continue
        saved = raw.state
        for observer in range(n):
            agent = f"player_{observer}"
            before = _obs(raw, agent).copy()
            for _ in range(3):
                raw.state = _hide_and_shuffle(saved, observer, rng)
                np.testing.assert_array_equal(_obs(raw, agent), before)
                checked += 1
            raw.state = saved
            # positive control: the observer's own hand shows
            if any(saved.hands[observer]) and saved.reserve:
                s2 = saved.copy()
                v = next(v for v in range(20) if s2.hands[observer][v])
                w = next((w for w in s2.reserve if w != v), None)
                if w is not None:
                    s2.hands[observer][v] -= 1
                    s2.hands[observer][w] += 1
                    raw.state = s2
                    assert not np.array_equal(_obs(raw, agent), before)
                    raw.state = saved
    assert checked > 100


def test_RO11_observation_pieces_and_ego_centric_seats():
    s = table(3, hands=[[4, 5, 5], [1], [2, 3]], graves=[[7], [9, 9], []], horde=[3, 8],
              spider=True, brains=[9, 6, 18], discard=[12], seat=1)
    env = env_with(s)
    lay = env.observation_layout()

    def piece(agent, name):
        return _obs(env, agent)[lay[name]["start"] : lay[name]["stop"]]

    hand0 = piece("player_0", "own_hand")
    assert hand0[4] == pytest.approx(1 / 3) and hand0[5] == pytest.approx(2 / 3) and hand0.sum() == pytest.approx(1)
    assert piece("player_1", "own_graveyard")[9] == pytest.approx(2 / 3)
    assert piece("player_0", "own_graveyard")[7] == pytest.approx(1 / 3)
    # seats relative to the observer: player_1 sees itself at 0, player_2 at 1, player_0 at 2
    np.testing.assert_allclose(piece("player_1", "brains"), [6 / 18, 1.0, 9 / 18, 0, 0])
    np.testing.assert_allclose(piece("player_1", "hand_sizes"), [1 / 50, 2 / 50, 3 / 50, 0, 0])
    np.testing.assert_allclose(piece("player_1", "graveyard_sizes"), [2 / 50, 0, 1 / 50, 0, 0])
    assert piece("player_1", "to_move").tolist() == [1, 0, 0, 0, 0]
    assert piece("player_0", "to_move").tolist() == [0, 1, 0, 0, 0]
    assert piece("player_2", "to_move").tolist() == [0, 0, 1, 0, 0]
    assert piece("player_0", "decision")[rules.PLAY] == 1
    assert piece("player_0", "num_players").tolist() == [0, 1, 0, 0]
    assert piece("player_0", "spider")[0] == 1
    assert piece("player_2", "horde_top")[8] == 1 and piece("player_2", "horde")[3] == pytest.approx(1 / 3)
    assert piece("player_2", "discard")[12] == pytest.approx(1 / 3)
    assert piece("player_2", "die")[0] == 1
    obs = _obs(env, "player_0")
    assert obs.dtype == np.float32 and obs.min() >= 0 and obs.max() <= 1


def test_RO11_pending_draft_cards_show_to_the_drafting_seat_only():
    env = raw_env(num_players=2)
    env.reset(options={"deck": [4, 4, 17], "first_player": 0})
    lay = env.observation_layout()["pending"]
    mine = _obs(env, "player_0")[lay["start"] : lay["stop"]]
    theirs = _obs(env, "player_1")[lay["start"] : lay["stop"]]
    assert mine[4] == pytest.approx(2 / 3) and mine[17] == pytest.approx(1 / 3)
    assert not theirs.any()


def test_observation_layout_names_every_slice_exactly_once():
    for config in CONFIGS:
        env = raw_env(**config)
        covered = []
        for piece in env.observation_layout().values():
            covered.extend(range(piece["start"], piece["stop"]))
        assert covered == list(range(env.observation_space("player_0")["observation"].shape[0]))


# ----------------------------------------------------------------------------- rewards, cycles
def test_RO10_rewards_paid_at_game_end_only_and_zero_sum():
    env = env_with(table(4, hands=[[1], [2], [3], [4]], brains=[3, 3, 1, 3], seat=2))
    assert env.rewards == {a: 0 for a in env.agents}
    env.step(PASS)
    assert all(env.terminations.values())
    third = pytest.approx(1 / 3)
    assert env._cumulative_rewards == {"player_0": third, "player_1": third, "player_2": -1.0, "player_3": third}


def test_brain_shaping_is_opt_in_zero_sum_and_documented():
    s = table(3, hands=[[3], [1], [2]], horde=[5], reserve=[12, 14])
    plain = env_with(s)
    plain.step(PASS)
    assert all(r == 0 for r in plain._cumulative_rewards.values())
    env = env_with(s, brain_shaping=0.3)
    env.step(PASS)  # seat 0 loses a brain: deltas (-1, 0, 0), mean -1/3
    assert env.rewards["player_0"] == pytest.approx(-0.2)
    assert env.rewards["player_1"] == pytest.approx(0.1) == env.rewards["player_2"]
    assert sum(env._cumulative_rewards.values()) == pytest.approx(0)
    with pytest.raises(ValueError, match="brain_shaping"):
        raw_env(brain_shaping=-1)
    with pytest.raises(ValueError, match="brain_shaping"):
        raw_env(brain_shaping=float("nan"))


def test_max_cycles_truncates_with_reward_zero():
    check_max_cycles_truncation(lambda **kw: wrapped_env(num_players=2, **kw))


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "config,match",
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 6}, "num_players"),
        ({"num_players": "3"}, "num_players"),
        ({"starting_brains": 0}, "starting_brains"),
        ({"deck": {20: 3}}, "0..19"),
        ({"deck": {5: 0}}, "positive"),
        ({"deck": {5: 30}, "num_players": 5}, "at least 45"),
        ({"marshmallow_values": [8]}, "cannot be marshmallows"),
        ({"marshmallow_values": [19, 19]}, "twice"),
        ({"max_cycles": 0}, "max_cycles"),
        ({"render_mode": "rgb_array"}, "render_mode"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"brain_shaping": "yes"}, "brain_shaping"),
    ],
)
def test_bad_config_raises_a_clear_value_error(config, match):
    with pytest.raises(ValueError, match=match):
        raw_env(**config)


def test_unknown_config_key_is_a_type_error():
    with pytest.raises(TypeError, match="colour"):
        raw_env(colour="blue")


@pytest.mark.parametrize(
    "options,match",
    [
        ({"deck": [19, 19, 19]}, "more copies of 19"),
        ({"deck": [25]}, "not a card value"),
        ({"deck": "abc"}, "list of card values"),
        ({"dice": [0]}, "die faces"),
        ({"dice": 3}, "die faces"),
        ({"first_player": 3}, "first_player"),
        ({"state": {"seat": 0}}, "missing keys"),
        ({"state": [1, 2]}, "must be a dict"),
        ({"state": {}, "dice": [1]}, "cannot be combined"),
    ],
)
def test_bad_reset_options_raise(options, match):
    env = raw_env(num_players=3)
    with pytest.raises(ValueError, match=match):
        env.reset(options=options)


def test_state_for_another_config_is_refused():
    other = raw_env(num_players=2)
    other.reset(seed=0)
    with pytest.raises(ValueError, match="num_players is 2 in the state but 3 in this env"):
        raw_env(num_players=3).reset(options={"state": other.state.to_dict()})
    with pytest.raises(ValueError, match="starting_brains is 9 in the state but 10"):
        raw_env(num_players=2, starting_brains=10).reset(options={"state": other.state.to_dict()})


def test_illegal_action_raises_naming_action_and_legal_ones():
    env = env_with(table(2, hands=[[4, 9], [1]], horde=[5]))
    with pytest.raises(IllegalActionError, match=r"illegal action 45.*legal actions now: \[0, 60\]") as err:
        env.step(P(4))
    assert err.value.legal == [PASS, P(9)]
    assert isinstance(err.value, ValueError)
    for bad in (-1, 93, 2.5, "3", None, V(9), OPP(1)):
        with pytest.raises(IllegalActionError):
            env.step(bad)
    env.step(np.int64(P(9)))  # numpy integers are fine


def test_illegal_action_penalize_ends_the_game_with_minus_one_for_the_offender():
    env = env_with(table(3, hands=[[4], [1], [2]], horde=[5]), illegal_action="penalize")
    env.step(P(4))
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": -1, "player_1": 0, "player_2": 0}
    assert env.infos["player_0"] == {"illegal_action": True, "attempted_action": P(4)}


# ----------------------------------------------------------------------------- meaning, render
def test_action_meaning_in_context():
    env = env_with(table(3, hands=[[5, 5, 19, 8], [1], [2]], horde=[3], reserve=[12, 14], dice=[1]))
    assert env.action_meaning(PASS).startswith("pass")
    assert env.action_meaning(P(5, 2)) == "play 2 x 5, send 1 extra copy to opponents"
    assert env.action_meaning(P(8)) == "play 1 x 8 (spider)"
    env.step(P(5, 2))
    assert env.action_meaning(OPP(2)) == "send the extra card to the opponent 2 seat(s) after (player_2)"
    env.step(OPP(1))
    env.step(PASS)  # player_1 passes: keep one of 12, 14
    assert env.action_meaning(V(12)) == "keep 12 in hand, the other drawn card goes to the graveyard"
    assert "exchange hands with" in env.action_meaning(rules.EXCHANGE_HAND)
    with pytest.raises(ValueError, match="outside"):
        env.action_meaning(93)


def test_render_ansi_hides_other_hands_from_a_seat_and_shows_all_to_a_spectator(capsys):
    env = env_with(table(2, hands=[[4, 17], [13]], graves=[[6], [15]], horde=[3, 8], spider=True),
                   render_mode="ansi")
    spectator = env.render()
    assert "13" in spectator and "15" in spectator and "17" in spectator and "spider" in spectator
    seat0 = env.render_text("player_0")
    assert "17" in seat0 and "13" not in seat0 and "1 hidden" in seat0
    human = raw_env(render_mode="human")
    human.reset(seed=0)
    assert "Oh My Brain" in capsys.readouterr().out
    assert raw_env().render() is None


def test_registry_make_and_pettingzoo_registry():
    assert ENVS["oh_my_brain_v0"] == "braincards.envs.oh_my_brain"
    env = make("oh_my_brain_v0", num_players=2)
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1"]
    assert isinstance(make("oh_my_brain_v0", raw=True), raw_env)
    pz = pettingzoo.make("aec", "braincards/oh_my_brain-v0", num_players=4)
    pz.reset(seed=1)
    assert len(pz.agents) == 4
    assert env.unwrapped.metadata == {"name": "oh_my_brain_v0", "render_modes": ["ansi", "human"],
                                      "is_parallelizable": False}
