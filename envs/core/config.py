"""Validation helpers for env configs: every bad value raises a ValueError that names
the option, the value given and what is allowed. Nothing is clamped."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Iterable

import numpy as np

from .errors import IllegalActionError


def check_choice(name: str, value, allowed: Iterable):
    """``value`` if it is one of ``allowed`` (a string option must be given a string: a
    numpy array holding one is refused, not compared element-wise); returns the allowed
    entry itself (so ``np.str_("ansi")`` comes back as ``"ansi"``)."""
    allowed = list(allowed)
    if not isinstance(value, bool):
        for a in allowed:
            if value is a or (isinstance(a, str) and isinstance(value, str) and value == a):
                return a
    raise ValueError(f"{name}={value!r} is not allowed; allowed values: {allowed}")


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


# integer dtype names of array libraries whose dtypes have no numpy ``kind`` (torch's
# str(dtype) is "torch.int64"); no such library is imported here
_INT_DTYPE_NAMES = frozenset(f"{u}int{b}" for u in ("", "u") for b in (8, 16, 32, 64))


def check_action_int(action):
    """Return ``action`` as a Python int, or raise IllegalActionError naming what was given.

    Accepted: ints, numpy integers and 0-d integer arrays or tensors (numpy, torch, ...).
    Refused: bools, floats (even integral ones: ``5.0``), ``np.timedelta64``, and 0-d float,
    bool, complex or time arrays and tensors (``torch.tensor(5.7)`` is not action 5,
    ``torch.tensor(True)`` not 1).
    """
    if type(action) is int:  # the fast path
        return action
    # numpy integers, IntEnum members; not np.timedelta64, which numpy registers as an
    # integer (dtype kind "m") but which is a duration, not an action
    if (isinstance(action, numbers.Integral) and not isinstance(action, bool)
            and getattr(getattr(action, "dtype", None), "kind", "i") in ("i", "u")):
        return int(action)
    dtype = getattr(action, "dtype", None)
    if dtype is not None and getattr(action, "shape", None) == ():
        if isinstance(action, np.ma.MaskedArray) and np.ma.is_masked(action):
            raise IllegalActionError(f"action must be an integer, got a masked value "
                                     f"({type(action).__name__} with mask=True): no action", action)
        kind = getattr(dtype, "kind", None)  # numpy: "i"/"u" integers, "b" bool, "f" float
        if kind in ("i", "u") or (kind is None and str(dtype).rsplit(".", 1)[-1] in _INT_DTYPE_NAMES):
            return int(action)
    raise IllegalActionError(
        f"action must be an integer, got {action!r} ({type(action).__name__})", action
    )


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


def check_sequence(name: str, value, what: str, *, ordered: bool = True) -> list:
    """``value`` as a list: a list, tuple, range or 1-d array (its ``tolist()``).

    Refused with a ValueError naming ``name``: strings, dicts, 0-d arrays, generators and
    other one-shot iterators (a look at them consumes them) and, where the order matters
    (``ordered``: a deck in draw order), sets.
    """
    if isinstance(value, (list, tuple, range)):
        return list(value)
    if not ordered and isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)  # the order does not matter; make it deterministic
    if getattr(value, "ndim", None) == 1 and callable(getattr(value, "tolist", None)):
        return list(value.tolist())
    kinds = "a list, tuple or 1-d array" + ("" if ordered else ", or a set")
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    raise ValueError(
        f"{name} must be a list of {what} ({kinds}), got {type(value).__name__} {shown}"
    )


def check_card_list(name: str, cards, universe: Iterable[int], *, unique: bool) -> list[int]:
    """A list of card ids drawn from ``universe`` (e.g. a scripted deck, in order)."""
    cards = check_sequence(name, cards, "card ids")
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
