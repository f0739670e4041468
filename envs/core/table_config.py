"""A game and its options, resolved once: :class:`TableConfig`, what every layer above the
envs passes down instead of a game id and an options dict.

:func:`table_config` (or ``spec.resolve(options)``) checks the options by the game itself and
returns the one :class:`TableConfig` of this process for them: the spec, the checked options,
the number of players, the variants a run cycles through (The Brain's ``difficulty`` list),
and what building an env would tell (the observation layout, the spaces), each computed at
most once. It is immutable, compares and hashes by game and options, and pickles as its game
id and options (a worker process resolves its own).
"""

from __future__ import annotations

from .spec import GameSpec, find_spec

_RESOLVED: dict[tuple[str, str], TableConfig] = {}
_RESOLVED_MAX = 4096  # a long-lived server sees many configs


class TableConfig:
    """One game under one set of options (see the module docstring); build it with
    :func:`table_config`."""

    __slots__ = ("spec", "_options", "_key", "_variants", "_layout", "_spaces")

    def __init__(self, spec: GameSpec, checked: dict, key: str):
        self.spec = spec
        self._options = checked
        self._key = key
        self._variants: tuple[TableConfig, ...] | None = None
        self._layout: dict | None = None
        self._spaces: dict[int, dict] = {}

    # ------------------------------------------------------------------ what it is
    @property
    def id(self) -> str:
        """The env id (``"the_brain_v0"``)."""
        return self.spec.id

    @property
    def config(self) -> dict:
        """The checked options, as a fresh dict (the keyword options of the game's env)."""
        return dict(self._options)

    @property
    def num_players(self) -> int:
        return self.spec.num_players(self._options)

    @property
    def cooperative(self) -> bool:
        return self.spec.cooperative

    @property
    def variants(self) -> tuple[TableConfig, ...]:
        """The tables a run cycles through: one per value of the game's ``variant_option``
        given as a list (game g plays variant g mod V), else this table alone."""
        if self._variants is None:
            configs = self.spec.variants(self._options)
            self._variants = (self,) if len(configs) == 1 and configs[0] == self._options else tuple(
                table_config(self.spec, c) for c in configs)
        return self._variants

    # ------------------------------------------------------------------ what an env tells
    def layout(self) -> dict:
        """The env's ``observation_layout()`` (a copy; built once)."""
        if self._layout is None:
            self._layout = self.spec.measure_layout(self._options)
        return {name: dict(piece) for name, piece in self._layout.items()}

    def spaces(self, history_k: int = 0) -> dict:
        """``{"observation_shape", "action_n"}`` of the env (behind ``history_k`` event
        slots of the history wrapper); a copy, built once."""
        k = int(history_k)
        if k not in self._spaces:
            self._spaces[k] = self.spec.measure_spaces(self._options, k)
        found = self._spaces[k]
        return {"observation_shape": list(found["observation_shape"]), "action_n": found["action_n"]}

    def table(self, history_k: int = 0):
        """A fresh raw env of this table (behind the history wrapper when ``history_k > 0``)."""
        return self.spec.table(self._options, history_k)

    # ------------------------------------------------------------------ identity
    def __eq__(self, other: object) -> bool:
        return isinstance(other, TableConfig) and (self.spec.id, self._key) == (other.spec.id, other._key)

    def __hash__(self) -> int:
        return hash((self.spec.id, self._key))

    def __reduce__(self):
        return table_config, (self.spec.id, dict(self._options))

    def __repr__(self) -> str:
        options = ", ".join(f"{k}={v!r}" for k, v in self._options.items())
        return f"TableConfig({self.spec.id}: {options})"


def _key(options: dict) -> str:
    return repr(sorted(options.items(), key=lambda kv: kv[0]))


def table_config(game: str | GameSpec | TableConfig, config: dict | None = None) -> TableConfig:
    """The :class:`TableConfig` of ``game`` (an env id or name, a spec, or a table config)
    under ``config``, checked by the game (a ValueError names an unknown game, option or a bad
    value, and what is allowed). A table config given with no ``config`` is returned as is."""
    if isinstance(game, TableConfig):
        if config is not None and table_config(game.spec, config) != game:
            raise ValueError(f"{game!r} was given with other options {config!r}; give one or the other")
        return game
    spec = game if isinstance(game, GameSpec) else find_spec(game)
    if config is not None and not isinstance(config, dict):
        raise ValueError(f"{spec.id} options must be a mapping, got {type(config).__name__}")
    try:
        given = (spec.id, _key(config or {}))
    except TypeError:  # keys of mixed types: refused by the game's own check
        spec.check_options(config)
        raise
    found = _RESOLVED.get(given)
    if found is None:
        checked = spec.check_options(config)
        found = TableConfig(spec, checked, _key(checked))
        if len(_RESOLVED) >= _RESOLVED_MAX:
            _RESOLVED.clear()
        _RESOLVED[given] = found
    return found

