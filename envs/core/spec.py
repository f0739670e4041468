"""A game's facts, declared once next to its env: :class:`GameSpec`.

Every layer above the environments (agents, evaluation, training, the CLI, RLlib) asks a
game's spec what it needs to know - cooperative or competitive, its player counts, the
score of a finished game, its progress measure, its history wrapper, which decisions are
private, its baseline policy - and never branches on a game id. A fourth game declares its
own spec in its ``__init__.py`` and adds one line to ``braincards.envs.GAMES``.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .base import CardGameEnv

# options every env has that change how it is run, not the game (cycle cap, rendering, what
# an illegal action does)
ENV_OPTIONS = ("max_cycles", "render_mode", "illegal_action")
DECLARED: dict[str, GameSpec] = {}  # every spec by id, as it was declared (pickling reads it)
# what GameSpec learned by building an env, by (spec id, what, the options as given): checked
# options, observation layouts and spaces are facts of the options, so a table config is
# resolved once per process however often it is asked for (bounded: a long-lived server sees
# many configs)
_RESOLVED: dict[tuple, Any] = {}
_RESOLVED_MAX = 4096


def _options_key(config) -> str | None:
    """A key that identifies an options mapping (None for anything else, which is never
    remembered: a list of pairs must still be refused, not taken for the same dict)."""
    if config is None:
        return "None"
    if type(config) is not dict:
        return None
    try:
        return repr(sorted(config.items()))
    except TypeError:  # keys of mixed types
        return None


@dataclass(frozen=True)
class GameSpec:
    """What the rest of braincards needs to know about one game.

    * ``id`` - the env id (``"the_brain_v0"``), ``title`` - its name in words;
    * ``cooperative`` - one team wins or loses together (False: every seat for itself);
    * ``players`` - the smallest and largest ``num_players``;
    * ``raw_env`` / ``env`` - the game's AEC env classes (raw and wrapped);
    * ``scores(state)`` - per-seat score of a game (its end result: cards played out, brains,
      points); ``progress(state)`` - the share of the game's goal reached (0..1), where the
      game has one (reward shaping reads it);
    * ``history_wrapper`` - the wrapper that adds public events to the observation, if any;
    * ``decisions`` - the decision kinds, indexed by the rules state's ``phase``;
      ``private_decisions`` - those another seat may not see being made;
    * ``baseline`` - the policy spec every learned policy is compared with;
    * ``score_label`` - what a score counts, in the game's words (``"cards played out"``);
    * ``variant_option`` - an option that may be given as a list, one value per game in turn
      (The Brain's ``difficulty``), and ``variant_names`` - its named values, in order;
    * ``reward_options`` - options that shape the reward only: the game played is the same
      whatever their value (so is it for :data:`ENV_OPTIONS`, which every env has);
    * ``solo_wins`` - whether a one-player game is won or lost (False: a solo game has a score
      only, and its lone seat counts as the winner of every game).
    """

    id: str
    title: str
    cooperative: bool
    players: tuple[int, int]
    raw_env: type[CardGameEnv]
    env: Callable[..., Any]
    scores: Callable[[Any], list[float]]
    progress: Callable[[Any], float] | None = None
    history_wrapper: type | None = None
    decisions: tuple[str, ...] = ()
    private_decisions: frozenset[str] = field(default_factory=frozenset)
    baseline: str = "heuristic"
    score_label: str = "score"
    variant_option: str | None = None
    variant_names: tuple[str, ...] = ()
    reward_options: tuple[str, ...] = ()
    solo_wins: bool = True

    def __post_init__(self):
        DECLARED[self.id] = self

    def __reduce__(self):
        """Pickled by id: a spec is rebuilt as the declared one (worker processes)."""
        return declared, (self.id,)

    @property
    def name(self) -> str:
        """The id without its version: ``"the_brain"`` (configs/ and checkpoints/ folders)."""
        return self.id.rsplit("_v", 1)[0]

    @property
    def competitive(self) -> bool:
        return not self.cooperative

    # ------------------------------------------------------------------ options
    def option_names(self) -> list[str]:
        """The keyword options of the game's env, in signature order."""
        params = inspect.signature(self.raw_env).parameters
        return [k for k, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]

    def default(self, option: str):
        """The env's default value of ``option`` (a ValueError for an unknown option)."""
        param = inspect.signature(self.raw_env).parameters.get(option)
        if param is None:
            raise ValueError(f"unknown option {option!r} for {self.id}; its options: {self.option_names()}")
        return param.default

    def table_options(self, config: dict | None = None) -> dict:
        """The options that decide the game played at a table (every option but the
        reward-only ones and :data:`ENV_OPTIONS`), with the env's defaults filled in."""
        config = dict(config or {})
        skip = set(ENV_OPTIONS) | set(self.reward_options)
        return {k: config.get(k, self.default(k)) for k in self.option_names() if k not in skip}

    def _resolved(self, what: str, config, compute):
        """``compute()``, remembered for ``config`` (see :data:`_RESOLVED`); a failure is not."""
        key = _options_key(config)
        if key is None:
            return compute()
        key = (self.id, what, key)
        if key not in _RESOLVED:
            if len(_RESOLVED) >= _RESOLVED_MAX:
                _RESOLVED.clear()
            _RESOLVED[key] = compute()
        return _RESOLVED[key]

    def check_options(self, config: dict | None) -> dict:
        """``config`` checked by the game itself: a ValueError names an unknown key (and the
        known ones) or a bad value (and what is allowed). Returns a copy; a
        ``variant_option`` given as a list is checked value by value. The env that checks a
        config is built once per process (see :meth:`_resolved`)."""
        return copy.deepcopy(self._resolved("options", config, lambda: copy.deepcopy(self._check_options(config))))

    def _check_options(self, config: dict | None) -> dict:
        if config is not None and not isinstance(config, dict):
            raise ValueError(f"{self.id} options must be a mapping, got {type(config).__name__}")
        config = dict(config or {})
        known = self.option_names()
        for key in config:
            if key not in known:
                raise ValueError(f"unknown option {key!r} for {self.id}; its options: {known}")
        for variant in self.variants(config):
            self.raw_env(**variant).close()
        return config

    def variants(self, config: dict) -> list[dict]:
        """The configs a run cycles through: one per value of a ``variant_option`` given as
        a list (game g plays variant g mod V), else ``[config]``."""
        values = config.get(self.variant_option) if self.variant_option else None
        if not isinstance(values, (list, tuple)):
            return [dict(config)]
        if not values:
            raise ValueError(f"{self.variant_option} list is empty")
        seen = [str(v) for v in values]
        dups = sorted({v for v in seen if seen.count(v) > 1})
        if dups:
            raise ValueError(f"{self.variant_option} list names {dups} more than once")
        return [{**config, self.variant_option: v} for v in values]

    # ------------------------------------------------------------------ tables
    def table(self, config: dict | None = None, history_k: int = 0):
        """The raw env under ``config``; ``history_k > 0``: behind the history wrapper with
        k event slots (a ValueError for a game without one)."""
        raw = self.raw_env(**dict(config or {}))
        if not history_k:
            return raw
        if self.history_wrapper is None:
            raise ValueError(f"{self.id} has no history wrapper (history_k={history_k} must be 0)")
        return self.history_wrapper(raw, k=history_k)

    def spaces(self, config: dict | None = None, history_k: int = 0) -> dict:
        """``{"observation_shape", "action_n"}`` of the game under ``config`` (options checked)."""
        spaces = self._resolved(f"spaces/{int(history_k)}", config, lambda: self._spaces(config, history_k))
        return {"observation_shape": list(spaces["observation_shape"]), "action_n": spaces["action_n"]}

    def _spaces(self, config: dict | None, history_k: int) -> dict:
        return self.measure_spaces(self.check_options(config), history_k)

    def measure_spaces(self, checked: dict, history_k: int = 0) -> dict:
        """The spaces of an env built with ``checked`` options (checked already, not again)."""
        env = self.table(checked, history_k)
        agent = env.possible_agents[0]
        out = {"observation_shape": list(env.observation_space(agent)["observation"].shape),
               "action_n": int(env.action_space(agent).n)}
        env.close()
        return out

    def observation_layout(self, config: dict | None = None) -> dict:
        """The env's ``observation_layout()`` under ``config`` (options checked): what the
        rule-based and search players are built from (a copy of it, built once per process)."""
        layout = self._resolved("layout", config, lambda: self._observation_layout(config))
        return {name: dict(piece) for name, piece in layout.items()}

    def _observation_layout(self, config: dict | None) -> dict:
        return self.measure_layout(self.check_options(config))

    def measure_layout(self, checked: dict) -> dict:
        """The observation layout of an env built with ``checked`` options (not checked again)."""
        env = self.raw_env(**checked)
        layout = env.observation_layout()
        env.close()
        return layout

    def num_players(self, config: dict | None = None) -> int:
        """The players of a game under ``config`` (the env's default when not given)."""
        config = dict(config or {})
        if "num_players" in config:
            return int(config["num_players"])
        return int(self.default("num_players"))

    def decision(self, state) -> str | None:
        """The kind of decision pending in ``state`` (None once the game is over)."""
        phase = getattr(state, "phase", None)
        return self.decisions[phase] if isinstance(phase, int) and 0 <= phase < len(self.decisions) else None

    # ------------------------------------------------------------------ outcomes
    def wins(self, state, rewards: list[float], truncated: bool) -> list[bool]:
        """Who won a finished game. Cooperative games and a solo game: the seat's return is
        positive. Competitive games with 2+ players: the seat is among those with the best
        score and not everyone tied (R-O10, R-W7), read from :attr:`scores` so that no reward
        option (Boar's ``reward="score"``, Oh My Brain's ``brain_shaping``) changes who won.
        A truncated game has no winner."""
        if truncated:
            return [False] * len(rewards)
        if self.competitive and len(rewards) > 1:
            scores = self.scores(state)
            best = max(scores)
            if all(x == best for x in scores):
                return [False] * len(scores)
            return [x == best for x in scores]
        return [r > 0 for r in rewards]


def find_spec(name) -> GameSpec:
    """The declared spec of a game by env id or name (``"the_brain_v0"`` or ``"the_brain"``);
    a ValueError names the known games otherwise."""
    if isinstance(name, str):
        spec = DECLARED.get(name) or DECLARED.get(f"{name}_v0")
        if spec is not None:
            return spec
    raise ValueError(f"unknown game {name!r}; known games: {sorted(DECLARED)}")


def declared(spec_id: str) -> GameSpec:
    """The spec declared with ``spec_id`` (how a pickled spec comes back)."""
    return DECLARED[spec_id]
