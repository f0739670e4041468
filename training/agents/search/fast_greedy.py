"""Greedy's one-turn look-ahead, compiled with numba (:func:`greedy_best_turn`): every whole
turn of the compiled search's turn enumeration (:mod:`.fast`), scored as
:meth:`.greedy.TheBrainGreedy._value` scores a table, with the same float operations and the
same tie-break."""

from __future__ import annotations

import numpy as np
from numba import njit

from .fast import FULL, SEAT_ACTION, SHIFT, _low_index, _popcount, _turns, turn_rows

# the weights of greedy.TheBrainGreedy, in this order (an array: a subclass may tune them)
W_LOSS, W_PRESSURE, W_PRESSURE_EXP, W_DEAD_TOP, W_HALF_DEAD_TOP, W_HELD, W_REMOVE_BASE, \
    W_REMOVE_PER_TOP, W_COVER_HELD, W_TAKE_BACK_HELD, W_PLUS_HELD = range(11)


@njit(cache=True)
def _greedy_value(own, disp, k, limit, gone_mask, w, sym, match, removers):
    """:meth:`.greedy.TheBrainGreedy._value`, with the same float operations."""
    if k >= limit:
        return w[W_LOSS] - k
    value = -w[W_PRESSURE] / (limit - k) ** w[W_PRESSURE_EXP]
    for i in range(k):
        gone_mask |= disp[i] & FULL
    gone = gone_mask & ~own
    top_mask = np.int64(0)
    for i in range(k):
        t = disp[i] >> SHIFT
        top_mask |= np.int64(1) << t
        live = _popcount(removers[t] & ~gone)
        if live == 0:
            value -= w[W_DEAD_TOP]
        elif live == 1:
            value -= w[W_HALF_DEAD_TOP]
    x = own
    while x:
        low = x & -x
        x ^= low
        c = _low_index(low)
        s = sym[c]
        value -= w[W_HELD]
        if s >= 4:
            value += w[W_REMOVE_BASE] + w[W_REMOVE_PER_TOP] * _popcount(match[c] & top_mask)
        elif s == 1:
            value += w[W_COVER_HELD]
        elif s == 2:
            value += w[W_TAKE_BACK_HELD]
        else:
            value += w[W_PLUS_HELD]
    return value


@njit(cache=True)
def greedy_best_turn(own, n, disp, limit, gone_mask, target, first, w, sym, match, removers, tb_mask, out):
    """:meth:`.greedy.TheBrainGreedy._best_turn`: the best whole turn from (own holdings,
    display) by the greedy's value, ties to the smaller actions as ``max`` over ``(value,
    tuple(-a for a in actions))`` picks them; its actions go to ``out`` (-1 past the last).
    Returns False when there is no turn."""
    k = disp.size
    hold = np.zeros(n, np.int64)
    hold[0] = own
    most = turn_rows(hold, 0, n, k)
    ch_hold = np.empty((most, n), np.int64)
    ch_disp = np.empty((most, k + 2), np.int64)
    ch_k = np.empty(most, np.int64)
    ch_act = np.empty((most, 3), np.int64)
    m = _turns(0, hold, n, disp, k, ch_hold, ch_disp, ch_k, sym, match, tb_mask, first, -1, -1, ch_act, True)
    found = False
    best = 0.0
    for c in range(m):
        a0 = ch_act[c, 0]
        if sym[a0] == 0 and ch_act[c, 2] >= 0 and ch_act[c, 2] != SEAT_ACTION + target - 1:
            continue  # donations go to the target seat only
        kk = ch_k[c]
        played = np.int64(0)
        for i in range(k):  # the stacks the turn took off the display
            kept = False
            for j in range(kk):
                if ch_disp[c, j] == disp[i]:
                    kept = True
                    break
            if not kept:
                played |= disp[i]
        v = _greedy_value(ch_hold[c, 0], ch_disp[c, :kk], kk, limit, gone_mask | (played & FULL), w, sym, match,
                          removers)
        better = not found or v > best
        if found and v == best:  # the larger tuple of negated actions (a prefix is smaller)
            for i in range(3):
                x, y = ch_act[c, i], out[i]
                if x < 0 or y < 0:
                    better = x >= 0 and y < 0
                    break
                if x != y:
                    better = x < y
                    break
        if better:
            found = True
            best = v
            out[0] = ch_act[c, 0]
            out[1] = ch_act[c, 1]
            out[2] = ch_act[c, 2]
    return found
