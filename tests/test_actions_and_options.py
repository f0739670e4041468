"""Every game refuses what is not an action or not an option value, with an error that
names what was given and what is allowed; the raw env explains what to do when it is used
before reset() or after its last dead step (issue 9: "Actions and options")."""

from __future__ import annotations

import numpy as np
import pytest

from braincards.envs import brilliant_boar, oh_my_brain, the_brain
from braincards.envs.core.errors import IllegalActionError

GAMES = {
    "the_brain": (the_brain, {"num_players": 2}),
    "oh_my_brain": (oh_my_brain, {"num_players": 2}),
    "brilliant_boar": (brilliant_boar, {"num_players": 2}),
}


def _ready(game: str, **options):
    module, config = GAMES[game]
    env = module.raw_env(**config, **options)
    env.reset(seed=3)
    return env


# ----------------------------------------------------------------------------- action types
class _FakeTensor:
    """A 0-d tensor of another library (torch-like: a dtype without numpy's ``kind``),
    so the test runs without the train extra installed."""

    shape = ()

    def __init__(self, value, dtype: str):
        self.value, self.dtype = value, dtype

    def __int__(self):
        return int(self.value)

    def __index__(self):
        return int(self.value)

    def __repr__(self):
        return f"tensor({self.value!r}, dtype={self.dtype})"


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(
    "make_bad",
    [
        lambda a: float(a),
        lambda a: a + 0.7,
        lambda a: True,
        lambda a: str(a),
        lambda a: None,
        lambda a: [a],
        lambda a: np.float32(a),
        lambda a: np.bool_(True),
        lambda a: np.array(float(a)),
        lambda a: np.array(True),
        lambda a: np.array([a]),
        lambda a: _FakeTensor(a + 0.7, "torch.float32"),
        lambda a: _FakeTensor(True, "torch.bool"),
        lambda a: _FakeTensor(a, "torch.complex64"),
        lambda a: np.timedelta64(a),  # issue 20: numpy registers it as an integer
        lambda a: np.array(np.timedelta64(a)),
        lambda a: np.datetime64(a, "s"),
        lambda a: np.ma.array(a, mask=True),  # issue 44: numpy.ma.MaskError, not IllegalActionError
    ],
)
def test_every_non_integer_action_type_is_refused_and_changes_nothing(game, make_bad):
    env = _ready(game)
    legal = env.legal_actions()
    before = env.state.to_dict()
    bad = make_bad(legal[0])
    with pytest.raises(IllegalActionError, match="action must be an integer") as refused:
        env.step(bad)
    assert env.state.to_dict() == before
    assert "\n" not in str(refused.value)  # one line, however the type prints itself


@pytest.mark.parametrize("game", GAMES)
def test_integer_actions_of_numpy_and_tensor_libraries_are_accepted(game):
    for make in (np.int64, np.uint8, np.array, np.ma.array, lambda a: _FakeTensor(a, "torch.int64")):
        env = _ready(game)
        a = env.legal_actions()[0]
        expected = _ready(game)
        expected.step(a)
        env.step(make(a))
        assert env.state.to_dict() == expected.state.to_dict()


def test_torch_float_and_bool_tensors_are_refused():
    """issue 9: ``torch.tensor(5.7)`` played 5 and ``torch.tensor(True)`` played 1."""
    torch = pytest.importorskip("torch")
    for game in GAMES:
        env = _ready(game)
        a = env.legal_actions()[0]
        for bad in (torch.tensor(a + 0.7), torch.tensor(float(a)), torch.tensor(True)):
            with pytest.raises(IllegalActionError, match="action must be an integer"):
                env.step(bad)
        env.step(torch.tensor(a))  # an integer tensor is an integer


def test_penalize_mode_ends_the_game_on_a_float_action():
    env = the_brain.raw_env(num_players=2, illegal_action="penalize")
    env.reset(seed=0)
    agent = env.agent_selection
    env.step(float(env.legal_actions()[0]))
    assert env.terminations[agent] and env.rewards[agent] == -1


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("offending", [None, False, 0.0, 0])
def test_penalize_info_flags_every_penalty_truthily(game, offending):
    """issue 20: the info held the action itself, so a penalty for ``None``, ``False`` or
    ``0.0`` read as falsy; now it is ``True`` with the action under ``attempted_action``."""
    env = _ready(game, illegal_action="penalize")
    agent = env.agent_selection
    if offending == 0 and 0 in env.legal_actions():
        offending = 10**6  # no action 0 to offend with here: one out of range instead
    env.step(offending)
    info = env.infos[agent]
    assert info["illegal_action"] is True and env.rewards[agent] == -1
    assert info["attempted_action"] is offending or info["attempted_action"] == offending


# ----------------------------------------------------------------------------- options
@pytest.mark.parametrize(
    "make,option",
    [
        (lambda: the_brain.raw_env(memory=np.array("perfect")), "memory"),
        (lambda: the_brain.raw_env(draw_rule=np.array("optional")), "draw_rule"),
        (lambda: the_brain.raw_env(difficulty=np.array("amateur")), "difficulty"),
        (lambda: the_brain.raw_env(render_mode=np.array("ansi")), "render_mode"),
        (lambda: the_brain.raw_env(illegal_action=np.array(["raise", "penalize"])), "illegal_action"),
        (lambda: brilliant_boar.raw_env(memory=np.array("none")), "memory"),
        (lambda: brilliant_boar.raw_env(reward=np.array("score")), "reward"),
        (lambda: oh_my_brain.raw_env(marshmallow_values=np.array(3)), "marshmallow_values"),
        (lambda: oh_my_brain.raw_env(marshmallow_values="1,2"), "marshmallow_values"),
        (lambda: oh_my_brain.raw_env(marshmallow_values=(v for v in (1, 2))), "marshmallow_values"),
        (lambda: the_brain.solo_env(num_players=True), "num_players"),
        (lambda: the_brain.solo_env(num_players=1.0), "num_players"),
        (lambda: the_brain.solo_env(num_players=2), "num_players"),
        (lambda: brilliant_boar.solo_env(num_players=True), "num_players"),
        (lambda: brilliant_boar.solo_env(num_players=np.float64(1.0)), "num_players"),
    ],
)
def test_bad_option_values_raise_a_value_error_naming_the_option(make, option):
    with pytest.raises(ValueError, match=option):
        make()


def test_numpy_strings_and_integers_are_still_accepted_as_option_values():
    env = the_brain.raw_env(memory=np.str_("none"), num_players=np.int64(2), difficulty=np.int32(6))
    assert env.memory == "none" and env.config.limit == 6
    env = oh_my_brain.raw_env(marshmallow_values=np.array([1, 2]))
    assert env.config.marshmallow_values == (1, 2)
    env = oh_my_brain.raw_env(marshmallow_values=(19, 18))  # any order, a tuple
    assert env.config.marshmallow_values == (18, 19)
    assert the_brain.solo_env(num_players=np.int64(1)).game.config.num_players == 1


@pytest.mark.parametrize("bad", ["easy", 0, 37, 7.0, True])
def test_difficulty_error_names_both_the_names_and_the_integer_limits(bad):
    with pytest.raises(ValueError) as err:
        the_brain.raw_env(difficulty=bad)
    msg = str(err.value)
    assert "difficulty" in msg and "'amateur'" in msg and "1..36" in msg


# ----------------------------------------------------------------------------- scripted decks
def _orderless_decks(cards):
    return [
        set(cards),
        frozenset(cards),
        dict.fromkeys(cards, 1),
        (c for c in cards),
        iter(list(cards)),
        np.array(cards[0]),
        "0,1,2",
    ]


@pytest.mark.parametrize("game", GAMES)
def test_a_deck_that_is_not_a_sequence_is_refused(game):
    """A scripted deck lists cards in draw order: a set or dict has no order and a
    generator is consumed by the first look at it, so none is a deck."""
    module, config = GAMES[game]
    cards = list(range(36)) if game != "oh_my_brain" else [3, 4, 5, 6, 7, 9, 10, 12, 13]
    for deck in _orderless_decks(cards):
        env = module.raw_env(**config)
        with pytest.raises(ValueError, match="deck"):
            env.reset(options={"deck": deck})


@pytest.mark.parametrize("game", GAMES)
def test_a_deck_as_a_tuple_or_numpy_array_is_a_sequence_and_accepted(game):
    module, config = GAMES[game]
    cards = list(range(36)) if game != "oh_my_brain" else [3, 4, 5, 6, 7, 9, 10, 12, 13]
    states = []
    for deck in (cards, tuple(cards), np.array(cards)):
        env = module.raw_env(**config)
        env.reset(seed=1, options={"deck": deck})
        states.append(env.state.to_dict())
    assert states[0] == states[1] == states[2]


def test_scripted_dice_that_are_not_a_sequence_are_refused():
    for dice in ({1, 2}, (f for f in (1, 2)), np.array(3)):
        with pytest.raises(ValueError, match="dice"):
            oh_my_brain.raw_env().reset(options={"dice": dice})


# ----------------------------------------------------------------------------- raw env lifecycle
@pytest.mark.parametrize("game", GAMES)
def test_raw_env_before_reset_says_to_call_reset(game):
    module, config = GAMES[game]
    env = module.raw_env(**config)
    for call in (
        lambda: env.step(0),
        lambda: env.observe("player_0"),
        lambda: env.last(),
        lambda: env.action_meaning(0),
        lambda: env.render_text(),
        lambda: env.legal_actions(),
    ):
        with pytest.raises(RuntimeError, match=r"reset\(\)"):
            call()


@pytest.mark.parametrize("game", GAMES)
def test_raw_env_after_its_last_dead_step_says_the_game_is_over(game):
    env = _ready(game)
    while env.agents:
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    for call in (lambda: env.step(0), lambda: env.step(None), lambda: env.last()):
        with pytest.raises(RuntimeError, match=r"over.*reset\(\)"):
            call()
    # the finished table can still be looked at
    assert env.observe("player_0")["action_mask"].sum() == 0
    assert env.legal_actions() == []
    assert env.render_text()
    env.reset(seed=1)  # and a new game starts as usual
    assert env.agents == env.possible_agents


def test_wrapped_env_keeps_pettingzoo_behaviour_after_the_last_dead_step():
    """PettingZoo's order-enforcing wrapper logs a warning on a step after the end and
    does nothing (it never reaches the raw env)."""
    env = the_brain.env(num_players=2)
    env.reset(seed=1)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        assert agent
    assert env.step(0) is None
