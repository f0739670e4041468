"""The Brain's cards as 36-bit masks, the form the solver, greedy and PIMC compute with: a
card's bit, what each remove card clears, the masks of card kinds, and the move-ordering values
of held cards (a team-level version of greedy's evaluation)."""

from __future__ import annotations

from braincards.envs.the_brain.cards import (
    COLOR_OF,
    COVER,
    DONATE,
    EXTRA_CARD,
    NUM_CARDS,
    OBJECT_OF,
    REMOVE_OBJECT,
    SYMBOL_OF,
    TAKE_BACK,
    TARGET_OF,
)

SHIFT = NUM_CARDS
FULL = (1 << NUM_CARDS) - 1
BIT = tuple(1 << c for c in range(NUM_CARDS))
SYM = SYMBOL_OF


def _remove_mask(r: int) -> int:
    """The cards a remove card clears when they are a stack's top (0 for other cards)."""
    if SYMBOL_OF[r] < REMOVE_OBJECT:
        return 0
    of = OBJECT_OF if SYMBOL_OF[r] == REMOVE_OBJECT else COLOR_OF
    return sum(BIT[c] for c in range(NUM_CARDS) if of[c] == TARGET_OF[r])


MATCH = tuple(_remove_mask(c) for c in range(NUM_CARDS))
TB_MASK = sum(BIT[c] for c in range(NUM_CARDS) if SYM[c] == TAKE_BACK)
REMOVE_MASK = sum(BIT[c] for c in range(NUM_CARDS) if SYM[c] >= REMOVE_OBJECT)
PLUS_MASK = sum(BIT[c] for c in range(NUM_CARDS) if SYM[c] in (DONATE, EXTRA_CARD))


# move ordering (a team-level version of the greedy heuristic's evaluation; see
# braincards.training.agents.search.greedy): the removers of each card, the value of
# every held card looked up a byte at a time
REMOVERS_OF = tuple(sum(BIT[r] for r in range(NUM_CARDS) if MATCH[r] >> c & 1) for c in range(NUM_CARDS))
_HELD_VALUE = tuple(
    -1.35 + (0.9 if SYM[c] >= REMOVE_OBJECT else 1.8 if SYM[c] == COVER
             else 0.3 if SYM[c] == TAKE_BACK else -1.0)
    for c in range(NUM_CARDS)
)
_BYTE_VALUE = tuple(
    tuple(sum(_HELD_VALUE[8 * i + j] for j in range(8) if b >> j & 1 and 8 * i + j < NUM_CARDS)
          for b in range(256))
    for i in range(5)
)
_DEAD = (1.0, 0.09, 0.0)  # a top with 0, 1, 2 live removers


def cards_of(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards) -> int:
    m = 0
    for c in cards:
        m |= BIT[c]
    return m


def stack_int(stack) -> int:
    """A display stack (bottom -> top card ids) as ``top << 36 | cards``."""
    return (stack[-1] << SHIFT) | mask_of(stack)
