"""The Brain's rule baseline: a careful casual player, reading only its own observation.

The display must never reach the loss limit, and about 30 stacks are added in a game while
only 12 remove cards can take stacks away, so a careful player sheds the cards that add
stacks (donate, extra_card) while the display has room, and keeps the cards that do not
(covers, take backs, removes) for when it is nearly full. ``room`` is how many stacks can
still be added without losing: ``limit - 1 - stacks``. Decision by decision:

* **play**, the first of these that it holds:

  1. a remove card that clears at least two stacks (the one that clears most);
  2. while ``room >= SHED_ROOM`` (1 for the careful style): an extra_card when ``room >= 2``
     and it holds another card to play with it, else a donate card;
  3. a take back of a one-card stack; a cover; a remove card that clears one stack;
     a donate card; a take back of a bigger stack (``cautious`` plays the cover first;
     ``bold`` plays: a take back of any stack, a remove card that clears one, a cover, a
     donate card);
  4. an extra_card, a remove card that clears nothing, then whatever is left;

  skipping any card that would bring the display to the limit while another card would not.
* **extra card** (its action is ignored): the card it would least like to keep: an
  extra_card, then a donate, a take back, a remove card, a cover; among equals the one whose
  top a remove card still to come can clear.
* **donate**: the most useful spare card (a cover, then the remove card that clears most, a
  take back, a donate, an extra_card) to the seat that holds the fewest cards, the nearest
  one on a tie.
* **cover**: the stack whose top the fewest remove cards still to come can clear (a top
  nobody can clear any more first), then the biggest.
* **take back**: the stack that gives back the most useful cards for its size: covers count
  most, then removes; donate and extra_card cards count against; freeing a top nobody can
  clear any more counts for it.
* **draw** (optional draw rule): always; **discard peek**: always look.

Three styles (``heuristic:style=...``): ``careful`` (the default); ``cautious``, which
sheds only while two stacks of room are left and covers before it takes back; and ``bold``,
which, when the display is tight, takes back a stack of any size first (holding more cards
for later) and keeps its covers until a remove card has had its chance. The first
The Brain heuristic is kept as ``style=scoring`` (:mod:`.the_brain_scoring`).
"""

from __future__ import annotations

import numpy as np

from braincards.envs import the_brain
from braincards.envs.the_brain import rules
from braincards.envs.the_brain.cards import (
    COVER,
    DONATE,
    EXTRA_CARD,
    REMOVE_COLOR,
    REMOVE_OBJECT,
    SYMBOL_OF,
    TAKE_BACK,
)

from ..policy import legal_actions
from .base import LayoutPlayer
from .the_brain_view import BrainView

REMOVES = (REMOVE_OBJECT, REMOVE_COLOR)
# how much a player would rather keep a card than play it for nothing (extra card, donation)
USEFULNESS = {EXTRA_CARD: 0, DONATE: 1, TAKE_BACK: 2, REMOVE_OBJECT: 3, REMOVE_COLOR: 3, COVER: 4}
# what a card taken back is worth to its new holder (take back target)
TAKE_BACK_WORTH = {COVER: 1.8, REMOVE_OBJECT: 0.5, REMOVE_COLOR: 0.5, DONATE: -1.0, EXTRA_CARD: -1.0}
TAKE_BACK_PER_CARD = 1.35  # every card taken back must be played again
FREED_DEAD_TOP = 1.0  # a taken stack whose top no remove card can clear any more
STYLES = {
    # style: (room needed to shed, the order of the valves when the display is tight)
    "careful": (1, ("take_back_one", "cover", "remove_one", "donate", "take_back")),
    "cautious": (2, ("cover", "take_back_one", "remove_one", "donate", "take_back")),
    "bold": (1, ("take_back", "remove_one", "cover", "donate", "take_back_one")),
}


class TheBrainHeuristic(LayoutPlayer):
    """The careful casual The Brain player (see the module docstring). Deterministic."""

    GAME = the_brain.SPEC.id
    name = "heuristic"
    PIECES = ("decision", "own_hand", "domains", "display_top", "hand_sizes",
              "display_covered_symbols", "stacks", "limit")

    def __init__(self, layout: dict, config: dict | None = None, seed: int | None = None, *,
                 style: str = "careful"):
        super().__init__(layout, config, seed)
        if style not in STYLES:
            raise ValueError(f"unknown The Brain heuristic style {style!r}; allowed: "
                             f"{sorted(STYLES) + ['scoring']}")
        self.style = style
        self.shed_room, self.valves = STYLES[style]
        if style != "careful":
            self.name = f"heuristic:style={style}"

    # ------------------------------------------------------------------ play
    def _candidates(self, v: BrainView, legal: list[int]) -> dict[str, tuple[int, int]]:
        """``{kind of play: (card, stacks after it)}`` for every kind of play it holds."""
        s = v.stacks
        first: dict[int, int] = {}
        for c in legal:
            first.setdefault(SYMBOL_OF[c], c)
        others = len(v.holdings) > 1
        out = {}
        removes = sorted(((v.clears(c), c) for c in legal if SYMBOL_OF[c] in REMOVES), reverse=True)
        if removes:
            k, c = removes[0]
            out["remove_many" if k >= 2 else "remove_one" if k == 1 else "remove_none"] = (c, s + 1 - k)
        if EXTRA_CARD in first:
            out["extra_card"] = (first[EXTRA_CARD], s + 2 if others else s + 1)
        if DONATE in first:
            out["donate"] = (first[DONATE], s + 1)
        takeable = [v.stack_size[t] for t in v.tops if v.takeable(t)]
        if TAKE_BACK in first and takeable:
            out["take_back"] = (first[TAKE_BACK], s)
            if min(takeable) == 1:
                out["take_back_one"] = (first[TAKE_BACK], s)
        if COVER in first and s >= 1:
            out["cover"] = (first[COVER], s)
        return out

    def _play(self, v: BrainView, legal: list[int]) -> int:
        room = v.limit - 1 - v.stacks
        options = self._candidates(v, legal)
        order = ["remove_many"]
        if room >= self.shed_room:
            order += (["extra_card"] if room >= 2 else []) + ["donate"]
        order += [*self.valves, "extra_card", "remove_none"]
        ranked = [options[k] for k in order if k in options]
        for card, after in ranked:
            if after < v.limit:
                return card
        return ranked[0][0] if ranked else min(legal)

    # ------------------------------------------------------------------ the other decisions
    def _usefulness(self, v: BrainView, c: int) -> tuple:
        sym = SYMBOL_OF[c]
        clears = v.clears(c) if sym in REMOVES else 0
        return (USEFULNESS[sym], clears)

    def _take_back_worth(self, v: BrainView, top: int) -> float:
        covered = v.covered_symbols[top]  # how many covered cards of each action
        worth = sum(w * int(covered[sym]) for sym, w in TAKE_BACK_WORTH.items())
        worth += TAKE_BACK_WORTH.get(SYMBOL_OF[top], 0.0) - TAKE_BACK_PER_CARD * v.stack_size[top]
        return worth + (FREED_DEAD_TOP if not v.live_removers(top) else 0.0)

    def act(self, observation: dict, agent: str | None = None) -> int:
        legal = [int(a) for a in legal_actions(observation)]
        if len(legal) == 1:
            return legal[0]
        v = BrainView(np.asarray(observation["observation"]), self.layout)
        d = v.decision
        if d == rules.PLAY:
            return self._play(v, legal)
        if d == rules.EXTRA:
            return min(legal, key=lambda c: (self._usefulness(v, c), -len(v.live_removers(c)), c))
        if d == rules.DONATE_CARD:
            return max(legal, key=lambda c: (self._usefulness(v, c), -c))
        if d == rules.DONATE_TARGET:
            def held(a):  # the seat k places after this one
                k = a - rules.SEAT_ACTION + 1
                return v.hand_sizes[k] + len(v.domains[k])

            return min(legal, key=lambda a: (held(a), a))
        if d == rules.COVER_TARGET:
            return min(legal, key=lambda t: (len(v.live_removers(t)), -v.stack_size[t], t))
        if d == rules.TAKE_BACK_TARGET:
            return max(legal, key=lambda t: (self._take_back_worth(v, t), -t))
        if d == rules.DRAW:
            return rules.DRAW_YES if rules.DRAW_YES in legal else legal[0]
        if d == rules.PEEK:
            return rules.PEEK_YES if rules.PEEK_YES in legal else legal[0]
        raise ValueError(f"{self.name}: no rule for The Brain decision {d}")
