"""The solver's hot loop, compiled with numba: the turn-boundary search of :mod:`.solver`.

The search is :meth:`.solver.Solver._win` as it was written in Python, move for move: the
same node (``seat``, one 36-bit holdings int per seat, the sorted display stacks
``top << 36 | cards``, cards left in the deck), the same children in the same order (the
same move-ordering score, computed with the same floating-point operations, then a stable
sort), the same display lower bound and the same node count. So with a table large enough
to keep every proven node it expands exactly the nodes the Python search expanded, and
answers exactly the same (a node budget included).

What is new is the transposition table: a fixed-size open-addressing table of
``2 ** table_bits`` slots (two 64-bit hashes of the node and a win / loss byte, 17 bytes a
slot) instead of two unbounded Python sets. When the few slots a node may use are taken,
the new entry overwrites the first of them, so memory stays bounded whatever the search
does; a node that was overwritten is searched again when it comes back (only proven
results are ever stored, so this costs time, never correctness). Two independent 64-bit
hashes (128 bits) identify a node: two different nodes of one search share both with a
probability of about ``entries ** 2 / 2 ** 129``.

A restart (``params[4]`` > 0, see :class:`.solver.Solver`) adds a deterministic noise of up
to ``params[5] / 1000`` to the move-ordering score; the plain order is ``params[4] == 0``.
:mod:`.fast_greedy` runs greedy's one-turn look-ahead over the same turn enumeration, and
:mod:`.fast_win` the search itself (with its own stack of frames, so that numba caches it).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from braincards.envs.the_brain.cards import NUM_CARDS

from .fast_table import _LOST, C_BUDGET, C_NODES, _fmix, _store

# results of the compiled search
LOSS_CODE, WIN_CODE, OUT_OF_BUDGET = 0, 1, 2


SHIFT = NUM_CARDS
SEAT_ACTION = NUM_CARDS  # rules.SEAT_ACTION: donate to the seat 1 place on
FULL = (1 << NUM_CARDS) - 1


def tables(sym, match, removers, byte_value, tb_mask, remove_mask, plus_mask, dead):
    """The static card tables the compiled search reads, as one tuple of arrays."""
    return (np.asarray(sym, np.int64), np.asarray(match, np.int64), np.asarray(removers, np.int64),
            np.asarray(byte_value, np.float64), np.array([tb_mask, remove_mask, plus_mask], np.int64),
            np.asarray(dead, np.float64))


@njit(cache=True, inline="always")
def _popcount(x):
    x = np.uint64(x)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def _low_index(low):
    """The index of the single set bit of ``low``."""
    return _popcount(low - 1)


@njit(cache=True)
def _insert_sorted(out, k, value):
    """``out[:k]`` is sorted: insert ``value`` keeping it sorted (``out`` has room)."""
    i = k
    while i > 0 and out[i - 1] > value:
        out[i] = out[i - 1]
        i -= 1
    out[i] = value


@njit(cache=True)
def _score(ch_hold, ch_disp, ch_k, c, n, rem, suffix, pressure, byte_value, removers, dead):
    """Move ordering: :meth:`.solver.Solver._score`, with the same float operations."""
    held = np.int64(0)
    for i in range(n):
        held |= ch_hold[c, i]
    alive = held | suffix[rem]
    k = ch_k[c]
    v = (byte_value[0, held & 255] + byte_value[1, held >> 8 & 255] + byte_value[2, held >> 16 & 255]
         + byte_value[3, held >> 24 & 255] + byte_value[4, held >> 32] - pressure[k])
    for i in range(k):
        t = ch_disp[c, i] >> SHIFT
        rs = removers[t]
        v -= dead[_popcount(rs & alive)] - 0.12 * _popcount(rs & held)
    return v


@njit(cache=True)
def display_bound(hold, n, disp, k, rem, limit, suffix, match, masks):
    """:meth:`.solver.Solver.display_bound` (see there)."""
    fut = suffix[rem]
    for i in range(n):
        fut |= hold[i]
    low = k + _popcount(fut & masks[2])
    alive = fut
    for i in range(k):
        alive |= disp[i] & FULL
    cap = limit - 2
    red_future = 0
    red_max = 0
    x = alive & masks[1]
    while x:
        lowbit = x & -x
        x ^= lowbit
        r = _low_index(lowbit)
        kk = min(_popcount(match[r] & alive) - 1, cap)
        if kk > 0:
            red_max = max(red_max, kk)
            if fut >> r & 1:
                red_future += kk
    return low - red_future - _popcount(fut & masks[0]) * red_max


@njit(cache=True, inline="always")
def _child(ch_hold, ch_k, m, hold, n, seat, own, kk):
    """Child ``m``: ``hold`` with ``seat`` holding ``own``, and a display of ``kk`` stacks."""
    ch_k[m] = kk
    ch_hold[m, :n] = hold[:n]
    ch_hold[m, seat] = own


@njit(cache=True, inline="always")
def _without(ch_disp, m, disp, k, skip):
    """Child ``m``'s display starts as ``disp`` less stack ``skip``, sorted; returns its size."""
    kk = 0
    for j in range(k):
        if j != skip:
            _insert_sorted(ch_disp[m], kk, disp[j])
            kk += 1
    return kk


@njit(cache=True, inline="always")
def _turn_remove(seat, hold, n, disp, k, ch_hold, ch_disp, ch_k, m, c, new, rest, mm, ch_act, record):
    """Play remove card ``c``: every stack whose top matches goes (the played card too)."""
    kk = 0
    for i in range(k):
        if not (mm >> (disp[i] >> SHIFT)) & 1:
            _insert_sorted(ch_disp[m], kk, disp[i])
            kk += 1
    if not (mm >> c) & 1:
        _insert_sorted(ch_disp[m], kk, new)
        kk += 1
    _child(ch_hold, ch_k, m, hold, n, seat, rest, kk)
    if record:
        _act(ch_act, m, c, -1, -1)
    return m + 1


@njit(cache=True, inline="always")
def _turns_cover(seat, hold, n, disp, k, ch_hold, ch_disp, ch_k, m, c, low, rest, second, ch_act, record):
    """Play cover card ``c`` on each stack (top ``second`` only, when >= 0)."""
    for i in range(k):
        st = disp[i]
        if second >= 0 and st >> SHIFT != second:
            continue
        kk = _without(ch_disp, m, disp, k, i)
        _insert_sorted(ch_disp[m], kk, (c << SHIFT) | (st & FULL) | low)
        _child(ch_hold, ch_k, m, hold, n, seat, rest, k)
        if record:
            _act(ch_act, m, c, st >> SHIFT, -1)
        m += 1
    return m


@njit(cache=True, inline="always")
def _turns_take_back(seat, hold, n, disp, k, ch_hold, ch_disp, ch_k, m, c, new, rest, second, tb_mask, ch_act,
                     record):
    """Play take-back card ``c`` on each takeable stack (top ``second`` only, when >= 0)."""
    for i in range(k):
        st = disp[i]
        if st & tb_mask or (second >= 0 and st >> SHIFT != second):
            continue
        kk = _without(ch_disp, m, disp, k, i)
        _insert_sorted(ch_disp[m], kk, new)
        _child(ch_hold, ch_k, m, hold, n, seat, rest | (st & FULL), k)
        if record:
            _act(ch_act, m, c, st >> SHIFT, -1)
        m += 1
    return m


@njit(cache=True, inline="always")
def _turns_extra(seat, hold, n, disp, k, ch_hold, ch_disp, ch_k, m, c, new, rest, second, ch_act, record):
    """Play extra card ``c``: each other held card (``second`` only, when >= 0) as a stack of its own."""
    y = rest
    while y:
        elow = y & -y
        y ^= elow
        e = _low_index(elow)
        if second >= 0 and e != second:
            continue
        for j in range(k):
            ch_disp[m, j] = disp[j]
        _insert_sorted(ch_disp[m], k, new)
        _insert_sorted(ch_disp[m], k + 1, (e << SHIFT) | elow)
        _child(ch_hold, ch_k, m, hold, n, seat, rest ^ elow, k + 2)
        if record:
            _act(ch_act, m, c, e, -1)
        m += 1
    return m


@njit(cache=True, inline="always")
def _turns_donate(seat, hold, n, disp, k, ch_hold, ch_disp, ch_k, m, c, new, rest, second, third, ch_act,
                  record):
    """Play donate card ``c``: each other held card to each other seat (``second``, ``third``
    only, when >= 0)."""
    y = rest
    while y:
        dlow = y & -y
        y ^= dlow
        if second >= 0 and _low_index(dlow) != second:
            continue
        for kseat in range(1, n):
            if third >= 0 and third != SEAT_ACTION + kseat - 1:
                continue
            for j in range(k):
                ch_disp[m, j] = disp[j]
            _insert_sorted(ch_disp[m], k, new)
            _child(ch_hold, ch_k, m, hold, n, seat, rest ^ dlow, k + 1)
            ch_hold[m, (seat + kseat) % n] |= dlow
            if record:
                _act(ch_act, m, c, _low_index(dlow), SEAT_ACTION + kseat - 1)
            m += 1
    return m


@njit(cache=True, inline="always")
def _turn_new_stack(seat, hold, n, disp, k, ch_hold, ch_disp, ch_k, m, c, new, rest, ch_act, record):
    """Play card ``c`` as a plain new stack."""
    for j in range(k):
        ch_disp[m, j] = disp[j]
    _insert_sorted(ch_disp[m], k, new)
    _child(ch_hold, ch_k, m, hold, n, seat, rest, k + 1)
    if record:
        _act(ch_act, m, c, -1, -1)
    return m + 1


@njit(cache=True)
def _turns(seat, hold, n, disp, k, ch_hold, ch_disp, ch_k, sym, match, tb_mask, first, second, third, ch_act,
           record):
    """Every way ``seat`` can play its turn, in :func:`.solver.turns`'s order, into the
    child arrays; returns how many. Only the turns whose rules actions start with
    ``first``, ``second``, ``third`` (each when >= 0) are listed. With ``record`` the
    turn's rules actions go to ``ch_act`` (-1 past the last one)."""
    h = hold[seat]
    m = 0
    x = h
    while x:
        low = x & -x
        x ^= low
        c = _low_index(low)
        if first >= 0 and c != first:
            continue
        rest = h ^ low
        new = (c << SHIFT) | low
        s = sym[c]
        if s >= 4:  # remove
            if second < 0:
                m = _turn_remove(seat, hold, n, disp, k, ch_hold, ch_disp, ch_k, m, c, new, rest, match[c],
                                 ch_act, record)
        elif s == 1 and k > 0:  # cover each stack
            m = _turns_cover(seat, hold, n, disp, k, ch_hold, ch_disp, ch_k, m, c, low, rest, second, ch_act,
                             record)
        elif s == 2 and _has_takeable(disp, k, tb_mask):  # take back each takeable stack
            m = _turns_take_back(seat, hold, n, disp, k, ch_hold, ch_disp, ch_k, m, c, new, rest, second, tb_mask,
                                 ch_act, record)
        elif s == 3 and rest:  # extra card
            m = _turns_extra(seat, hold, n, disp, k, ch_hold, ch_disp, ch_k, m, c, new, rest, second, ch_act,
                             record)
        elif s == 0 and rest:  # donate
            m = _turns_donate(seat, hold, n, disp, k, ch_hold, ch_disp, ch_k, m, c, new, rest, second, third,
                              ch_act, record)
        elif second < 0:  # a plain new stack
            m = _turn_new_stack(seat, hold, n, disp, k, ch_hold, ch_disp, ch_k, m, c, new, rest, ch_act, record)
    return m


@njit(cache=True, inline="always")
def _act(ch_act, m, a, b, c):
    """Record child ``m``'s rules actions ``a, b, c``."""
    ch_act[m, 0] = a
    ch_act[m, 1] = b
    ch_act[m, 2] = c


@njit(cache=True, inline="always")
def _has_takeable(disp, k, tb_mask):
    """Whether any stack of the display can be taken back."""
    for i in range(k):  # noqa: SIM110 - a plain loop compiles to the tightest code
        if not disp[i] & tb_mask:
            return True
    return False


@njit(cache=True)
def _any(hold, n):
    for i in range(n):  # noqa: SIM110 - a plain loop compiles to the tightest code
        if hold[i]:
            return True
    return False


@njit(cache=True, inline="always")
def _drawn(hold, seat, deck, rem):
    """A copy of ``hold`` with ``seat`` given the next card of the deck."""
    drawn = hold.copy()
    drawn[seat] |= np.int64(1) << deck[deck.size - rem]
    return drawn


@njit(cache=True)
def _cut(hold, n, disp, k, rem, first, params, suffix, masks, match, h1, h2, tk1, tk2, tv, cnt):
    """Count the node (when ``first`` < 0) and try the display bound: OUT_OF_BUDGET when the
    node budget is spent, LOSS_CODE (stored) when the bound proves a loss, else -1."""
    if first < 0:
        cnt[C_NODES] += 1
        if cnt[C_BUDGET] >= 0 and cnt[C_NODES] > cnt[C_BUDGET]:
            return OUT_OF_BUDGET
    limit = params[1]
    if params[3] and first < 0:
        fut = suffix[rem]
        for i in range(n):
            fut |= hold[i]
        if k + _popcount(fut & masks[2]) >= limit and \
                display_bound(hold, n, disp, k, rem, limit, suffix, match, masks) >= limit:
            _store(tk1, tk2, tv, h1, h2, _LOST, cnt)
            return LOSS_CODE
    return -1


@njit(cache=True, inline="always")
def turn_rows(hold, seat, n, k):
    """At most how many turns ``seat`` can play (the rows :func:`_children` may write)."""
    hc = _popcount(hold[seat])
    return hc * max(k, (hc - 1) * (n - 1), 1) + 1


@njit(cache=True)
def _children(seat, hold, n, disp, k, rem, first, second, third, params, suffix, pressure, tabs, h1,
              ch_hold, ch_disp, ch_k, order, keys):
    """The turns of ``seat`` (see :func:`_turns`), written into rows 0.. of ``ch_hold``,
    ``ch_disp`` and ``ch_k`` (each with :func:`turn_rows` rows at least), and the order to try
    them in, into ``order``: those that do not lose at once (R-B6), best move-ordering score
    first (a stable sort, as Python's ``list.sort``; ``keys`` is its scratch). Returns how many
    turns there are and how many are in the order."""
    limit = params[1]
    sym, match, removers, byte_value, masks, dead = tabs
    m = _turns(seat, hold, n, disp, k, ch_hold, ch_disp, ch_k, sym, match, masks[0], first, second, third, ch_hold,
               False)
    kept = 0
    for c in range(m):
        if ch_k[c] < limit:  # R-B6: loss before win
            # stable sort on -score (as Python's list.sort)
            key = -_score(ch_hold, ch_disp, ch_k, c, n, rem, suffix, pressure, byte_value, removers, dead)
            if params[4]:  # a restart: the order shaken by a deterministic noise
                z = _fmix(h1 ^ np.uint64(params[4] * 1000003 + c))
                key += params[5] * 1e-3 * np.float64(z >> np.uint64(11)) / 9007199254740992.0
            i = kept
            while i > 0 and keys[i - 1] > key:
                keys[i] = keys[i - 1]
                order[i] = order[i - 1]
                i -= 1
            keys[i] = key
            order[i] = c
            kept += 1
    return m, kept


