"""The PettingZoo env: API, seeding, round trip, observation (what each seat may see,
R-W2/R-W3/R-W9), rewards, config and reset-option errors, illegal actions, render."""

from __future__ import annotations

import random

import numpy as np
import pytest

from braincards.envs.brilliant_boar import env, raw_env, rules
from braincards.envs.brilliant_boar.cards import MOTIF_OF, MOTIFS, NUM_CARDS, card_id
from braincards.envs.brilliant_boar.env import HAND_BLOCK, build_layout
from braincards.envs.core.errors import IllegalActionError

from ..common import (
    check_max_cycles_truncation,
    check_round_trip,
    check_seeded_determinism,
    observe_after,
    run_api_and_seed_tests,
)
from .helpers import env_with, play, table


# ----------------------------------------------------------------------------- API
@pytest.mark.parametrize(
    "cfg",
    [
        {},
        {"num_players": 1, "level": 1},
        {"num_players": 2, "level": 2, "name_card": True},
        {"num_players": 4, "memory": "perfect", "reward": "score", "normalize": True},
    ],
)
def test_api_and_seed(cfg):
    run_api_and_seed_tests(lambda: env(**cfg), num_cycles=200)


def test_metadata_and_spaces():
    e = env()
    assert e.metadata["name"] == "brilliant_boar_v0"
    assert e.metadata["render_modes"] == ["ansi", "human"]
    assert e.metadata["is_parallelizable"] is False
    assert e.possible_agents == ["player_0", "player_1", "player_2"]
    assert e.action_space("player_0").n == 57
    assert env(name_card=True).action_space("player_0").n == 543
    size = e.observation_space("player_0")["observation"].shape[0]
    assert size == build_layout("none").size == e.unwrapped.layout.size
    # the same vector for every level and player count (one policy fits all)
    for p in (1, 2, 4):
        for lv in (1, 4):
            assert env(num_players=p, level=lv).observation_space("player_0")["observation"].shape == (size,)
    perfect = env(memory="perfect").observation_space("player_0")["observation"].shape[0]
    assert perfect == size + HAND_BLOCK


def test_round_trip_mid_game_continues_identically():
    for cfg, split in (({}, 20), ({"num_players": 1}, 15), ({"num_players": 4, "name_card": True, "memory": "perfect"}, 60)):
        assert check_round_trip(lambda cfg=cfg: env(**cfg), seed=4, split=split) > 0


def test_round_trip_in_a_choice_decision():
    s = table(2, pile=["wolf", "owl"], hands=[["wolf"], ["duck"]], middle=["wolf"])
    rules.apply_action(s, play(0))
    e = env_with(s)
    assert e.state.phase == rules.CHOOSE
    f = raw_env(num_players=2)
    f.reset(options={"state": e.state.to_dict()})
    np.testing.assert_array_equal(e.observe("player_0")["observation"], f.observe("player_0")["observation"])
    assert e.legal_actions() == f.legal_actions() == [rules.TAKE_TOP, rules.TAKE_MIDDLE]


def test_same_seed_same_game_and_reset_without_seed_continues_the_rng():
    check_seeded_determinism(lambda: env(num_players=3, level=2))


# ----------------------------------------------------------------------------- reset options
def test_reset_options_scripted_deck_first_player_and_motifs():
    e = raw_env(num_players=2, level=1)
    deck = [card_id("fox", 0), card_id("owl", 0), card_id("fox", 1)]
    e.reset(options={"deck": deck, "first_player": 1, "motifs": ["badger", "wolf", "owl", "fox", "mouse", "boar"]})
    s = e.state
    assert s.pile == deck and s.seat == 1 and e.agent_selection == "player_1"
    assert [MOTIFS[m] for m in s.motifs] == ["badger", "wolf", "owl", "fox", "mouse", "boar"]
    e.step(rules.DRAW)
    e.step(rules.DRAW)
    assert e.agent_selection == "player_1"
    e.step(play(0))  # the fox pairs with the pile's fox; the pile is empty, seat 0 holds the owl
    assert all(e.terminations.values())
    assert e.rewards == {"player_0": -1, "player_1": 1}


@pytest.mark.parametrize(
    "options,match",
    [
        ({"deck": [0, 0]}, "duplicate"),
        ({"deck": "abc"}, "deck"),
        ({"first_player": 3}, "first_player"),
        ({"first_player": "0"}, "first_player"),
        ({"motifs": ["wolf"]}, "motifs"),
        ({"state": {"pile": []}}, "missing keys"),
        ({"state": {}, "deck": []}, "cannot be combined"),
    ],
)
def test_reset_option_errors(options, match):
    with pytest.raises(ValueError, match=match):
        raw_env(num_players=3).reset(options=options)


def test_unknown_reset_option_is_named_in_a_warning():
    with pytest.warns(UserWarning, match="unknown reset option"):
        raw_env(num_players=3).reset(options={"hand": 1})


def test_reset_state_must_fit_the_config():
    s = table(2, pile=["owl"], hands=[["fox"], ["duck"]])
    with pytest.raises(ValueError, match="num_players"):
        raw_env(num_players=3).reset(options={"state": s.to_dict()})
    with pytest.raises(ValueError, match="name_card"):
        raw_env(num_players=2, name_card=True).reset(options={"state": s.to_dict()})


def test_reset_to_a_finished_state_is_terminal():
    s = table(2, pile=[], hands=[["fox"], []], won=[[], ["owl", "owl"]])
    e = env(num_players=2)
    e.reset(options={"state": s.to_dict()})
    assert all(e.terminations.values())
    assert e.unwrapped.rewards == {"player_0": -1, "player_1": 1}


# ----------------------------------------------------------------------------- config errors
@pytest.mark.parametrize(
    "cfg,match",
    [
        ({"num_players": 0}, "num_players"),
        ({"num_players": 5}, "num_players"),
        ({"level": 0}, "level"),
        ({"level": "expert"}, "level"),
        ({"name_card": "yes"}, "name_card"),
        ({"memory": "partial"}, "memory"),
        ({"reward": "win"}, "reward"),
        ({"num_players": 1, "reward": "rank"}, "solo reward"),
        ({"normalize": 1}, "normalize"),
        ({"normalize": True}, "only applies to score"),
        ({"max_cycles": 0}, "max_cycles"),
        ({"render_mode": "rgb_array"}, "render_mode"),
        ({"illegal_action": "ignore"}, "illegal_action"),
    ],
)
def test_config_errors_name_the_option(cfg, match):
    with pytest.raises(ValueError, match=match):
        raw_env(**cfg)


def test_unknown_config_option_is_an_error():
    with pytest.raises(TypeError):
        raw_env(hand_size=3)


# ----------------------------------------------------------------------------- illegal actions
def test_illegal_action_raises_naming_action_and_legal_ones():
    e = env(num_players=2)
    e.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"illegal action 1.*legal actions now: \[0\]") as info:
        e.step(play(0))  # nobody holds a card yet
    assert isinstance(info.value, ValueError) and info.value.legal == [0]
    for bad in (57, -1, 1.5, "0"):
        with pytest.raises(IllegalActionError):
            e.step(bad)
    seat = e.unwrapped.state.seat
    e.step(np.int64(0))  # numpy integers are fine
    assert len(e.unwrapped.state.hands[seat]) == 1


def test_illegal_action_penalize_ends_the_game():
    e = env(num_players=3, illegal_action="penalize")
    e.reset(seed=0)
    offender = e.agent_selection
    e.step(rules.TAKE_TOP)
    assert all(e.terminations.values())
    assert e.unwrapped._cumulative_rewards[offender] == -1
    assert sum(e.unwrapped._cumulative_rewards.values()) == -1
    assert e.infos[offender] == {"illegal_action": True, "attempted_action": rules.TAKE_TOP}


# ----------------------------------------------------------------------------- observation
def _obs(e, agent):
    return e.observe(agent)["observation"]


def _piece(e, o, name):
    return o[e.layout.slice(name)]


def test_observation_is_ego_centric_and_shows_other_hands_RW3():
    s = table(3, pile=["wolf", "owl"], hands=[["fox", "hare"], ["duck"], ["stag", "boar", "mouse"]], middle=["badger"], seat=1)
    e = env_with(s, memory="none")
    o = _obs(e, "player_0")
    assert o.dtype == np.float32 and o.min() >= 0 and o.max() <= 1
    assert _piece(e, o, "decision").tolist() == [0, 0]  # not its move
    assert _piece(e, o, "to_move").tolist() == [0, 1, 0, 0]
    assert _piece(e, o, "seats").tolist() == [1, 1, 1, 0]
    assert _piece(e, o, "pile_top").argmax() == MOTIFS.index("wolf")  # R-W2
    assert _piece(e, o, "pile_size")[0] == pytest.approx(2 / NUM_CARDS)
    assert _piece(e, o, "middle")[MOTIFS.index("badger")] == pytest.approx(1 / 6)
    assert _piece(e, o, "hand_sizes").tolist() == pytest.approx([2 / 54, 1 / 54, 3 / 54, 0])
    assert _piece(e, o, "own_positions").tolist()[:3] == [1, 1, 0]
    others = _piece(e, o, "other_hands").reshape(3, 54, 9)
    assert others[0, 0].argmax() == MOTIFS.index("duck") and others[0, 1].sum() == 0
    assert [others[1, p].argmax() for p in range(3)] == [MOTIFS.index(m) for m in ("stag", "boar", "mouse")]
    assert others[2].sum() == 0  # no fourth seat
    # seat 1's view: seat 1 is its own seat 0; player_2 is its seat 1, player_0 its seat 2
    o1 = _obs(e, "player_1")
    assert _piece(e, o1, "decision").tolist() == [1, 0]
    assert _piece(e, o1, "to_move").tolist() == [1, 0, 0, 0]
    others1 = _piece(e, o1, "other_hands").reshape(3, 54, 9)
    assert others1[0, 0].argmax() == MOTIFS.index("stag")
    assert [others1[1, p].argmax() for p in range(2)] == [MOTIFS.index("fox"), MOTIFS.index("hare")]


def test_memory_perfect_shows_the_own_hand_motifs_RW9():
    s = table(2, pile=["wolf"], hands=[["fox", "hare"], ["duck"]])
    e = env_with(s, memory="perfect")
    mem = _piece(e, _obs(e, "player_0"), "own_hand_memory").reshape(54, 9)
    assert [mem[p].argmax() for p in range(2)] == [MOTIFS.index("fox"), MOTIFS.index("hare")]
    assert mem[2:].sum() == 0
    assert "own_hand_memory" not in env_with(s).layout


def _with_own_hand_replaced(state, seat, rng):
    """The same table, except that ``seat``'s hand holds cards of random motifs."""
    t = state.copy()
    t.hands[seat] = [rng.randrange(NUM_CARDS) for _ in t.hands[seat]]
    return t


@pytest.mark.parametrize("players,name_card", [(1, False), (2, True), (3, False), (4, False)])
def test_memory_none_observation_is_identical_whatever_the_own_hand_RW9(players, name_card):
    """R-W3/R-W9: in memory="none" nothing of a seat's own hand motifs is in its
    observation: replacing them by any motifs leaves the observation unchanged, at
    every point of many random games (and memory="perfect" does change, as a control)."""
    rng = random.Random(players)
    checked = changed = 0
    for game in range(4):
        for steps in range(0, 120, 9):
            for memory in ("none", "perfect"):
                e = observe_after(lambda memory=memory: env(num_players=players, name_card=name_card, memory=memory), seed=game, steps=steps, rng_seed=game)
                raw = e.unwrapped
                real = raw.state
                for seat, agent in enumerate(raw.possible_agents):
                    if not real.hands[seat]:
                        continue
                    before = raw.observe(agent)
                    raw.state = _with_own_hand_replaced(real, seat, rng)
                    after = raw.observe(agent)
                    raw.state = real
                    if memory == "none":
                        np.testing.assert_array_equal(before["observation"], after["observation"])
                        np.testing.assert_array_equal(before["action_mask"], after["action_mask"])
                        checked += 1
                    else:
                        changed += not np.array_equal(before["observation"], after["observation"])
    assert checked > 10 and changed > 0


def test_observation_of_pending_choice_and_error_stack():
    s = table(2, pile=["wolf"], hands=[["wolf"], ["duck"]], middle=["wolf"])
    rules.apply_action(s, play(0))
    e = env_with(s)
    o = _obs(e, "player_0")
    assert _piece(e, o, "decision").tolist() == [0, 1]
    assert _piece(e, o, "pending").argmax() == MOTIFS.index("wolf")
    solo = table(1, pile=["owl", "hare", "duck"], hands=[["fox"]])
    rules.apply_action(solo, play(0))
    e = env_with(solo)
    o = _obs(e, "player_0")
    assert _piece(e, o, "error_stack")[0] == pytest.approx(2 / 54)
    assert _piece(e, o, "scores")[0] == pytest.approx((-2 + 54) / 108)


def test_observation_layout_names_every_piece():
    e = raw_env(memory="perfect")
    lay = e.observation_layout()
    assert list(lay)[0] == "decision"
    assert sum(p["size"] for p in lay.values()) == e.layout.size
    assert "own_hand_memory" in lay and "| `other_hands` |" in e.layout.describe()


# ----------------------------------------------------------------------------- rewards
def test_rewards_rank_and_score_and_infos_RW7():
    s = table(3, pile=["owl"], hands=[["fox"], [], ["owl"]], won=[[], ["hare"] * 2, []], seat=2)
    cases = (
        ("rank", {"player_0": -1.0, "player_1": 0.5, "player_2": 0.5}),
        ("score", {"player_0": -1.0, "player_1": 2.0, "player_2": 2.0}),
    )
    for reward, want in cases:
        e = env_with(s, reward=reward)
        e.step(play(0))  # the owl pairs with the pile: the pile is empty, only seat 0 holds cards
        assert all(e.terminations.values())
        assert e._cumulative_rewards == want
        assert {a: e.infos[a]["score"] for a in e.agents} == {"player_0": -1, "player_1": 2, "player_2": 2}


def test_solo_reward_is_the_score_RW8():
    s = table(1, pile=["owl"], hands=[["fox", "hare"]], won=[["duck"] * 4])
    e = env_with(s)
    e.step(play(0))  # miss: fox and owl to the error stack; the pile is empty
    assert e.terminations["player_0"] and e._cumulative_rewards["player_0"] == 4 - 2 - 1
    e = env_with(s, normalize=True, reward="score")
    e.step(play(0))
    assert e._cumulative_rewards["player_0"] == pytest.approx(1 / 7)


def test_max_cycles_truncates():
    check_max_cycles_truncation(lambda **kw: env(num_players=2, **kw), seed=1)


# ----------------------------------------------------------------------------- render, meanings
def test_render_and_action_meaning():
    s = table(2, pile=["wolf"], hands=[["fox", "hare"], ["duck"]], middle=["owl"], name_card=True)
    e = env_with(s, render_mode="ansi")
    text = e.render()
    assert "fox, hare" in text and "owl" in text and "top: wolf" in text
    mine = e.render_text("player_0")
    assert "fox" not in mine and "? ?" in mine and "duck" in mine
    assert "(fox)" in env_with(s, memory="perfect").render_text("player_0")
    assert e.action_meaning(rules.DRAW) == "draw the pile's top card (wolf)"
    assert e.action_meaning(play(1, "owl")) == "play the card at hand position 1, naming owl"
    assert "middle" in e.action_meaning(rules.TAKE_MIDDLE) and "pile" in e.action_meaning(rules.TAKE_TOP)
    assert e.action_meaning(play(3)) == "play the card at hand position 3"
    with pytest.raises(ValueError):
        e.action_meaning(543)


def test_render_human_prints(capsys):
    e = env(num_players=2, render_mode="human")
    e.reset(seed=0)
    e.step(rules.DRAW)
    out = capsys.readouterr().out
    assert "Brilliant Boar" in out and "GAME OVER" not in out
    e.unwrapped.state = table(2, pile=[], hands=[["fox"], []])
    assert "GAME OVER" in e.unwrapped.render_text()


def test_render_before_reset_is_an_error():
    with pytest.raises(RuntimeError):
        raw_env(render_mode="ansi").render()


def test_every_card_id_motif():
    assert [MOTIF_OF[c] for c in (0, 5, 6, 53)] == [0, 0, 1, 8]


def test_registry_make():
    from braincards.envs import ENVS, make

    assert "brilliant_boar_v0" in ENVS
    assert isinstance(make("brilliant_boar_v0", raw=True, num_players=2), raw_env)
    wrapped = make("brilliant_boar_v0", num_players=2)
    wrapped.reset(seed=0)
    assert wrapped.unwrapped.state.num_players == 2


def test_a_draw_is_logged_without_its_motif_when_memory_is_none():
    """R-W3: a drawn card is seen once; under memory="none" a lasting log keeps no motif (the
    move list shown at the decision still names the face-up top: everyone sees it then)."""
    for memory, named in (("none", False), ("perfect", True)):
        table = raw_env(num_players=2, memory=memory)
        table.reset(seed=1)
        assert "(" in table.action_meaning(rules.DRAW)
        assert ("(" in table.log_meaning(rules.DRAW)) == named
        assert table.log_meaning(rules.DRAW).startswith("draw the pile's top card")
