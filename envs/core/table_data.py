"""The table as data: rows of labelled piles of cards, for pages and tools that draw cards.

``render_text`` says the table in words; ``CardGameEnv.table_data(viewer)`` gives the same
table as JSON-safe data, built from the same rule of what ``viewer`` may see, so that a page
draws cards from fields (``{"colour": "red", "object": "lock", "effect": "remove safe"}``)
and never parses English. Every game fills the same shape:

- ``facts``: the table's counters, ``[name, value]`` pairs (turn, deck, display n/limit...);
- ``rows``: one per table area or seat, each ``{"label", "seat", "acting", "facts",
  "piles"}``; ``seat`` is the seat's index (None for a shared area), ``acting`` marks the seat
  that decides now;
- a pile is ``{"name", "cards", "hidden"}``: the cards ``viewer`` sees, face up and in order,
  then ``hidden`` more that it sees only the backs of.

A card is a dict of the game's own words: The Brain ``colour``, ``object``, ``effect`` (a
covered card under a non-perfect memory shows only its ``effect``); Oh My Brain ``value``
and ``effect`` (None for a plain card); Brilliant Boar ``motif`` (and ``remembered: True``
for a seat's own card that only its perfect memory shows).
"""

from __future__ import annotations

from typing import Any

Card = dict[str, Any]


def pile(name: str, cards: list[Card] | tuple = (), hidden: int = 0) -> dict:
    """A named pile: the cards seen face up, then ``hidden`` face-down ones."""
    return {"name": name, "cards": list(cards), "hidden": int(hidden)}


def row(label: str, *, seat: int | None = None, acting: bool = False, facts=(), piles=()) -> dict:
    """One area of the table (``seat`` None) or one seat's place at it."""
    return {"label": label, "seat": seat, "acting": bool(acting),
            "facts": [[k, v] for k, v in facts], "piles": list(piles)}


def table(facts, rows: list[dict]) -> dict:
    """The whole table: its counters and its rows."""
    return {"facts": [[k, v] for k, v in facts], "rows": rows}
