"""The Brain's first rule player, kept as ``heuristic:style=scoring``: it scores every card
by a weighted sum. It was braincards' The Brain ``heuristic`` until the careful player of
:mod:`.the_brain` replaced it: as a 3-player robber team it wins about 0.05, against about
0.65 for the careful player, because its weights keep the cards that add stacks in hand too
long (see docs/agents.md).

What it does, decision by decision:

* play: look one step ahead for every card it holds (hand and domain) and score the display
  it leaves: never reach the loss limit when any other card avoids it; prefer remove cards
  that clear the most stacks (never waste one that clears nothing); keep covers and take
  backs for when the display is near the limit; play an extra card only when the display has
  room for two more stacks; prefer leaving tops that a remove card still in play can clear
  (a top whose object and color removers are both gone is a stack that stays forever).
* cover: put the card on the stack whose top is hardest to clear.
* take back: the smallest stack, preferring one whose top can no longer be cleared.
* donate: give a useful card (a remove card with targets on the display, or a cover) to the
  seat that holds the fewest cards, so it has a good move on its turn.
* extra card: the card whose own action is worth least, leaving a clearable top.
* draw (optional rule): always draw; discard peek: always look (it is free information).

"Gone" cards (on the display or discarded) are read from the observation: with
memory="perfect" covered cards and the discard pile are known, with memory="none" only the
visible tops and the discard pile's top, so some removers are then wrongly believed alive.
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
from .the_brain_view import BrainView as _View
from .the_brain_view import matches as _matches

LOSS = -1000.0


class TheBrainScoringHeuristic(LayoutPlayer):
    """The scoring The Brain player (see the module docstring). Deterministic."""

    GAME = the_brain.SPEC.id
    name = "heuristic:style=scoring"
    PIECES = ("decision", "own_hand", "domains", "display_top", "stacks", "limit")

    # weights (hand-tuned on 400-game self-play runs at 2 and 3 players, amateur, seed 7;
    # the keep values matter most: 0.8/1.0 gave ~11% wins, 2.4/2.0 ~50%)
    PRESSURE = 8.0  # cost of the display: PRESSURE / (limit - stacks)
    KEEP_COVER = 2.0  # what an unused cover is worth for later
    KEEP_REMOVE = 2.4  # ... an unused remove card
    WASTED_REMOVE = 2.5  # a remove card that clears nothing
    TAKE_BACK_PER_CARD = 0.8  # every card a take back returns to the holdings
    DEAD_TOP = 1.5  # a new top no live remove card can clear
    HALF_DEAD_TOP = 0.4  # a new top only one live remove card can clear
    OWN_REMOVER = 0.3  # a new top that a remove card I hold can clear
    PROGRESS = 0.3  # per card leaving the team's holdings


    # ------------------------------------------------------------------ scoring
    def _pressure(self, v: _View, stacks: int) -> float:
        if stacks >= v.limit:
            return -LOSS
        return self.PRESSURE / (v.limit - stacks)

    def _top_value(self, v: _View, card: int, holdings: set[int]) -> float:
        live = v.live_removers(card)
        value = 0.0
        if not live:
            value -= self.DEAD_TOP
        elif len(live) == 1:
            value -= self.HALF_DEAD_TOP
        if any(r in holdings for r in live):
            value += self.OWN_REMOVER
        return value

    def _play_value(self, v: _View, card: int) -> float:
        sym = SYMBOL_OF[card]
        others = set(v.holdings) - {card}
        s = v.stacks
        progress = 1
        extra = 0.0
        if sym in (REMOVE_OBJECT, REMOVE_COLOR):
            k = sum(1 for t in v.tops if _matches(card, t))
            cleared = sum(v.stack_size[t] for t in v.tops if _matches(card, t))
            after = s + 1 - k
            extra -= self.WASTED_REMOVE if k == 0 else self.KEEP_REMOVE
            extra += 0.05 * cleared
        elif sym == COVER:
            after = s if s >= 1 else s + 1
            extra -= self.KEEP_COVER if s >= 1 else 0.0
        elif sym == TAKE_BACK:
            sizes = [v.stack_size[t] for t in v.tops if v.takeable(t)]
            if sizes:
                after = s
                m = min(sizes)
                progress = 1 - m
                extra -= self.TAKE_BACK_PER_CARD * m
            else:
                after = s + 1
        elif sym == EXTRA_CARD:
            if others:
                after = s + 2
                progress = 2
            else:
                after = s + 1
        else:  # DONATE: the played card is a new stack, a card moves to another seat
            after = s + 1
        value = -self._pressure(v, after) + self.PROGRESS * progress + extra
        if sym != COVER or s == 0:
            value += self._top_value(v, card, others)
        else:
            value += 0.2  # cover hides a top; the target is chosen next
        return value

    def _keep_value(self, v: _View, card: int) -> float:
        """What a card's own action is worth (used when the action is ignored or given away)."""
        sym = SYMBOL_OF[card]
        if sym in (REMOVE_OBJECT, REMOVE_COLOR):
            return 1.0 + sum(1 for t in v.tops if _matches(card, t))
        if sym == COVER:
            return 1.5
        if sym == TAKE_BACK:
            return 0.5
        if sym == DONATE:
            return 0.2
        return 0.0  # extra card

    # ------------------------------------------------------------------ decisions
    def act(self, observation: dict, agent: str | None = None) -> int:
        legal = [int(a) for a in legal_actions(observation)]
        if len(legal) == 1:
            return legal[0]
        v = _View(np.asarray(observation["observation"]), self.layout)
        d = v.decision
        if d == rules.PLAY:
            return max(legal, key=lambda c: (self._play_value(v, c), -c))
        if d == rules.EXTRA:
            others = set(v.holdings)

            def extra_value(c):
                return (-self._pressure(v, v.stacks + 1) + self._top_value(v, c, others - {c})
                        - self._keep_value(v, c))

            return max(legal, key=lambda c: (extra_value(c), -c))
        if d == rules.COVER_TARGET:
            # hide the top that is hardest to clear; keep tops I can clear myself visible
            holdings = set(v.holdings)

            def cover_value(t):
                live = v.live_removers(t)
                return (-len(live) - (2 if any(r in holdings for r in live) else 0), -t)

            return max(legal, key=cover_value)
        if d == rules.TAKE_BACK_TARGET:
            return max(legal, key=lambda t: (-v.stack_size[t] - 0.5 * len(v.live_removers(t)), -t))
        if d == rules.DONATE_CARD:
            return max(legal, key=lambda c: (self._keep_value(v, c), -c))
        if d == rules.DONATE_TARGET:
            # the seat (k places after me) holding the fewest cards; the nearest on a tie
            def held(a):
                k = a - rules.SEAT_ACTION + 1
                return v.hand_sizes[k] + len(v.domains[k])

            return min(legal, key=lambda a: (held(a), a))
        if d == rules.DRAW:
            return rules.DRAW_YES if rules.DRAW_YES in legal else legal[0]
        if d == rules.PEEK:
            return rules.PEEK_YES if rules.PEEK_YES in legal else legal[0]
        return legal[0]
