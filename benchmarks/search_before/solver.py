"""The Brain: an exact perfect-information solver (and the bitboard tables greedy shares).

**Solver** (:class:`Solver`, :func:`solve`). With every card known (every hand and the deck
order; chance is only the draw order, fixed once the deck order is known) The Brain is a
one-player puzzle: can the team play every card without the display ever reaching the
limit? The solver answers it exactly by depth-first search over the team's choices, on a
compact copy of ``envs/the_brain/rules.py``'s state taken at turn boundaries:

* a seat's holdings (hand and domain together: with everything known the difference does
  not matter) are one 36-bit int per seat;
* a display stack is one int, ``top << 36 | cards``; the display is the sorted tuple of its
  stacks (between turns their order changes nothing: cover and take back choose among all
  stacks, a remove card takes every matching one);
* the deck is the root's deck; a node only records how many cards are left in it.

A node is a turn start ``(seat, holdings, display, cards left)``; its children are every
distinct way the seat can play its turn (the card, then the cover / take back target, the
donated card and seat, or the extra card), each followed by the draw (a choice with
``draw_rule="optional"``). Loss is checked before win (R-B6). Proven losses (and proven wins)
go to a transposition table; a node is also a proven loss when a sound lower bound on the
display at the end of the game (:meth:`Solver.display_bound`) reaches the limit. An
optional node budget turns an over-long search into ``UNKNOWN`` instead of an answer.
Decisions inside a turn (a cover target asked for after the play, a pending draw) are
searched through the rules engine itself until the next turn boundary, so any state the
env can be in can be solved.
"""

from __future__ import annotations

from braincards.envs.the_brain import rules
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

WIN, LOSS, UNKNOWN = 1, -1, 0
RESULT_NAMES = {WIN: "win", LOSS: "loss", UNKNOWN: "unknown"}

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


# ------------------------------------------------------------------------ one turn
# One helper per card symbol whose play has several outcomes (the single-outcome plays stay
# inline in turns()): each appends the turns that start with playing card ``c`` (``low`` its
# bit, ``rest`` the seat's holdings without it, ``new`` the stack it makes on its own).
def _cover_turns(append, seat: int, hold: tuple, disp: tuple, c: int, low: int, rest: int) -> None:
    """A cover card onto each stack of the (non-empty) display."""
    hl = list(hold)
    hl[seat] = rest
    ht = tuple(hl)
    for i, s in enumerate(disp):
        nd = list(disp)
        nd[i] = (c << SHIFT) | (s & FULL) | low
        nd.sort()
        append(((c, s >> SHIFT), ht, tuple(nd)))


def _take_back_turns(append, seat: int, hold: tuple, disp: tuple, c: int, rest: int,
                     new: int) -> None:
    """A take back card taking each stack without a take back card back into the holdings."""
    for i, s in enumerate(disp):
        if s & TB_MASK:
            continue
        nd = list(disp[:i] + disp[i + 1 :])
        nd.append(new)
        nd.sort()
        hl = list(hold)
        hl[seat] = rest | (s & FULL)
        append(((c, s >> SHIFT), tuple(hl), tuple(nd)))


def _extra_card_turns(append, seat: int, hold: tuple, disp: tuple, c: int, rest: int,
                      new: int) -> None:
    """An extra_card card followed by each other held card (as a new stack)."""
    y = rest
    while y:
        elow = y & -y
        y ^= elow
        e = elow.bit_length() - 1
        nd = list(disp)
        nd.append(new)
        nd.append((e << SHIFT) | elow)  # its action is ignored (R-B5)
        nd.sort()
        hl = list(hold)
        hl[seat] = rest ^ elow
        append(((c, e), tuple(hl), tuple(nd)))


def _donate_turns(append, seat: int, hold: tuple, disp: tuple, c: int, rest: int, new: int,
                  n: int) -> None:
    """A donate card followed by each other held card given to each other seat."""
    nd = list(disp)
    nd.append(new)
    nd.sort()
    nt = tuple(nd)
    y = rest
    while y:
        dlow = y & -y
        y ^= dlow
        d = dlow.bit_length() - 1
        for k in range(1, n):
            hl = list(hold)
            hl[seat] = rest ^ dlow
            hl[(seat + k) % n] |= dlow
            append(((c, d, rules.SEAT_ACTION + k - 1), tuple(hl), nt))


def turns(seat: int, hold: tuple, disp: tuple, n: int) -> list[tuple]:
    """Every way ``seat`` can play its turn: ``(actions, holdings, display)`` after the
    action (before the loss / win check and the draw). ``actions`` are the rules actions of
    the turn in order (play, then the cover / take back target, the donated card and target
    seat action, or the extra card). Mirrors ``rules.apply_action`` / ``rules._resolve``."""
    h = hold[seat]
    out = []
    append = out.append
    x = h
    while x:
        low = x & -x
        x ^= low
        c = low.bit_length() - 1
        rest = h ^ low
        new = (c << SHIFT) | low
        sym = SYM[c]
        if sym >= REMOVE_OBJECT:  # every stack whose top matches goes (the played card too)
            m = MATCH[c]
            nd = [s for s in disp if not (m >> (s >> SHIFT)) & 1]
            if not (m >> c) & 1:
                nd.append(new)
            nd.sort()
            hl = list(hold)
            hl[seat] = rest
            append(((c,), tuple(hl), tuple(nd)))
        elif sym == COVER and disp:
            _cover_turns(append, seat, hold, disp, c, low, rest)
        elif sym == TAKE_BACK and any(not s & TB_MASK for s in disp):
            _take_back_turns(append, seat, hold, disp, c, rest, new)
        elif sym == EXTRA_CARD and rest:
            _extra_card_turns(append, seat, hold, disp, c, rest, new)
        elif sym == DONATE and rest:
            _donate_turns(append, seat, hold, disp, c, rest, new, n)
        else:  # a plain new stack: the action has nothing to act on
            nd = list(disp)
            nd.append(new)
            nd.sort()
            hl = list(hold)
            hl[seat] = rest
            append(((c,), tuple(hl), tuple(nd)))
    return out


class _Exhausted(Exception):
    """The node budget ran out."""


# ------------------------------------------------------------------------ solver
class Solver:
    """Exact search over one deal (every hand and the deck order known).

    ``deck`` is the draw order of the root state (``state.deck``); every state solved with
    this solver must have a suffix of it as its deck (states reached from the root do).
    ``nodes`` caps the turn nodes expanded per :meth:`solve` call (None: no cap).
    ``bound=False`` turns the display lower-bound pruning off (for tests and profiling).
    The transposition tables persist across calls, so solving several children of one
    state shares their common subtrees.
    """

    def __init__(self, num_seats: int, limit: int, deck, draw_optional: bool = False,
                 nodes: int | None = None, bound: bool = True):
        self.n = int(num_seats)
        self.limit = int(limit)
        self.deck = tuple(deck)
        self.optional = bool(draw_optional)
        self.budget = nodes
        self.bound = bound
        self.lost: set = set()
        self.won: set = set()
        self.nodes = 0  # turn nodes expanded in the current solve() call
        self.total_nodes = 0
        # suffix_mask[r]: the last r cards of the deck, as a mask
        sm = [0]
        for c in reversed(self.deck):
            sm.append(sm[-1] | BIT[c])
        self.suffix_mask = tuple(sm)
        self.pressure = tuple(9.0 / (self.limit - k) ** 0.45 if k < self.limit else 1e9
                              for k in range(NUM_CARDS + 2))

    def _score(self, hold: tuple, disp: tuple, rem: int) -> float:
        """Move ordering: how promising the table after a turn looks (higher first)."""
        held = 0
        for h in hold:
            held |= h
        alive = held | self.suffix_mask[rem]
        bv = _BYTE_VALUE
        v = (bv[0][held & 255] + bv[1][held >> 8 & 255] + bv[2][held >> 16 & 255]
             + bv[3][held >> 24 & 255] + bv[4][held >> 32] - self.pressure[len(disp)])
        for s in disp:
            t = s >> SHIFT
            rs = REMOVERS_OF[t]
            v -= _DEAD[(rs & alive).bit_count()] - 0.12 * (rs & held).bit_count()
        return v

    @classmethod
    def for_state(cls, state: rules.State, nodes: int | None = None, bound: bool = True) -> Solver:
        return cls(state.num_seats, state.limit, state.deck, state.draw_optional, nodes, bound)

    # -------------------------------------------------------------- bound
    def display_bound(self, hold: tuple, disp: tuple, rem: int) -> int:
        """A lower bound on the display's stack count at the end of any won game from here.

        Every card still held or in the deck must be played at least once. Playing a donate
        or extra_card card (even as an extra card) always adds one stack; cover and take back
        add 0 or 1; a remove card clearing k stacks adds 1 - k, where k is at most the
        number of cards of its target object / color still in play, and at most limit - 1
        (the stacks before it was played). A remove card can be played again only after a
        take back returns it. Every take_back card still in play takes back at most once (once
        played it stays in a stack that can never be taken back), and a stack holds one card
        besides the covers put on it (only a cover goes onto a stack), so each take back
        returns at most one remove card. If the bound reaches the limit no win exists."""
        fut = self.suffix_mask[rem]
        for h in hold:
            fut |= h
        low = len(disp) + (fut & PLUS_MASK).bit_count()
        alive = fut
        for s in disp:
            alive |= s & FULL
        cap = self.limit - 2
        red_future = red_max = 0
        for r in cards_of(alive & REMOVE_MASK):
            k = min((MATCH[r] & alive).bit_count() - 1, cap)
            if k > 0:
                red_max = max(red_max, k)
                if fut >> r & 1:
                    red_future += k
        return low - red_future - (fut & TB_MASK).bit_count() * red_max

    def _may_prune(self, hold: tuple, disp: tuple, rem: int) -> bool:
        """The bound is at most the display plus the donate / extra_card cards in play:
        only when that reaches the limit is the bound worth computing."""
        fut = self.suffix_mask[rem]
        for h in hold:
            fut |= h
        return len(disp) + (fut & PLUS_MASK).bit_count() >= self.limit

    # -------------------------------------------------------------- search
    def _next(self, seat: int, hold: tuple, disp: tuple, rem: int):
        """The turn starts after ``seat``'s action: (draw action or None, holdings, rem)."""
        if rem == 0:
            return ((None, hold, rem),)
        card = self.deck[len(self.deck) - rem]
        hl = list(hold)
        hl[seat] |= BIT[card]
        drawn = (rules.DRAW_YES, tuple(hl), rem - 1)
        if self.optional and any(hold):  # R-B7: a choice unless no seat holds a card
            return (drawn, (rules.DRAW_NO, hold, rem))
        return ((None, tuple(hl), rem - 1),)

    def _win(self, seat: int, hold: tuple, disp: tuple, rem: int) -> bool:
        """Can the team win from the start of ``seat``'s turn?"""
        key = (seat, hold, disp, rem)
        if key in self.lost:
            return False
        if key in self.won:
            return True
        n = self.n
        nxt = seat + 1 if seat + 1 < n else 0
        if not hold[seat]:  # R-B4: a seat holding nothing only draws
            if rem == 0:
                if not any(hold):
                    return True
                return self._win(nxt, hold, disp, rem)
            result = False
            for _, h2, r2 in self._next(seat, hold, disp, rem):
                if self._win(nxt, h2, disp, r2):
                    result = True
                    break
        else:
            self.nodes += 1
            if self.budget is not None and self.nodes > self.budget:
                raise _Exhausted
            if self.bound and self._may_prune(hold, disp, rem) and self.display_bound(hold, disp, rem) >= self.limit:
                self.lost.add(key)
                return False
            limit = self.limit
            score = self._score
            children = [t for t in turns(seat, hold, disp, n) if len(t[2]) < limit]  # R-B6
            children.sort(key=lambda t: -score(t[1], t[2], rem))
            result = False
            for _, h2, d2 in children:
                if rem == 0 and not any(h2):
                    result = True
                    break
                for _, h3, r3 in self._next(seat, h2, d2, rem):
                    if self._win(nxt, h3, d2, r3):
                        result = True
                        break
                if result:
                    break
        (self.won if result else self.lost).add(key)
        return result

    # -------------------------------------------------------------- rules-level
    def boundary_key(self, state: rules.State) -> tuple:
        hold = tuple(mask_of(state.hands[s]) | mask_of(state.domains[s]) for s in range(state.num_seats))
        disp = tuple(sorted(stack_int(st) for st in state.display))
        return state.seat, hold, disp, len(state.deck)

    def _value(self, state: rules.State) -> bool:
        phase = state.phase
        if phase == rules.OVER:
            return state.outcome == rules.WIN
        if phase == rules.PLAY or phase == rules.PEEK:  # a turn boundary (a peek changes nothing)
            return self._win(*self.boundary_key(state))
        children = []
        for a in rules.legal_actions(state):  # inside a turn, or a pending draw
            child = state.copy()
            rules.apply_action(child, a)
            children.append(child)
        # a child already proven won first: searching an earlier one could spend the budget
        return any(self._known(c) for c in children) or any(self._value(c) for c in children)

    def _known(self, state: rules.State) -> bool:
        """Is ``state`` already proven won (a win, or a proven-won turn start)?"""
        phase = state.phase
        if phase == rules.OVER:
            return state.outcome == rules.WIN
        if phase == rules.PLAY or phase == rules.PEEK:
            return self.boundary_key(state) in self.won
        for a in rules.legal_actions(state):
            child = state.copy()
            rules.apply_action(child, a)
            if self._known(child):
                return True
        return False

    def solve(self, state: rules.State) -> int:
        """WIN, LOSS or UNKNOWN (node budget exhausted) for ``state`` (any decision)."""
        if len(state.deck) > len(self.deck) or tuple(state.deck) != self.deck[len(self.deck) - len(state.deck):]:
            raise ValueError("the state's deck is not a suffix of the solver's deck")
        self.nodes = 0
        try:
            won = self._value(state)
        except _Exhausted:
            return UNKNOWN
        finally:
            self.total_nodes += self.nodes
        return WIN if won else LOSS

    def winning_line(self, state: rules.State) -> list[int] | None:
        """The rules actions of one winning line from ``state`` to the end of the game, or
        None when the state is lost (or the budget runs out)."""
        if self.solve(state) != WIN:
            return None
        s = state.copy()
        line = []
        while s.phase != rules.OVER:
            children = []
            for a in rules.legal_actions(s):
                child = s.copy()
                rules.apply_action(child, a)
                children.append((a, child))
            # the proof of s's win passes through a child already proven won
            known = [(a, c) for a, c in children if self._known(c)]
            for a, child in known or children:
                if known or self.solve(child) == WIN:
                    line.append(a)
                    s = child
                    break
            else:  # pragma: no cover - a proven win always has a winning action
                raise RuntimeError("solver inconsistency: no winning action from a won state")
        return line


def solve(state: rules.State, nodes: int | None = None, bound: bool = True) -> int:
    """WIN / LOSS / UNKNOWN for ``state`` with every card known (see :class:`Solver`)."""
    return Solver.for_state(state, nodes, bound).solve(state)
