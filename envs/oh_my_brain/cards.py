"""Oh My Brain's deck as data (ruling R-O2, see docs/rulings.md).

Cards have values 0-19. Copies of one value are identical, so the engine identifies a
card by its value: a hand or graveyard is a count per value, and a scripted deck is a list
of values in draw order. The default deck (50 cards) and the marshmallow (die) values are
the ruling's table; both can be replaced through the env config.
"""

from __future__ import annotations

NUM_VALUES = 20
VALUES = tuple(range(NUM_VALUES))

MOSQUITO = 0  # always playable (R-O4)
SPIDER = 8  # the next play must be < 8 (R-O4)
MOUSE = 11  # discard the horde, refill, new turn (R-O6)
SPECIAL_VALUES = (MOSQUITO, SPIDER, MOUSE)

# R-O2: copies per value of the default 50-card deck.
DEFAULT_DECK: dict[int, int] = {
    0: 2, 1: 2, 2: 2, 3: 3, 4: 3, 5: 3, 6: 3, 7: 3, 8: 3, 9: 3,
    10: 3, 11: 2, 12: 3, 13: 3, 14: 2, 15: 2, 16: 2, 17: 2, 18: 2, 19: 2,
}
# R-O2: every copy of these values is a marshmallow (die) card.
DEFAULT_MARSHMALLOWS: tuple[int, ...] = (1, 2, 18, 19)

# Die faces (R-O7), 1-based like the die.
DIE_FACES = {
    1: "give a hand card to an opponent's graveyard",
    2: "every seat puts the top reserve card into its graveyard",
    3: "steal a brain from an opponent",
    4: "gain a brain",
    5: "exchange hands or graveyards with an opponent",
    6: "play again",
}

_NAMES = {MOSQUITO: "mosquito", SPIDER: "spider", MOUSE: "mouse"}


def value_effect(value: int, marshmallows=DEFAULT_MARSHMALLOWS) -> str | None:
    """``"spider"``, ``"marshmallow"``, or None for a card without an effect."""
    return _NAMES.get(value, "marshmallow" if value in marshmallows else None)


def value_name(value: int, marshmallows=DEFAULT_MARSHMALLOWS) -> str:
    """``"8 (spider)"``, ``"19 (marshmallow)"``, ``"5"``."""
    effect = value_effect(value, marshmallows)
    return str(value) if effect is None else f"{value} ({effect})"


def expand(copies) -> list[int]:
    """Every card of a deck given as copies per value (a list of 20 counts), ascending."""
    out: list[int] = []
    for v, c in enumerate(copies):
        if c:
            out += [v] * c
    return out
