"""The compiled search's proof of a win (see :mod:`.fast`), with its own stack of frames.

:func:`win` visits exactly the nodes, in exactly the order, of the depth-first search it
replaced (``win`` calling itself once per turn), and counts and stores them the same way;
its frames live in arrays instead of on the native stack. That is what lets numba cache it
on disk: numba cannot restore a self-recursive function from its cache (numba issues 6061
and 6713: the cached copy crashes when loaded), so the recursive version was compiled again
in every process (6-7 s of CPU before a first oracle or PIMC answer).

A frame is one node: the seat to move, what each seat holds, the display, the cards left
in the deck, and where it is in its work (its *phase*: :data:`_ENTER`, or one of the points
where the recursive version waited for a child's answer). A step of a frame returns what
happened: a child was pushed (:data:`_PUSHED`), the frame is done with its result to store
(:data:`_DONE`), or an answer >= 0 that goes back unstored (a proven node, the budget spent,
a bound, or the next seat's answer passed on).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .fast import LOSS_CODE, OUT_OF_BUDGET, WIN_CODE, _any, _children, _cut, _drawn, turn_rows
from .fast_table import _EMPTY, _LOST, _WON, _hash, _probe, _store

FIRST_DEPTH = 16  # frames allocated at first; doubled when the search goes deeper
FIRST_TURNS = 64  # rows of the turns' arena at first; doubled when the frames' turns outgrow it
# (small: PIMC calls the search many times for a few nodes each)

# a frame's phase: where it resumes
_ENTER, _AFTER_TAIL, _AFTER_DRAW, _AFTER_NO_DRAW, _AFTER_CHILD_DRAW, _AFTER_CHILD = range(6)
# what a step did, besides answering (an answer is >= 0)
_PUSHED, _DONE = -2, -3
# the frame arrays' places in the tuple of :func:`_frames`; BASE: the frame's first row in the
# turns' arena, where its turns go in the order they are tried (its children's rows above them)
# the turns go there in the order they are enumerated, with the order they are tried in; TOP:
# the row after them, where the frame's children's turns go
(SEAT, REM, K, PHASE, RESULT, OI, KEPT, BASE, TOP, H1, H2, HOLD, DISP) = range(13)


@njit(cache=True)
def _frames(n, depth, width):
    """Empty frames for ``depth`` nodes: per-depth scalars, then the node's cards (``width``:
    the most stacks a display can hold)."""
    ints = [np.empty(depth, np.int64) for _ in range(9)]
    return (ints[0], ints[1], ints[2], ints[3], ints[4], ints[5], ints[6], ints[7], ints[8],
            np.empty(depth, np.uint64), np.empty(depth, np.uint64),
            np.empty((depth, n), np.int64), np.empty((depth, width), np.int64))


@njit(cache=True)
def _grown(fr, n):
    """The frames with twice the depth, the frames so far copied in."""
    depth = fr[SEAT].size
    new = _frames(n, 2 * depth, fr[DISP].shape[1])
    new[SEAT][:depth], new[REM][:depth], new[K][:depth], new[PHASE][:depth] = fr[SEAT], fr[REM], fr[K], fr[PHASE]
    new[RESULT][:depth], new[OI][:depth], new[KEPT][:depth] = fr[RESULT], fr[OI], fr[KEPT]
    new[BASE][:depth], new[TOP][:depth], new[H1][:depth], new[H2][:depth] = fr[BASE], fr[TOP], fr[H1], fr[H2]
    new[HOLD][:depth], new[DISP][:depth] = fr[HOLD], fr[DISP]
    return new


@njit(cache=True)
def _arena(n, rows, width):
    """The turns' arena: each row a turn's result (holdings, display, its size), the order the
    turns are tried in, and the sort's scratch."""
    return (np.empty((rows, n), np.int64), np.empty((rows, width), np.int64), np.empty(rows, np.int64),
            np.empty(rows, np.int64), np.empty(rows, np.float64))


@njit(cache=True)
def _grown_arena(turns, need):
    """The arena with room for ``need`` rows (at least twice as many), the rows so far copied."""
    rows = turns[2].size
    new = _arena(turns[0].shape[1], max(2 * rows, need), turns[1].shape[1])
    new[0][:rows], new[1][:rows], new[2][:rows], new[3][:rows] = turns[0], turns[1], turns[2], turns[3]
    return new


@njit(cache=True, inline="always")
def _push(fr, d, seat, hold, disp, k, rem, base):
    """Start frame ``d``: a node to search, from its entry; its turns go from arena row ``base``."""
    fr[SEAT][d] = seat
    fr[REM][d] = rem
    fr[K][d] = k
    fr[HOLD][d, :] = hold
    fr[DISP][d, :k] = disp[:k]
    fr[PHASE][d] = _ENTER
    fr[BASE][d] = base
    return _PUSHED


@njit(cache=True, inline="always")
def _enter(fr, turns, d, top, prefix, n, params, deck, suffix, pressure, tabs, tk1, tk2, tv, cnt):
    """A node's entry: its stored answer, R-B4's draw for a seat holding nothing, or its
    turns (the budget and the display bound first). Returns the step and the arena."""
    s, r_, k = fr[SEAT][d], fr[REM][d], fr[K][d]
    h, dp = fr[HOLD][d], fr[DISP][d, :k]
    nxt = s + 1 if s + 1 < n else 0
    h1, h2 = _hash(s, h, n, dp, k, r_)
    fr[H1][d], fr[H2][d] = h1, h2
    fr[RESULT][d] = LOSS_CODE
    v = _probe(tk1, tk2, tv, h1, h2) if not top else _EMPTY
    if v != _EMPTY:  # proven before
        return (WIN_CODE if v == _WON else LOSS_CODE), turns
    if h[s] == 0 and not top:  # R-B4: a seat holding nothing only draws
        if r_ == 0:
            if not _any(h, n):
                return WIN_CODE, turns
            fr[PHASE][d] = _AFTER_TAIL  # the answer is the next seat's, not stored here
            return _push(fr, d + 1, nxt, h, dp, k, r_, fr[BASE][d]), turns
        fr[PHASE][d] = _AFTER_DRAW
        return _push(fr, d + 1, nxt, _drawn(h, s, deck, r_), dp, k, r_ - 1, fr[BASE][d]), turns
    fi, se, th = (prefix[0], prefix[1], prefix[2]) if top else (-1, -1, -1)
    cut = _cut(h, n, dp, k, r_, fi, params, suffix, tabs[4], tabs[1], h1, h2, tk1, tk2, tv, cnt)
    if cut >= 0:  # out of budget, or a loss proven by the display bound (stored)
        return cut, turns
    base = fr[BASE][d]
    need = base + turn_rows(h, s, n, k)
    if need > turns[2].size:
        turns = _grown_arena(turns, need)
    m, kept = _children(s, h, n, dp, k, r_, fi, se, th, params, suffix, pressure, tabs, h1, turns[0][base:],
                        turns[1][base:], turns[2][base:], turns[3][base:], turns[4][base:])
    fr[TOP][d], fr[KEPT][d], fr[OI][d] = base + m, kept, 0
    return _next_turn(fr, turns, d, n, deck), turns


@njit(cache=True, inline="always")
def _next_turn(fr, turns, d, n, deck):
    """Search the frame's next turn (from its result, with the draw that follows), or be
    done when none is left; the last turn of the deck wins when every hand is empty."""
    if fr[OI][d] >= fr[KEPT][d]:
        return _DONE
    s, r_ = fr[SEAT][d], fr[REM][d]
    nxt = s + 1 if s + 1 < n else 0
    row, above = fr[BASE][d] + turns[3][fr[BASE][d] + fr[OI][d]], fr[TOP][d]
    ck = turns[2][row]
    if r_ == 0:
        if not _any(turns[0][row], n):
            fr[RESULT][d] = WIN_CODE
            return _DONE
        fr[PHASE][d] = _AFTER_CHILD
        return _push(fr, d + 1, nxt, turns[0][row], turns[1][row, :ck], ck, r_, above)
    fr[PHASE][d] = _AFTER_CHILD_DRAW
    return _push(fr, d + 1, nxt, _drawn(turns[0][row], s, deck, r_), turns[1][row, :ck], ck, r_ - 1, above)


@njit(cache=True, inline="always")
def _resume(fr, turns, d, ret, n, params, deck):
    """A frame's step once the child it waited for answered ``ret``."""
    phase, s, r_, k = fr[PHASE][d], fr[SEAT][d], fr[REM][d], fr[K][d]
    nxt = s + 1 if s + 1 < n else 0
    if phase == _AFTER_TAIL or ret == OUT_OF_BUDGET:
        return ret
    if ret == WIN_CODE:
        fr[RESULT][d] = WIN_CODE
        return _DONE
    if phase == _AFTER_DRAW:
        if params[2] and _any(fr[HOLD][d], n):  # R-B7: or not draw
            fr[PHASE][d] = _AFTER_NO_DRAW
            return _push(fr, d + 1, nxt, fr[HOLD][d], fr[DISP][d, :k], k, r_, fr[BASE][d])
        return _DONE
    if phase == _AFTER_NO_DRAW:
        fr[RESULT][d] = ret
        return _DONE
    row = fr[BASE][d] + turns[3][fr[BASE][d] + fr[OI][d]]
    if phase == _AFTER_CHILD_DRAW and params[2] and _any(turns[0][row], n):  # R-B7: or not draw
        fr[PHASE][d] = _AFTER_CHILD
        ck = turns[2][row]
        return _push(fr, d + 1, nxt, turns[0][row], turns[1][row, :ck], ck, r_, fr[TOP][d])
    fr[OI][d] += 1  # that turn loses: on to the next
    return _next_turn(fr, turns, d, n, deck)


@njit(cache=True, nogil=True)  # without the GIL while it searches: other threads (a server's) run on
def win(seat, hold, disp, rem, first, second, third, params, deck, suffix, pressure, tabs, tk1, tk2, tv, cnt):
    """Can the team win from the start of ``seat``'s turn? WIN_CODE, LOSS_CODE or
    OUT_OF_BUDGET (nothing is stored on the way back then). ``params``: number of seats,
    limit, optional draw (0/1), bound (0/1), restart seed, noise. ``first`` >= 0: can it
    win by a turn whose rules actions start with ``first`` (and ``second``, ``third`` when
    >= 0): the value of a decision inside the turn. That node itself is then neither
    counted, bounded nor stored; every node below it is searched from a turn's start."""
    n, width = params[0], max(params[1], disp.size) + 2  # a turn adds at most 2 stacks to a display
    fr = _frames(n, FIRST_DEPTH, width)
    turns = _arena(n, FIRST_TURNS, width)
    prefix = np.array([first, second, third], np.int64)
    step = _push(fr, 0, seat, hold, disp, disp.size, rem, 0)
    d, ret = 0, LOSS_CODE
    while True:
        if d + 2 >= fr[SEAT].size:  # room for the frame a step may push
            fr = _grown(fr, n)
        if step == _PUSHED:
            d = d + 1 if fr[PHASE][d] != _ENTER else d  # the root was pushed at depth 0
            step, turns = _enter(fr, turns, d, d == 0 and first >= 0, prefix, n, params, deck, suffix, pressure,
                                 tabs, tk1, tk2, tv, cnt)
            continue
        answer = step
        if step == _DONE:
            answer = fr[RESULT][d]
            if not (d == 0 and first >= 0):
                _store(tk1, tk2, tv, fr[H1][d], fr[H2][d], _WON if answer == WIN_CODE else _LOST, cnt)
        if d == 0:
            return answer
        d -= 1  # the answer goes to the frame that searched this node
        ret = answer
        step = _resume(fr, turns, d, ret, n, params, deck)
