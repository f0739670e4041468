"""How a value given by a user or a file is shown in an error message: cut short, so that a
hostile value (a 100 kB string, a 10,000-item list, an integer past Python's digit limit)
never makes a huge message. Every layer's errors use :func:`shown` and :func:`shorten`."""

from __future__ import annotations

import reprlib
from typing import Any

SHOWN_CHARS = 80  # a given value is shown truncated to this

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxtuple, _REPR.maxdict = 3, 6, 6, 4
_REPR.maxstring = _REPR.maxlong = _REPR.maxother = SHOWN_CHARS


def shown(value: Any, limit: int = SHOWN_CHARS) -> str:
    """``repr(value)`` cut to ``limit`` characters (reprlib looks at a few items of a
    container only, so a huge list costs nothing)."""
    try:
        text = _REPR.repr(value)
    except ValueError:  # an int past Python's digit limit for str()
        text = f"<a huge {type(value).__name__}>"
    return shorten(text, limit)


def shorten(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` cut to ``limit`` characters, ending in ``...`` when cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


__all__ = ["SHOWN_CHARS", "shorten", "shown"]
