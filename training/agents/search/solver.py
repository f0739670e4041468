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

The turn-start search runs compiled (numba, :mod:`.fast`), node for node as the Python
search it replaced, with a bounded transposition table (``table_bits``: at most
``2 ** table_bits`` entries of 17 bytes; an entry that does not fit overwrites another, which
costs a re-search, never a wrong answer). With ``restarts`` (the default) a search that has
not finished after 1,000 nodes starts again in an order shaken by a little noise, with a
budget twice as large each time, keeping everything proven so far: hard wins, which the
plain order reaches only after refuting a huge losing subtree, are found in a few thousand
nodes instead of hundreds of thousands.
Decisions inside a turn (a cover target asked for after the play, a pending draw) are
searched through the rules engine itself until the next turn boundary, so any state the
env can be in can be solved.
"""

from __future__ import annotations

import numpy as np

from braincards.envs import the_brain
from braincards.envs.the_brain import rules
from braincards.envs.the_brain.cards import (
    COVER,
    DONATE,
    EXTRA_CARD,
    NUM_CARDS,
    REMOVE_OBJECT,
    TAKE_BACK,
)

from . import fast, fast_table, fast_win
from .masks import (
    _BYTE_VALUE,
    _DEAD,
    BIT,
    FULL,
    MATCH,
    PLUS_MASK,
    REMOVE_MASK,
    REMOVERS_OF,
    SHIFT,
    SYM,
    TB_MASK,
    cards_of,
    mask_of,
    stack_int,
)

WIN, LOSS, UNKNOWN = 1, -1, 0
RESULT_NAMES = {WIN: "win", LOSS: "loss", UNKNOWN: "unknown"}

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
TABLE_BITS_MAX = 24  # 2**24 slots of 17 bytes: about 285 MB, the largest table by default
TABLE_BITS_MIN = 10
TABLE_BITS_START = 14  # the table starts at 2**14 slots and doubles between restarts
NOISE = 1000  # restarts shake the move-ordering score by up to NOISE / 1000
FIRST_TRY = 1000  # nodes of the first try (plain order); each restart doubles it
MAX_RESTARTS = 12


def table_bits_for(nodes: int | None) -> int:
    """The default table size (log2 of its slots) for a node budget: about 8 slots per node
    the budget lets the search expand (each expanded node stores one entry, a draw between
    two turns another, and the table is kept under half full), at least
    ``2 ** TABLE_BITS_MIN`` and at most ``2 ** TABLE_BITS_MAX`` slots (about 285 MB)."""
    if nodes is None:
        return TABLE_BITS_MAX
    return max(TABLE_BITS_MIN, min(TABLE_BITS_MAX, (8 * int(nodes)).bit_length()))


_TABLES = fast.tables(SYM, MATCH, REMOVERS_OF, _BYTE_VALUE, TB_MASK, REMOVE_MASK, PLUS_MASK, _DEAD)


class Solver:
    """Exact search over one deal (every hand and the deck order known).

    ``deck`` is the draw order of the root state (``state.deck``); every state solved with
    this solver must have a suffix of it as its deck (states reached from the root do).
    ``nodes`` caps the turn nodes expanded per :meth:`solve` call (None: no cap).
    ``bound=False`` turns the display lower-bound pruning off (for tests and profiling).
    ``table_bits``: the transposition table has ``2 ** table_bits`` slots of 17 bytes
    (default :func:`table_bits_for` the budget); it is bounded, and persists across calls,
    so solving several children of one state shares their common subtrees. The turn-start
    search runs compiled (:mod:`.fast`).
    """

    GAME = the_brain.SPEC.id  # the game it solves

    def __init__(self, num_seats: int, limit: int, deck, draw_optional: bool = False,
                 nodes: int | None = None, bound: bool = True, table_bits: int | None = None,
                 restarts: bool = True):
        self.n = int(num_seats)
        self.limit = int(limit)
        self.deck = tuple(deck)
        self.optional = bool(draw_optional)
        self.budget = nodes
        self.bound = bound
        self.nodes = 0  # turn nodes expanded in the current solve() call
        self.total_nodes = 0
        # suffix_mask[r]: the last r cards of the deck, as a mask
        sm = [0]
        for c in reversed(self.deck):
            sm.append(sm[-1] | BIT[c])
        self.suffix_mask = tuple(sm)
        self.pressure = tuple(9.0 / (self.limit - k) ** 0.45 if k < self.limit else 1e9
                              for k in range(NUM_CARDS + 2))
        self.restarts = bool(restarts)
        self.table_bits = table_bits_for(nodes) if table_bits is None else int(table_bits)
        if not 1 <= self.table_bits <= 34:
            raise ValueError(f"table_bits={table_bits} must be 1..34")
        # with restarts the table grows between tries; a single try gets it whole at once
        self._table = fast_table.new_table(min(self.table_bits, TABLE_BITS_START) if self.restarts else self.table_bits)
        # seats, limit, optional draw, bound, restart seed (0: the plain order), noise x 1000
        self._params = np.array([self.n, self.limit, int(self.optional), int(bool(bound)), 0, NOISE], np.int64)
        self._deck = np.array(self.deck, np.int64)
        self._suffix = np.array(self.suffix_mask, np.int64)
        self._pressure = np.array(self.pressure, np.float64)
        # nodes expanded, budget (-1: none), table entries stored, entries overwritten
        self._count = np.array([0, -1, 0, 0], np.int64)

    @property
    def table_entries(self) -> int:
        """Entries stored in the transposition table (at most its slots)."""
        return int(self._count[fast_table.C_STORED])

    @property
    def table_overwrites(self) -> int:
        """Stores that overwrote another entry (the table was full around that slot)."""
        return int(self._count[fast_table.C_OVERWRITTEN])

    @property
    def table_bytes(self) -> int:
        return sum(a.nbytes for a in self._table)  # its current size (it grows to table_bits)

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
    def for_state(cls, state: rules.State, nodes: int | None = None, bound: bool = True,
                  table_bits: int | None = None, restarts: bool = True) -> Solver:
        return cls(state.num_seats, state.limit, state.deck, state.draw_optional, nodes, bound, table_bits, restarts)

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

    # -------------------------------------------------------------- search
    def _win(self, seat: int, hold: tuple, disp: tuple, rem: int, prefix: tuple = (-1, -1, -1)) -> bool:
        """Can the team win from the start of ``seat``'s turn? (compiled: :func:`.fast_win.win`;
        raises _Exhausted when the node budget runs out)

        With ``restarts`` the search first runs in the plain move order under a small
        budget, then restarts with the order shaken by a different noise under a budget
        twice as large each time (the last try without a cap of its own): every node proven
        won or lost on the way stays in the table, so a restart repeats little, and a win
        that the plain order would reach only after refuting a huge losing subtree is often
        found early."""
        c = self._count
        c[fast.C_NODES] = self.nodes
        total = -1 if self.budget is None else self.budget
        h = np.array(hold, np.int64)
        d = np.array(disp, np.int64)
        attempt, cap = 0, FIRST_TRY
        while True:
            tk1, tk2, tv = self._table  # (it may have grown since the last try)
            last = not self.restarts or attempt >= MAX_RESTARTS
            c[fast.C_BUDGET] = total if last else c[fast.C_NODES] + cap
            if total >= 0:
                c[fast.C_BUDGET] = min(c[fast.C_BUDGET], total)
            self._params[4] = attempt
            r = fast_win.win(seat, h, d, rem, *prefix, self._params, self._deck, self._suffix, self._pressure, _TABLES,
                         tk1, tk2, tv, c)
            self.nodes = int(c[fast.C_NODES])
            if r != fast.OUT_OF_BUDGET:
                return r == fast.WIN_CODE
            if last or 0 <= total <= self.nodes:
                raise _Exhausted
            self._grow()
            attempt += 1
            cap *= 2

    def _grow(self) -> None:
        """Double the table (up to ``2 ** table_bits`` slots) while it is over half full."""
        while self.table_entries * 2 > self._table[2].size and self._table[2].size < 1 << self.table_bits:
            bigger = fast_table.new_table(self._table[2].size.bit_length())
            fast_table.rehash(*self._table, *bigger, self._count)
            self._table = bigger

    def proven(self, seat: int, hold: tuple, disp: tuple, rem: int) -> int:
        """WIN / LOSS when the table holds that turn start as proven, else UNKNOWN."""
        tk1, tk2, tv = self._table
        return int(fast_table.lookup(seat, np.array(hold, np.int64), np.array(disp, np.int64), rem, tk1, tk2, tv))

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
            return self.proven(*self.boundary_key(state)) == WIN
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

    def solve_turn(self, seat: int, hold: tuple, disp: tuple, rem: int, actions) -> int:
        """WIN, LOSS or UNKNOWN for the turns of ``seat`` that start with the rules
        ``actions`` (1 to 3 of them: the card played, then the cover / take back target,
        the extra card or the donated card, then the donation's seat action), from the start
        of the turn (``hold``, ``disp``, ``rem`` as in :meth:`boundary_key`): the value of the
        decision those actions make inside the turn, without going through the rules
        engine. The node budget is this call's."""
        actions = tuple(int(a) for a in actions)
        if not 1 <= len(actions) <= 3 or not hold[seat] >> actions[0] & 1:
            raise ValueError(f"seat {seat} does not hold card {actions[:1]}, or {actions} is not a turn's start")
        self.nodes = 0
        try:
            won = self._win(seat, hold, disp, rem, actions + (-1,) * (3 - len(actions)))
        except _Exhausted:
            return UNKNOWN
        finally:
            self.total_nodes += self.nodes
        return WIN if won else LOSS

    def solve_play(self, seat: int, hold: tuple, disp: tuple, rem: int, card: int) -> int:
        """WIN, LOSS or UNKNOWN of ``rules.apply_action(state, card)`` at a play decision
        (:meth:`solve_turn` with the card alone)."""
        return self.solve_turn(seat, hold, disp, rem, (card,))

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
