"""The braincards games as OpenSpiel Python games (``pip install -e '.[interop]'``).

Importing this module registers one OpenSpiel game per braincards env, under
:data:`GAME_NAMES` (``braincards_the_brain``, ``braincards_oh_my_brain``,
``braincards_brilliant_boar``), each with the env's options as game parameters::

    from braincards.envs.openspiel import load_game
    game = load_game("the_brain_v0", num_players=2, difficulty="robber")

One piece of code serves the three games; the env plays the rules. The deal's random draws
are explicit chance nodes (:mod:`.chance`), the moves are the env's (:mod:`.table`), the
observation is the env's vector and the information state a perfect-recall string
(:mod:`.state`). Game parameters: every env option but ``render_mode``, ``illegal_action``
(OpenSpiel never plays an illegal action) and Oh My Brain's ``brain_shaping`` (a per-move
reward; OpenSpiel's games here reward at the end). An option whose env default is None is a
string parameter: ``""`` is the default, ``"1;2;3"`` a list of integers, ``"4:2;5:3"`` a dict
of integers (``,`` may stand for ``;`` in a parameter dict, not in a game string) (Oh My Brain's ``deck``: value -> copies), anything else the string itself; a
text option given as digits (``difficulty="20"``) is that integer. :func:`load_game` takes
the env's own values and writes them so.
"""

from __future__ import annotations

import pyspiel

from braincards.envs import SPECS, get_spec

from .chance import outcomes_of_seed
from .state import BraincardsObserver, BraincardsState
from .table import Worker, worker

PREFIX = "braincards_"
SKIPPED = ("render_mode", "illegal_action", "brain_shaping")
GAME_NAMES = {env_id: PREFIX + spec.name for env_id, spec in SPECS.items()}
_GAME_TYPES: dict[str, pyspiel.GameType] = {}
_Utility = pyspiel.GameType.Utility


def parameter_defaults(env_id: str) -> dict:
    """The game parameters of ``env_id`` with their defaults (see the module docstring)."""
    spec = SPECS[env_id]
    out = {}
    for opt in spec.option_names():
        if opt in SKIPPED:
            continue
        default = spec.default(opt)
        out[opt] = "" if default is None else default
    return out


def _env_value(default, value):
    """A game parameter's value as the env option's value (module docstring)."""
    if default is None or isinstance(default, str):
        text = str(value).strip()
        if default is None and text == "":
            return None
        parts = [p.strip() for p in text.replace(";", ",").split(",")]
        pairs = [p.split(":") for p in parts]
        if default is None and all(len(q) == 2 and all(x.strip().isdigit() for x in q) for q in pairs):
            return {int(k): int(v) for k, v in pairs}
        if all(p.lstrip("-").isdigit() for p in parts):
            ints = [int(p) for p in parts]
            return ints[0] if isinstance(default, str) and len(ints) == 1 else ints
        return text
    return value


def _param_value(default, value):
    """An env option's value as the game parameter's value (the reverse of _env_value)."""
    if default is None or isinstance(default, str):
        if value is None:
            return ""
        if isinstance(value, dict):
            return ";".join(f"{int(k)}:{int(v)}" for k, v in value.items())
        if isinstance(value, (list, tuple)):
            return ";".join(str(int(v)) for v in value)
        return str(value)
    if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def env_options(env_id: str, params: dict) -> dict:
    """The env options of a game's parameters (defaults for those not given)."""
    spec = SPECS[env_id]
    merged = dict(parameter_defaults(env_id), **params)
    return {k: _env_value(spec.default(k), v) for k, v in merged.items()}


def _game_type(env_id: str, utility=_Utility.GENERAL_SUM) -> pyspiel.GameType:
    spec = SPECS[env_id]
    return pyspiel.GameType(
        short_name=GAME_NAMES[env_id],
        long_name=f"braincards {spec.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.players[1],
        min_num_players=spec.players[0],
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_defaults(env_id),
    )


def _utility(w: Worker, dealt) -> tuple:
    """(utility kind, min, max, utility sum) of a game config, from its returns' rule:
    a cooperative game's seats all get the same +1 / -1 / 0 (IDENTICAL); a ranking shares
    +1 among the best and -1 among the others (ZERO_SUM); raw scores (Brilliant Boar's
    ``reward="score"`` and its solo game) are bounded by the cards in the game, or by 1 when
    ``normalize`` divides them by that number (GENERAL_SUM)."""
    env = w.env
    if w.spec.cooperative:
        return _Utility.IDENTICAL, -1.0, 1.0, None
    if getattr(env, "reward", "rank") == "score":
        bound = 1.0 if getattr(env, "normalize", False) else float(len(dealt.cards()))
        return _Utility.GENERAL_SUM, -bound, bound, None
    return _Utility.ZERO_SUM, -1.0, 1.0, 0.0


class BraincardsGame(pyspiel.Game):
    """A braincards env as an OpenSpiel game (module docstring). Subclassed once per env
    (``ENV_ID``) at registration. Beside OpenSpiel's API: ``env_id``, ``env_options`` (the
    env's options of this game), ``chance_sizes`` (the outcomes of each chance node of a
    deal, in order) and :meth:`observation_layout`."""

    ENV_ID = ""

    def __init__(self, params=None):
        params = dict(params or {})
        env_id = self.ENV_ID
        options = env_options(env_id, params)
        full = {k: _param_value(get_spec(env_id).default(k), v) for k, v in options.items()}
        key = f"{GAME_NAMES[env_id]}({','.join(f'{k}={v}' for k, v in sorted(full.items()))})"
        w = Worker(key, env_id, options)  # the env checks the options (ValueError: what is allowed)
        sizes = w.chance_sizes()
        table, _ = w.deal([0] * len(sizes))
        utility, low, high, total = _utility(w, table.state)
        info = pyspiel.GameInfo(
            num_distinct_actions=w.num_actions,
            max_chance_outcomes=max(sizes),
            num_players=w.num_players,
            min_utility=low,
            max_utility=high,
            utility_sum=total,
            max_game_length=w.num_players * w.max_cycles,
        )
        super().__init__(_game_type(env_id, utility), info, params)
        self.env_id = env_id
        self.env_options = options
        self.chance_sizes = sizes
        if str(self) != key:  # the states find the worker by the game's own string
            Worker(str(self), env_id, options)

    def new_initial_state(self):
        return BraincardsState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return BraincardsObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
            worker(str(self)).obs_size, params,
        )

    def observation_layout(self) -> dict:
        """The env's named slices of the observation tensor (``env.observation_layout()``)."""
        return worker(str(self)).env.observation_layout()


def _register() -> None:
    for env_id, name in GAME_NAMES.items():
        cls = type(f"Braincards_{SPECS[env_id].name}", (BraincardsGame,), {"ENV_ID": env_id})
        _GAME_TYPES[env_id] = _game_type(env_id)
        if name not in pyspiel.registered_names():
            pyspiel.register_game(_GAME_TYPES[env_id], cls)


def game_name(env_id_or_name: str) -> str:
    """The OpenSpiel short name of a braincards game given by env id, name or short name; a
    ValueError names the known games otherwise."""
    for env_id, name in GAME_NAMES.items():
        if env_id_or_name in (env_id, name, SPECS[env_id].name):
            return name
    known = sorted(GAME_NAMES.values()) + sorted(GAME_NAMES)
    raise ValueError(f"unknown braincards game {env_id_or_name!r}; known: {known}")


def load_game(env_id_or_name: str, **options):
    """``pyspiel.load_game`` of a braincards game with env options (``num_players=2``,
    ``difficulty="robber"``...); an unknown option is refused with the allowed ones."""
    name = game_name(env_id_or_name)
    env_id = next(k for k, v in GAME_NAMES.items() if v == name)
    defaults = parameter_defaults(env_id)
    unknown = sorted(set(options) - set(defaults))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown} for {name}; its parameters: {sorted(defaults)}")
    spec = SPECS[env_id]
    params = {k: _param_value(spec.default(k), v) for k, v in options.items()}
    return pyspiel.load_game(name, params)


def deal_outcomes(game, seed) -> list[int]:
    """The chance outcomes that deal, in ``game``, what the env deals on ``reset(seed=seed)``."""
    w = worker(str(game))
    return outcomes_of_seed(w.env.deal_state, seed)


def new_state_from_seed(game, seed) -> BraincardsState:
    """A state of ``game`` past its chance nodes, dealt as ``env.reset(seed=seed)`` deals."""
    state = game.new_initial_state()
    for outcome in deal_outcomes(game, seed):
        state.apply_action(outcome)
    return state


def state_at(game, rules_state, decisions: list[int] | None = None) -> BraincardsState:
    """A state of ``game`` set up at a dealt rules state (see ``BraincardsState.set_table``)."""
    state = game.new_initial_state()
    state.set_table(rules_state, decisions)
    return state


_register()

__all__ = ["GAME_NAMES", "BraincardsGame", "BraincardsState", "deal_outcomes", "env_options",
           "game_name", "load_game", "new_state_from_seed", "parameter_defaults", "state_at"]
