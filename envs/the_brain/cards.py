"""The Brain's deck as data (ruling R-B1, see docs/rulings.md).

36 unique cards = 6 objects x 6 colors. Card id = object * 6 + color. Every card has
one action; the remove cards name the object or color they remove. The table is the
ruling's Latin square: every action appears once per object and once per color.
"""

from __future__ import annotations

OBJECTS = ("fingerprint", "key", "magnifying_glass", "brain", "lock", "safe")
COLORS = ("blue", "purple", "green", "red", "grey", "yellow")
NUM_CARDS = len(OBJECTS) * len(COLORS)

# Action symbols (a covered card shows only its symbol, R-B8).
DONATE, COVER, TAKE_BACK, EXTRA_CARD, REMOVE_OBJECT, REMOVE_COLOR = range(6)
SYMBOLS = ("donate", "cover", "take_back", "extra_card", "remove_object", "remove_color")

# R-B1, row = object, column = color (blue, purple, green, red, grey, yellow).
DECK_TABLE = {
    "fingerprint": ("donate", "cover", "extra_card", "take_back", "remove blue", "remove key"),
    "key": ("remove fingerprint", "remove green", "donate", "cover", "extra_card", "take_back"),
    "magnifying_glass": ("cover", "remove brain", "take_back", "extra_card", "donate", "remove purple"),
    "brain": ("take_back", "donate", "remove magnifying_glass", "remove grey", "cover", "extra_card"),
    "lock": ("remove red", "extra_card", "cover", "remove safe", "take_back", "donate"),
    "safe": ("extra_card", "take_back", "remove yellow", "donate", "remove lock", "cover"),
}


def card_id(obj: str, color: str) -> int:
    """The id of the card with that object and color, e.g. ``card_id("brain", "blue")``."""
    return OBJECTS.index(obj) * 6 + COLORS.index(color)


def _parse(text: str) -> tuple[int, int]:
    """``"remove grey"`` -> (REMOVE_COLOR, 4); ``"cover"`` -> (COVER, -1)."""
    if text.startswith("remove "):
        target = text[len("remove ") :]
        if target in COLORS:
            return REMOVE_COLOR, COLORS.index(target)
        return REMOVE_OBJECT, OBJECTS.index(target)
    return SYMBOLS.index(text), -1


# Per card id: object, color, action symbol, remove target (-1 when not a remove card).
OBJECT_OF: tuple[int, ...] = tuple(c // 6 for c in range(NUM_CARDS))
COLOR_OF: tuple[int, ...] = tuple(c % 6 for c in range(NUM_CARDS))
_PARSED = [_parse(DECK_TABLE[OBJECTS[c // 6]][c % 6]) for c in range(NUM_CARDS)]
SYMBOL_OF: tuple[int, ...] = tuple(p[0] for p in _PARSED)
TARGET_OF: tuple[int, ...] = tuple(p[1] for p in _PARSED)


# What a covered card shows (R-B8, rulebook "Cover": the action symbol stays visible).
# A remove card's symbol names its object or color, so there are 16 visible symbols:
# donate, cover, take_back, extra_card, remove <object> x 6, remove <color> x 6.
VISIBLE_SYMBOLS = SYMBOLS[:4] + tuple(f"remove {o}" for o in OBJECTS) + tuple(f"remove {c}" for c in COLORS)
VISIBLE_SYMBOL_OF: tuple[int, ...] = tuple(
    SYMBOL_OF[c] if SYMBOL_OF[c] < REMOVE_OBJECT
    else 4 + TARGET_OF[c] if SYMBOL_OF[c] == REMOVE_OBJECT
    else 10 + TARGET_OF[c]
    for c in range(NUM_CARDS)
)


def card_name(card: int) -> str:
    """``"blue brain"``."""
    return f"{COLORS[COLOR_OF[card]]} {OBJECTS[OBJECT_OF[card]]}"


def action_name(card: int) -> str:
    """``"remove grey"``, ``"donate"``, ..."""
    return DECK_TABLE[OBJECTS[OBJECT_OF[card]]][COLOR_OF[card]]


SHORT_COLORS = ("blu", "pur", "grn", "red", "gry", "yel")


def short_name(card: int) -> str:
    """A compact label for the text table, e.g. ``"blu-brain(take_back)"``."""
    return f"{SHORT_COLORS[COLOR_OF[card]]}-{OBJECTS[OBJECT_OF[card]]}({action_name(card)})"
