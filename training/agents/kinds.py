"""Policy kinds and the policy-spec grammar, parsed here and nowhere else.

A *policy spec* is the string that names a policy wherever one is accepted:

* ``NAME`` - a registered kind with its defaults (``"heuristic"``, ``"pimc"``);
* ``NAME:KEY=VALUE,KEY=VALUE`` - the same with parameters (``"pimc:samples=8,nodes=500"``);
* ``package.module:attr`` or ``package.module:attr:KEY=VALUE,...`` - outside code (a
  :class:`PolicyKind`, or a factory or class called with ``game``, ``config``, ``seed`` and the
  parameters, see :func:`call_factory`);
* a checkpoint name or path (:mod:`.locations`).

A :class:`PolicyKind` is one entry of the policy registry (:mod:`.specs`): its name, the
parameters it takes (:class:`Param`), the games it plays, one line of help and the factory
that builds it. Each of braincards' kinds is declared beside its implementation; outside
packages add theirs through the ``braincards.policies`` entry-point group.
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from braincards.envs import TableConfig, get_spec

from .policy import PolicySpecError

OUTSIDE = re.compile(r"([A-Za-z_][\w.]*):([A-Za-z_][\w.]*)(?::(.*))?", re.DOTALL)


def parse_spec(text: str) -> tuple[str, str, list[tuple[str, str]]]:
    """``"pimc:samples=8, nodes=500"`` -> ``("pimc", "samples=8, nodes=500", [("samples", "8"),
    ("nodes", "500")])``: the kind's name, the raw parameter text and its ``KEY=VALUE`` pairs in
    order (repeats kept, so the kind can refuse them). A PolicySpecError for an item without
    ``=``."""
    name, _, params = text.strip().partition(":")
    return name.strip(), params, parse_params(name.strip(), params)


def parse_params(kind: str, params: str) -> list[tuple[str, str]]:
    """The ``KEY=VALUE`` pairs of a parameter text (empty items are skipped)."""
    pairs = []
    for item in filter(None, (p.strip() for p in params.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise PolicySpecError(f"bad {kind} parameter {item!r}: expected KEY=VALUE, "
                                  f"e.g. {kind}:{key.strip() or 'key'}=4")
        pairs.append((key.strip(), value.strip()))
    return pairs


def literal(value: str) -> int | float | str:
    """An outside kind's parameter value: an int, else a float, else the text as it is."""
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def _games_text(games: tuple[str, ...]) -> str:
    titles = " or ".join(get_spec(g).title for g in games)
    return f"{titles} only ({', '.join(games)} only)"


@dataclass(frozen=True)
class Param:
    """One parameter of a kind. ``type`` is ``int`` (each >= 1), ``float`` (finite; its range
    is the policy's to check) or ``str`` (one of ``choices`` when given; ``game_choices``,
    pairs ``(game id, choices)``, gives a game its own); ``games`` limits it to some of the
    kind's games (empty: all of them)."""

    name: str
    type: type = int
    help: str = ""
    required: bool = False
    choices: tuple[str, ...] = ()
    games: tuple[str, ...] = ()
    metavar: str = "N"
    game_choices: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def allowed(self, game: str | None = None) -> tuple[str, ...]:
        """The values a ``str`` parameter takes for ``game`` (all games' when None)."""
        if game is None and self.game_choices:
            return tuple(dict.fromkeys(c for _, cs in self.game_choices for c in cs))
        return dict(self.game_choices).get(game, self.choices)

    def convert(self, kind: str, text: str, game: str | None = None):
        """The value of ``text`` for ``game``, checked (a PolicySpecError that says what is
        allowed)."""
        if self.type is str:
            allowed = self.allowed(game)
            if allowed and text not in allowed:
                where = f" for {get_spec(game).title}" if game and self.game_choices else ""
                raise PolicySpecError(f"unknown {kind} {self.name} {text!r}{where}; allowed: {list(allowed)}")
            if not text:
                raise PolicySpecError(f"{kind} parameter {self.name} is empty; expected {self.name}={self.metavar}")
            return text
        try:
            value = self.type(text)
        except ValueError:
            what = "an integer" if self.type is int else "a number"
            raise PolicySpecError(f"{kind} parameter {self.name}={text!r} must be {what}") from None
        if self.type is int and value < 1:
            raise PolicySpecError(f"{kind} parameter {self.name}={value} must be >= 1")
        if self.type is float and not math.isfinite(value):
            raise PolicySpecError(f"{kind} parameter {self.name}={value} must be a finite number")
        return value

    @property
    def usage(self) -> str:
        return self.usage_for()

    def usage_for(self, game: str | None = None) -> str:
        """``style=careful|cautious``: the parameter's form for ``game`` (every game's: None)."""
        allowed = self.allowed(game)
        return f"{self.name}={'|'.join(allowed) if allowed else self.metavar}"


@dataclass(frozen=True)
class PolicyKind:
    """One registered kind of policy.

    ``factory(game, config, seed=None, **params)`` builds a fresh policy; ``params`` is the
    parameter schema (``None``: any ``KEY=VALUE``, values read by :func:`literal` - the form of
    outside kinds that declare none); ``games`` the game ids it plays (``None``: every game).
    With ``named_by_spec`` a policy built with parameters is named by its spec string."""

    name: str
    help: str
    factory: Callable
    params: tuple[Param, ...] | None = ()
    games: tuple[str, ...] | None = None
    example: str = ""
    named_by_spec: bool = False
    origin: str = "braincards"

    @property
    def plain(self) -> bool:
        """True when the kind can be seated by its name alone (no required parameter)."""
        return not any(p.required for p in self.params or ())

    def plays(self, game: str) -> bool:
        return self.games is None or game in self.games

    def usage(self, game: str | None = None) -> str:
        """``pimc[:samples=N,nodes=N]``, ``guided:checkpoint=NAME[,top=K,...]``: with ``game``,
        only the parameters that apply to it."""
        params = [p for p in self.params or () if game is None or not p.games or game in p.games]
        required = ",".join(p.usage_for(game) for p in params if p.required)
        optional = ",".join(p.usage_for(game) for p in params if not p.required)
        if self.params is None:
            optional = "KEY=VALUE,..."
        text = self.name + (":" + required if required else "")
        if optional:
            text += f"[{',' if required else ':'}{optional}]"
        return text

    def bind(self, pairs: list[tuple[str, str]], game: str, spec: str) -> dict:
        """The checked keyword arguments of ``pairs`` for ``game`` (PolicySpecError: unknown,
        repeated, missing or bad parameters, or a parameter of another game)."""
        if self.params is None:
            seen = [k for k, _ in pairs]
            repeated = sorted({k for k in seen if seen.count(k) > 1})
            if repeated:
                raise PolicySpecError(f"{self.name} takes one {repeated[0]}=... (repeated in {spec!r})")
            return {k: literal(v) for k, v in pairs}
        schema = {p.name: p for p in self.params}
        out = {}
        for key, value in pairs:
            if key not in schema:
                raise PolicySpecError(f"unknown {self.name} parameter {key!r}; allowed: {sorted(schema)}")
            if key in out:
                raise PolicySpecError(f"{self.name} takes one {schema[key].usage} (repeated in {spec!r})")
            p = schema[key]
            if p.games and game not in p.games:
                raise PolicySpecError(f"the {self.name} parameter {key!r} is for {_games_text(p.games)}, "
                                      f"not {game}")
            out[key] = p.convert(self.name, value, game)
        missing = [p for p in self.params if p.required and p.name not in out]
        if missing:
            example = f", e.g. {self.example}" if self.example else ""
            raise PolicySpecError(f"{self.name} needs one {missing[0].usage} ({missing[0].help}){example}")
        return out

    def build(self, spec: str, pairs: list[tuple[str, str]], table: TableConfig, seed: int | None):
        """A fresh policy of this kind, at ``table``, from the spec string ``spec`` and its
        parameter pairs."""
        game = table.id
        if not self.plays(game):
            raise PolicySpecError(f"the {self.name} policy plays {_games_text(self.games)}, not {game}")
        if pairs and self.params == ():
            raise PolicySpecError(f"the {self.name!r} policy takes no parameters (got {spec!r})")
        kwargs = self.bind(pairs, game, spec)
        try:
            policy = call_factory(self.factory, table, seed, kwargs)
        except PolicySpecError:
            raise
        except ValueError as err:
            if not pairs and self.origin == "braincards":
                raise  # a bad table config, not a bad spec
            raise PolicySpecError(f"bad policy spec {spec!r}: {err}") from None
        check_policy(policy, spec)
        if self.named_by_spec and pairs:
            policy.name = spec.strip()
        return policy


def call_factory(factory: Callable, table: TableConfig, seed: int | None, params: dict):
    """Call a kind's factory (or class) with those of ``game`` (the env id), ``config`` (the
    options, a fresh dict), ``seed`` and ``table`` (the :class:`TableConfig` itself, which
    braincards' own kinds read) that its signature names (all but ``table`` when it takes
    ``**kwargs``), and the spec's parameters."""
    game, config = table.id, table.config
    offered = {"game": game, "config": config, "seed": seed}
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # a builtin without a signature: the full form
        return factory(game, config, seed=seed, **params)
    takes = signature.parameters
    if any(p.kind is p.VAR_KEYWORD for p in takes.values()):
        return factory(**offered, **params)
    if "table" in takes:
        offered = {"table": table, "seed": seed}
    unknown = sorted(set(params) - set(takes))
    if unknown:
        raise PolicySpecError(f"unknown parameter {unknown[0]!r} for {getattr(factory, '__qualname__', factory)}; "
                              f"it takes: {sorted(k for k in takes if k not in offered) or 'none'}")
    return factory(**{k: v for k, v in offered.items() if k in takes}, **params)


def check_policy(policy, spec: str) -> None:
    """A PolicySpecError unless ``policy`` has callable ``act`` and ``reset``."""
    if not (callable(getattr(policy, "act", None)) and callable(getattr(policy, "reset", None))):
        raise PolicySpecError(f"policy spec {spec!r} gave {type(policy).__name__}, which is not a policy "
                              f"(a policy has act(observation, agent=None) -> int and reset(seed=None))")
