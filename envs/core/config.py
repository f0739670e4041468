"""Validation helpers for env configs: every bad value raises a ValueError that names
the option, the value given and what is allowed. Nothing is clamped."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Iterable

from .errors import IllegalActionError


def check_choice(name: str, value, allowed: Iterable):
    allowed = list(allowed)
    if isinstance(value, bool) or value not in allowed:
        raise ValueError(f"{name}={value!r} is not allowed; allowed values: {allowed}")
    return value


def check_int(name: str, value, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name}={value!r} must be an integer")
    value = int(value)
    if value < lo or (hi is not None and value > hi):
        bound = f">= {lo}" if hi is None else f"in {lo}..{hi}"
        raise ValueError(f"{name}={value!r} is out of range; allowed: integers {bound}")
    return value


def check_bool(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name}={value!r} must be True or False")
    return value


def check_action_int(action):
    """Return ``action`` as a Python int, or raise IllegalActionError naming what was given."""
    if isinstance(action, bool) or not isinstance(action, numbers.Integral):
        # a 0-d numpy integer array (what some samplers return) is fine too
        shape = getattr(action, "shape", None)
        if shape == () and getattr(getattr(action, "dtype", None), "kind", "") in "iu":
            return int(action)
        raise IllegalActionError(
            f"action must be an integer, got {action!r} ({type(action).__name__})", action
        )
    return int(action)


def check_options(options, allowed: Iterable[str]) -> dict:
    """Validate a reset ``options`` mapping: None or a dict.

    Unknown keys are not an error (PettingZoo's api_test passes ``{"options": 1}`` to
    check that reset takes options) but they are never silently dropped: a warning
    names them and the known ones. The values of known keys are validated by the game.
    """
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError(f"reset options must be a dict or None, got {type(options).__name__}")
    allowed = list(allowed)
    unknown = [k for k in options if k not in allowed]
    if unknown:
        warnings.warn(
            f"ignoring unknown reset option(s) {unknown}; known options: {allowed}", stacklevel=4
        )
    return options


def check_card_list(name: str, cards, universe: Iterable[int], *, unique: bool) -> list[int]:
    """A list of card ids drawn from ``universe`` (e.g. a scripted deck)."""
    if isinstance(cards, (str, bytes)) or not isinstance(cards, Iterable):
        raise ValueError(f"{name} must be a list of card ids, got {cards!r}")
    universe = set(universe)
    out = []
    for c in cards:
        if isinstance(c, bool) or not isinstance(c, numbers.Integral) or int(c) not in universe:
            raise ValueError(
                f"{name} holds {c!r}, which is not a card id; allowed: integers "
                f"{min(universe)}..{max(universe)}"
            )
        out.append(int(c))
    if unique and len(set(out)) != len(out):
        dup = sorted({c for c in out if out.count(c) > 1})
        raise ValueError(f"{name} holds duplicate card ids {dup}; each card exists once")
    return out
