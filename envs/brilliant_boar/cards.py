"""Brainwaves: The Brilliant Boar's deck as data (ruling R-W1, see docs/rulings.md).

54 animal cards = 9 motifs x 6 copies. Card id = motif * 6 + copy, so the motif of a card
is ``card // 6``. Copies of one motif are interchangeable in play; the ids exist so that
every card can be followed (conservation checks, scripted decks).
"""

from __future__ import annotations

# R-W1, in the rulebook's order (Dachs, Wolf, Eule, Fuchs, Maus, Hase, Ente, Hirsch, Wildschwein).
MOTIFS = ("badger", "wolf", "owl", "fox", "mouse", "hare", "duck", "stag", "boar")
NUM_MOTIFS = len(MOTIFS)
COPIES = 6
NUM_CARDS = NUM_MOTIFS * COPIES

# Difficulty level -> motifs in play (6..9); the rest are set aside (rulebook setup table).
LEVELS = {1: 6, 2: 7, 3: 8, 4: 9}
LEVEL_NAMES = {1: "beginners", 2: "advanced", 3: "experienced", 4: "experts"}

MOTIF_OF: tuple[int, ...] = tuple(c // COPIES for c in range(NUM_CARDS))


def cards_of(motif: int) -> list[int]:
    """The six card ids of a motif."""
    return list(range(motif * COPIES, (motif + 1) * COPIES))


def card_id(motif: str, copy: int = 0) -> int:
    """The id of copy ``copy`` (0..5) of a motif, e.g. ``card_id("wolf", 2)``."""
    if not 0 <= copy < COPIES:
        raise ValueError(f"copy={copy!r} is out of range; allowed: integers 0..{COPIES - 1}")
    return MOTIFS.index(motif) * COPIES + copy


def motif_name(card: int) -> str:
    """``"wolf"`` for every wolf card."""
    return MOTIFS[MOTIF_OF[card]]
