"""The Brain's observation decoded into the few facts its rule players reason about
(:class:`BrainView`): the holdings, the display's tops and stack sizes, and which cards are
gone (on the display or discarded), so which remove cards can still come."""

from __future__ import annotations

import numpy as np

from braincards.envs.the_brain.cards import (
    COLOR_OF,
    NUM_CARDS,
    OBJECT_OF,
    REMOVE_COLOR,
    REMOVE_OBJECT,
    SYMBOL_OF,
    TAKE_BACK,
    TARGET_OF,
)

# the one remove card for each object / color (R-B1's Latin square has exactly one each)
REMOVER_OF_OBJECT = {TARGET_OF[c]: c for c in range(NUM_CARDS) if SYMBOL_OF[c] == REMOVE_OBJECT}
REMOVER_OF_COLOR = {TARGET_OF[c]: c for c in range(NUM_CARDS) if SYMBOL_OF[c] == REMOVE_COLOR}


def matches(remover: int, top: int) -> bool:
    """True when the remove card ``remover`` clears a stack whose top card is ``top``."""
    if SYMBOL_OF[remover] == REMOVE_OBJECT:
        return OBJECT_OF[top] == TARGET_OF[remover]
    return COLOR_OF[top] == TARGET_OF[remover]


class BrainView:
    """One observation decoded (``lay``: the env's ``observation_layout()``)."""

    def __init__(self, obs: np.ndarray, lay: dict):
        def piece(name):
            p = lay[name]
            return obs[p["start"] : p["stop"]]

        def ids(name):
            return [int(i) for i in np.flatnonzero(piece(name) > 0.5)]

        self.decision = int(np.argmax(piece("decision")))
        self.num_players = int(np.argmax(piece("num_players"))) + 1
        self.hand = ids("own_hand")
        domains = piece("domains").reshape(-1, NUM_CARDS)
        self.domains = [[int(i) for i in np.flatnonzero(d > 0.5)] for d in domains]
        self.holdings = sorted(set(self.hand) | set(self.domains[0]))
        self.hand_sizes = np.rint(piece("hand_sizes") * NUM_CARDS).astype(int)
        self.tops = ids("display_top")
        sym = np.rint(piece("display_covered_symbols").reshape(NUM_CARDS, -1) * 6).astype(int)
        self.covered_symbols = {t: sym[t] for t in self.tops}
        self.stack_size = {t: 1 + int(sym[t].sum()) for t in self.tops}
        gone = set(self.tops)
        if "display_covered_cards" in lay:
            cov = piece("display_covered_cards").reshape(NUM_CARDS, NUM_CARDS)
            for t in self.tops:
                gone.update(int(i) for i in np.flatnonzero(cov[t] > 0.5))
        gone.update(ids("discard_top"))
        if "discard_pile" in lay:
            gone.update(ids("discard_pile"))
        if "peeked_cards" in lay:
            gone.update(ids("peeked_cards"))
        self.gone = gone
        self.stacks = round(float(piece("stacks")[0]) * NUM_CARDS)
        self.limit = round(float(piece("limit")[0]) * NUM_CARDS)
        res = ids("resolving")
        self.resolving = res[0] if res else -1

    def clears(self, remover: int) -> int:
        """How many stacks the remove card ``remover`` would clear now."""
        return sum(1 for t in self.tops if matches(remover, t))

    def live_removers(self, top: int) -> list[int]:
        """The remove cards that could still clear a stack topped by ``top`` (not gone)."""
        rs = (REMOVER_OF_OBJECT[OBJECT_OF[top]], REMOVER_OF_COLOR[COLOR_OF[top]])
        return [r for r in rs if r not in self.gone and r != top]

    def takeable(self, top: int) -> bool:
        """True when a take_back card may take the stack topped by ``top`` (no take_back in it)."""
        return SYMBOL_OF[top] != TAKE_BACK and self.covered_symbols[top][TAKE_BACK] == 0
