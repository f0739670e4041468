"""The Brain env: the PettingZoo contract, observations (R-B8), rewards (R-B9), errors."""

from __future__ import annotations

import itertools
import random
import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest

from braincards.envs import ENVS, IllegalActionError, make
from braincards.envs.the_brain import env as wrapped_env
from braincards.envs.the_brain import raw_env, rules, solo_env
from braincards.envs.the_brain.cards import NUM_CARDS

from ..common import (
    check_max_cycles_truncation,
    check_round_trip,
    check_seeded_determinism,
    observe_after,
    play_games,
    run_api_and_seed_tests,
)
from .helpers import C, env_with, table

CONFIGS = [
    {},
    {"num_players": 1},
    {"num_players": 2, "difficulty": "cat_burglar", "hand_size": 2},
    {"num_players": 4, "open_hands": True, "draw_rule": "optional", "memory": "none"},
    {"num_players": 3, "discard_peek": True, "hand_size": 7},
]


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_pettingzoo_api_and_seed_tests(config):
    run_api_and_seed_tests(lambda: wrapped_env(**config))


def _random_config(rng: random.Random) -> dict:
    difficulty = rng.choice(["amateur", "robber", "cat_burglar", rng.randint(3, 9)])
    config = {
        "num_players": rng.randint(1, 4),
        "difficulty": difficulty,
        "hand_size": rng.randint(2, 7),
        "draw_rule": rng.choice(["mandatory", "optional"]),
        "open_hands": rng.random() < 0.3,
        "memory": rng.choice(["perfect", "none"]),
    }
    if rules.limit_of(difficulty) == 7:
        config["discard_peek"] = rng.random() < 0.5
    return config


def test_random_play_invariants_over_2000_games():
    """R-B9 equal rewards, card conservation, mask == the actions the rules accept,
    non-empty mask, termination within max_cycles, over every player count, difficulty,
    hand size and variant."""
    seen = set()
    outcomes = {1: 0, -1: 0}

    def make_env(rng):
        config = _random_config(rng)
        seen.add((config["num_players"], config["draw_rule"], config.get("discard_peek", False)))
        return wrapped_env(**config)

    def on_step(raw):
        s = raw.state
        assert 0 <= len(s.display) <= s.limit + 1  # the extra card can pass the limit once
        if s.phase != rules.OVER:
            assert s.outcome == rules.ONGOING

    def on_end(raw, returns):
        values = set(returns.values())
        assert len(values) == 1, f"seats were paid differently: {returns}"
        outcomes[int(values.pop())] += 1

    stats = play_games(make_env, rules, 2000, seed=7, on_step=on_step, on_end=on_end)
    assert stats.games == 2000 and stats.truncated == 0  # every game ends by the rules
    assert len(seen) == 4 * 2 * 2  # every player count x draw rule x peek met
    assert outcomes[-1] > 0 and outcomes[1] > 0  # random play both loses and (rarely) wins


def test_some_random_games_are_won():
    # easy settings (2 cards, very high limit) make wins common: the win path is exercised
    wins = 0
    for seed in range(50):
        env = wrapped_env(num_players=2, difficulty=30, hand_size=2)
        env.reset(seed=seed)
        rng = random.Random(seed)
        for _agent in env.agent_iter():
            obs, rew, term, trunc, _ = env.last()
            if term or trunc:
                wins += rew == 1
                env.step(None)
                continue
            env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    assert wins > 10


def test_round_trip_mid_game_continues_identically():
    for seed, split in itertools.product(range(6), (0, 5, 17)):
        config = CONFIGS[seed % len(CONFIGS)]
        check_round_trip(lambda config=config: wrapped_env(**config), seed, split, rng_seed=seed)


def test_same_seed_same_game_and_reset_without_seed_continues_the_rng():
    check_seeded_determinism(lambda: wrapped_env(num_players=3))


# ----------------------------------------------------------------------------- observation
def _obs(env, agent):
    return env.observe(agent)["observation"]


def test_observation_layout_names_every_slice_exactly_once():
    for config in CONFIGS:
        env = raw_env(**config)
        layout = env.observation_layout()
        covered = []
        for piece in layout.values():
            covered.extend(range(piece["start"], piece["stop"]))
        assert covered == list(range(env.observation_space("player_0")["observation"].shape[0]))


def test_RB8_changing_another_seats_hidden_hand_does_not_change_the_observation():
    """Swap cards between another seat's hand and the deck / another hidden hand, keeping
    sizes (what the observer knows): the observer's observation must not change."""
    for memory, seed, steps in itertools.product(("perfect", "none"), range(8), (0, 3, 8)):
        env = observe_after(lambda memory=memory: wrapped_env(num_players=3, memory=memory), seed, steps, seed)
        raw = env.unwrapped
        if raw.state.phase == rules.OVER:
            continue
        for observer in range(3):
            agent = f"player_{observer}"
            before = _obs(raw, agent).copy()
            s = raw.state
            others = [seat for seat in range(3) if seat != observer and s.hands[seat]]
            if not others:
                continue
            seat = others[0]
            saved = s.to_dict()
            if s.deck:  # hand <-> deck
                s.hands[seat][0], s.deck[-1] = s.deck[-1], s.hands[seat][0]
                np.testing.assert_array_equal(_obs(raw, agent), before)
            if len(others) == 2:  # hand <-> hand
                s.hands[others[0]][-1], s.hands[others[1]][0] = s.hands[others[1]][0], s.hands[others[0]][-1]
                np.testing.assert_array_equal(_obs(raw, agent), before)
            raw.state = rules.State.from_dict(saved)
            # and the observer's own hand does show up
            if s.hands[observer]:
                s2 = rules.State.from_dict(saved)
                s2.hands[observer][0], s2.deck[-1:] = (s2.deck[-1], [s2.hands[observer][0]]) if s2.deck else (s2.hands[observer][0], [])
                raw.state = s2
                if saved["deck"]:
                    assert not np.array_equal(_obs(raw, agent), before)
                raw.state = rules.State.from_dict(saved)


def test_RB8_observation_pieces_and_ego_centric_seats():
    s = table(3, hands=[["blue key", "red safe"], ["grey key"], ["yellow lock"]],
              domains=[["green brain"], ["purple safe"], []],
              display=[["blue brain", "red key"], ["grey safe"]],
              discard=["green safe", "yellow brain"], deck=["blue safe"], seat=1)
    env = env_with(s)
    lay = env.layout
    o = _obs(env, "player_1")
    own = np.flatnonzero(o[lay.slice("own_hand")]).tolist()
    assert own == [C("grey key")]
    dom = o[lay.slice("domains")].reshape(4, NUM_CARDS)
    assert np.flatnonzero(dom[0]).tolist() == [C("purple safe")]  # seat 0 = observer
    assert np.flatnonzero(dom[2]).tolist() == [C("green brain")]  # player_0 is 2 seats after player_1
    assert o[lay.slice("hand_sizes")].tolist() == pytest.approx([1 / 36, 1 / 36, 2 / 36, 0])
    assert sorted(np.flatnonzero(o[lay.slice("display_top")]).tolist()) == sorted([C("red key"), C("grey safe")])
    sym = o[lay.slice("display_covered_symbols")].reshape(NUM_CARDS, 16)
    assert sym[C("red key")].tolist() == pytest.approx([0, 0, 1 / 6] + [0] * 13)  # blue brain = take_back
    cov = o[lay.slice("display_covered_cards")].reshape(NUM_CARDS, NUM_CARDS)
    assert np.flatnonzero(cov[C("red key")]).tolist() == [C("blue brain")]
    assert np.flatnonzero(o[lay.slice("discard_top")]).tolist() == [C("yellow brain")]
    assert sorted(np.flatnonzero(o[lay.slice("discard_pile")]).tolist()) == sorted([C("green safe"), C("yellow brain")])
    assert np.flatnonzero(o[lay.slice("margin")]).tolist() == [5]
    assert o[lay.slice("decision")].tolist() == [1, 0, 0, 0, 0, 0, 0, 0]
    assert np.flatnonzero(o[lay.slice("num_players")]).tolist() == [2]
    assert o[lay.slice("deck_size")][0] == pytest.approx(1 / 36)
    # the acting seat's mask; the others get an all-zero mask
    legal = np.flatnonzero(env.observe("player_1")["action_mask"]).tolist()
    assert legal == sorted([C("grey key"), C("purple safe")])  # hand and domain
    assert not env.observe("player_0")["action_mask"].any()


def test_RB8_memory_none_shows_only_what_lies_visible():
    s = table(2, hands=[["blue key"], ["grey key"]], display=[["blue brain", "red key"]],
              discard=["green safe", "yellow brain"])
    env = env_with(s, memory="none")
    assert "discard_pile" not in env.layout and "display_covered_cards" not in env.layout
    o = _obs(env, "player_0")
    assert np.flatnonzero(o[env.layout.slice("discard_top")]).tolist() == [C("yellow brain")]
    # the covered card's action symbol is still visible
    sym = o[env.layout.slice("display_covered_symbols")].reshape(NUM_CARDS, 16)
    assert sym[C("red key")][2] == pytest.approx(1 / 6)


def test_RB8_a_covered_remove_card_shows_what_it_removes():
    """The remove symbol names its object or color (one card each), so it stays visible."""
    s = table(2, hands=[["blue key"], ["grey key"]],
              display=[["red brain", "red key"], ["purple magnifying_glass", "grey brain"]])
    env = env_with(s, memory="none")
    sym = _obs(env, "player_0")[env.layout.slice("display_covered_symbols")].reshape(NUM_CARDS, 16)
    assert np.flatnonzero(sym[C("red key")]).tolist() == [10 + 4]  # remove grey (color 4)
    assert np.flatnonzero(sym[C("grey brain")]).tolist() == [4 + 3]  # remove brain (object 3)


def test_RB8_open_hands_show_every_hand():
    s = table(3, hands=[["blue key"], ["grey key"], ["yellow lock", "red safe"]])
    env = env_with(s, open_hands=True)
    other = _obs(env, "player_0")[env.layout.slice("other_hands")].reshape(3, NUM_CARDS)
    assert np.flatnonzero(other[0]).tolist() == [C("grey key")]
    assert sorted(np.flatnonzero(other[1]).tolist()) == sorted([C("yellow lock"), C("red safe")])
    closed = env_with(s)
    assert "other_hands" not in closed.layout


def test_RB8_discard_peek_shows_the_pile_as_of_that_moment_to_that_seat_only():
    s = table(2, hands=[["blue key", "grey key"], ["red lock", "yellow key"]],
              discard=["green brain", "green safe"], deck=["purple key", "purple safe"], discard_peek=True)
    env = env_with(s, discard_peek=True, memory="none")
    lay = env.layout
    assert _obs(env, "player_0")[lay.slice("peek_available")][0] == 1
    env.step(rules.PEEK_YES)
    o0, o1 = _obs(env, "player_0"), _obs(env, "player_1")
    assert sorted(np.flatnonzero(o0[lay.slice("peeked_cards")]).tolist()) == sorted([C("green brain"), C("green safe")])
    assert not o1[lay.slice("peeked_cards")].any()
    assert o0[lay.slice("peeked_by")].tolist() == [1, 0, 0, 0]
    assert o1[lay.slice("peeked_by")].tolist() == [0, 1, 0, 0]
    assert o0[lay.slice("peek_available")][0] == 0


def test_RB8_the_table_shows_the_peeked_pile_to_the_seat_that_looked_and_only_the_fact_to_others():
    """R-B8: the text table (what `braincards play` and the web page draw) shows the pile as
    the looker saw it, to the looker and to a watcher; the other seat reads only who looked."""
    s = table(2, hands=[["blue key", "grey key"], ["red lock", "yellow key"]],
              discard=["green brain", "green safe"], deck=["purple key", "purple safe"], discard_peek=True)
    env = env_with(s, discard_peek=True, memory="none")
    assert "discard pile" not in env.render_text(viewer="player_0").split("\n", 1)[1]
    env.step(rules.PEEK_YES)
    seen = ("discard pile as player_0 saw it when looking through it: grn-brain(remove magnifying_glass), "
            "grn-safe(remove yellow)")
    assert seen in env.render_text(viewer="player_0") and seen in env.render_text(viewer=None)
    other = env.render_text(viewer="player_1")
    assert "player_0 looked through the discard pile" in other and "grn-brain" not in other


def test_RB3_solo_agent_sees_the_table_from_the_seat_it_plays():
    env = raw_env(num_players=1)
    env.reset(seed=3)
    assert env.agents == ["player_0"]
    seats = []
    for _ in range(6):
        s = env.state
        seats.append(s.seat)
        o = _obs(env, "player_0")
        own_domain = np.flatnonzero(o[env.layout.slice("domains")][:NUM_CARDS]).tolist()
        assert own_domain == sorted(s.domains[s.seat])
        env.step(env.legal_actions()[0])
        if env.terminations["player_0"]:
            break
    assert 0 in seats and 1 in seats


# ----------------------------------------------------------------------------- rewards, cycles
def test_RB9_win_pays_every_agent_plus_one_and_loss_minus_one():
    env = env_with(table(3, hands=[["blue key"], [], []], display=[["green key"]], limit=3))
    env.step(C("blue key"))
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": 1, "player_1": 1, "player_2": 1}
    env = env_with(table(2, hands=[["blue key"], []], display=[["green key"], ["red key"]], limit=3))
    env.step(C("blue key"))
    assert env._cumulative_rewards == {"player_0": -1, "player_1": -1}


def test_RB9_max_cycles_truncates_with_reward_zero():
    check_max_cycles_truncation(lambda **kw: wrapped_env(num_players=2, **kw))


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "config,match",
    [
        ({"num_players": 0}, "num_players"),
        ({"num_players": 5}, "num_players"),
        ({"num_players": "3"}, "num_players"),
        ({"difficulty": "easy"}, "difficulty"),
        ({"difficulty": 0}, "difficulty"),
        ({"hand_size": 1}, "hand_size"),
        ({"hand_size": 8}, "hand_size"),
        ({"draw_rule": "sometimes"}, "draw_rule"),
        ({"open_hands": "yes"}, "open_hands"),
        ({"discard_peek": True, "difficulty": "robber"}, "amateur"),
        ({"memory": "partial"}, "memory"),
        ({"max_cycles": 0}, "max_cycles"),
        ({"render_mode": "rgb_array"}, "render_mode"),
        ({"illegal_action": "ignore"}, "illegal_action"),
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
        ({"deck": [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]}, "duplicate"),
        ({"deck": [40] + list(range(20))}, "not a card id"),
        ({"deck": list(range(5))}, "at least"),
        ({"deck": "abc"}, "list of card ids"),
        ({"first_player": 3}, "first_player"),
        ({"state": {"seat": 0}}, "missing keys"),
        ({"state": [1, 2]}, "must be a dict"),
        ({"state": {}, "deck": list(range(36))}, "cannot be combined"),
    ],
)
def test_bad_reset_options_raise(options, match):
    env = raw_env(num_players=3)
    with pytest.raises(ValueError, match=match):
        env.reset(options=options)


def test_state_for_another_config_is_refused():
    state = raw_env(num_players=2)
    state.reset(seed=0)
    with pytest.raises(ValueError, match="num_players is 2 in the state but 3 in this env"):
        raw_env(num_players=3).reset(options={"state": state.state.to_dict()})
    with pytest.raises(ValueError, match="draw_rule is 'mandatory' in the state but 'optional'"):
        raw_env(num_players=2, draw_rule="optional").reset(options={"state": state.state.to_dict()})


def test_unknown_reset_option_warns_and_is_not_silently_dropped():
    with pytest.warns(UserWarning, match="colour"):
        raw_env().reset(options={"colour": "blue"})


def test_illegal_action_raises_naming_action_and_legal_ones():
    env = env_with(table(2, hands=[["blue key", "grey key"], ["red key"]]))
    with pytest.raises(IllegalActionError, match=r"illegal action 40.*legal actions now: \[\d+, \d+\]") as err:
        env.step(40)
    assert err.value.legal == sorted([C("blue key"), C("grey key")])
    assert isinstance(err.value, ValueError)
    for bad in (C("red key"), -1, 43, 2.5, "3", None):
        with pytest.raises(IllegalActionError):
            env.step(bad)
    env.step(np.int64(C("blue key")))  # numpy integers are fine


def test_illegal_action_penalize_ends_the_game_with_minus_one_for_the_offender():
    env = env_with(table(3, hands=[["blue key"], ["grey key"], ["red key"]]), illegal_action="penalize")
    env.step(C("grey key"))
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": -1, "player_1": 0, "player_2": 0}
    assert env.infos["player_0"] == {"illegal_action": True, "attempted_action": C("grey key")}


# ----------------------------------------------------------------------------- meaning, render
def test_action_meaning_in_context():
    env = env_with(table(3, hands=[["blue fingerprint", "purple key"], ["red key"], ["grey key"]]))
    assert env.action_meaning(C("blue fingerprint")) == "play blue fingerprint (donate)"
    env.step(C("blue fingerprint"))
    assert env.action_meaning(C("purple key")) == "donate purple key (remove green)"
    env.step(C("purple key"))
    assert env.action_meaning(rules.SEAT_ACTION) == "donate to player_1 (1 seat after the donor)"
    assert env.action_meaning(rules.SEAT_ACTION + 1) == "donate to player_2 (2 seats after the donor)"
    assert env.action_meaning(rules.DRAW_YES) == "draw a card"
    with pytest.raises(ValueError, match="outside"):
        env.action_meaning(43)


def test_render_ansi_hides_other_hands_from_a_seat_and_shows_all_to_a_spectator(capsys):
    env = env_with(table(2, hands=[["blue key"], ["grey key"]], display=[["blue brain", "red key"]]),
                   render_mode="ansi", memory="none")
    spectator = env.render()
    assert "gry-key" in spectator and "blu-key" in spectator and "blu-brain" in spectator
    seat0 = env.render_text("player_0")
    assert "blu-key" in seat0 and "gry-key" not in seat0 and "1 hidden" in seat0
    assert "[take_back]" in seat0 and "blu-brain" not in seat0  # covered: only its symbol
    human = raw_env(render_mode="human")
    human.reset(seed=0)
    assert "The Brain" in capsys.readouterr().out
    assert raw_env().render() is None


# ----------------------------------------------------------------------------- registry, solo
def test_registry_make_and_pettingzoo_registry():
    assert "the_brain_v0" in ENVS
    env = make("the_brain_v0", num_players=2)
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1"]
    assert isinstance(make("the_brain_v0", raw=True), raw_env)
    with pytest.raises(ValueError, match="unknown game 'brain'.*the_brain_v0"):
        make("brain")
    pz = pettingzoo.make("aec", "braincards/the_brain-v0", num_players=4)
    pz.reset(seed=1)
    assert len(pz.agents) == 4
    assert env.unwrapped.metadata["is_parallelizable"] is False


def test_solo_gymnasium_env():
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():  # check_env steps unmasked random actions: penalize them
        warnings.simplefilter("ignore")
        check_env(solo_env(illegal_action="penalize"), skip_render_check=True)
    env = gymnasium.make("braincards/TheBrainSolo-v0", difficulty="robber")
    obs, info = env.reset(seed=4)
    assert obs.shape == env.observation_space.shape
    total, done = 0.0, False
    rng = random.Random(0)
    while not done:
        mask = env.unwrapped.action_masks()
        assert mask.dtype == bool and (mask == info["action_mask"].astype(bool)).all()
        obs, reward, terminated, truncated, info = env.step(rng.choice(np.flatnonzero(mask).tolist()))
        total += reward
        done = terminated or truncated
    assert total in (-1.0, 1.0)
    with pytest.raises(ValueError, match="num_players=1"):
        solo_env(num_players=2)


def test_state_call_explains_there_is_no_global_state_vector():
    env = wrapped_env()
    env.reset(seed=0)
    with pytest.raises(NotImplementedError, match="rules state"):
        env.state()


# ----------------------------------------------------------------------------- review findings
def test_RB8_RB3_solo_discard_peek_stays_visible_whichever_seat_the_agent_plays():
    """R-B3: both seats are played by the same agent; R-B8: from the peek on, that player's
    observation includes the pile as it saw it. With memory="none" the snapshot must not
    vanish when the agent turns to the other seat."""
    s = table(1, domains=[["blue key", "grey key"], ["red lock", "yellow key"]],
              discard=["green brain", "green safe"], deck=["purple key", "purple safe"], discard_peek=True)
    env = env_with(s, discard_peek=True, memory="none")
    lay = env.layout
    env.step(rules.PEEK_YES)  # the own seat looks
    env.step(C("blue key"))  # remove fingerprint: nothing; the virtual seat's turn
    assert env.state.seat == 1
    o = _obs(env, "player_0")
    assert sorted(np.flatnonzero(o[lay.slice("peeked_cards")]).tolist()) == sorted([C("green brain"), C("green safe")])
    assert o[lay.slice("peeked_by")].tolist() == [0, 1, 0, 0]  # relative: the other seat looked


def test_action_meaning_in_solo_names_the_virtual_seat_not_a_missing_agent():
    """R-B3: the solo game has one agent (player_0) and a virtual seat."""
    s = table(1, domains=[["blue fingerprint", "purple key"], ["red key"]], deck=["grey key"])
    env = env_with(s)
    env.step(C("blue fingerprint"))
    env.step(C("purple key"))
    assert env.action_meaning(rules.SEAT_ACTION) == "donate to the virtual seat (1 seat after the donor)"
    s = table(1, domains=[["red key"], ["blue fingerprint", "purple key"]], deck=["grey key"], seat=1)
    env = env_with(s)
    env.step(C("blue fingerprint"))
    env.step(C("purple key"))
    assert env.action_meaning(rules.SEAT_ACTION) == "donate to your own seat (1 seat after the donor)"


def test_render_shows_the_card_being_donated_while_its_target_is_chosen():
    env = env_with(table(3, hands=[["blue fingerprint", "purple key"], ["red key"], ["grey key"]]))
    env.step(C("blue fingerprint"))
    env.step(C("purple key"))
    assert "pur-key" in env.render_text("player_1")


@pytest.mark.parametrize(
    "key,value",
    [("donating", 99), ("resolving", 36), ("peek_seat", 2), ("last_player", 7), ("outcome", 5),
     ("donating", 3)],
)
def test_from_dict_rejects_out_of_range_or_inconsistent_fields_with_value_error(key, value):
    s = table(2, hands=[["blue key"], ["grey key"]], deck=["red key"])
    data = s.to_dict()
    data[key] = value  # donating=3 while the decision is "play", not "donate_target"
    with pytest.raises(ValueError, match=key):
        rules.State.from_dict(data)


def test_RB8_memory_none_observation_ignores_covered_identities_and_the_pile_below_its_top():
    """R-B8 memory="none": swapping a covered card with a discarded card showing the same
    action symbol, or reordering the discard pile below its top, changes nothing any seat
    sees."""
    from braincards.envs.the_brain.cards import VISIBLE_SYMBOL_OF as SYMBOL_OF

    for g in range(60):
        r = random.Random(g)
        env = raw_env(num_players=r.randint(1, 4), memory="none", difficulty=r.choice([7, 9, 12]))
        env.reset(seed=g)
        while env.state.phase != rules.OVER:
            saved = env.state.to_dict()
            before = [_obs(env, a).copy() for a in env.possible_agents]
            s2 = rules.State.from_dict(saved)
            below = s2.discard[:-1]
            r.shuffle(below)
            s2.discard[:-1] = below
            for stack in s2.display:
                for j in range(len(stack) - 1):
                    same = [i for i, c in enumerate(s2.discard[:-1]) if SYMBOL_OF[c] == SYMBOL_OF[stack[j]]]
                    if same:
                        i = r.choice(same)
                        stack[j], s2.discard[i] = s2.discard[i], stack[j]
            env.state = s2
            for agent, obs in zip(env.possible_agents, before, strict=True):
                np.testing.assert_array_equal(_obs(env, agent), obs)
            env.state = rules.State.from_dict(saved)
            env._legal = None
            env.step(r.choice(env.legal_actions()))
