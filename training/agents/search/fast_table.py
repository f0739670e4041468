"""The compiled search's transposition table (see :mod:`.fast`): ``2 ** table_bits`` slots of
two 64-bit hashes of a node and a win / loss byte; a node may use ``PROBES`` slots from its
home slot on, and when they are all taken the home slot's node makes way."""

from __future__ import annotations

import numpy as np
from numba import njit

# table slot values
_EMPTY, _WON, _LOST = 0, 1, 2
PROBES = 4  # slots a node may use, from its home slot on
# counters shared with Python (one int64 array): nodes expanded in this solve, the node
# budget (-1: none), entries stored, stores that overwrote another node
C_NODES, C_BUDGET, C_STORED, C_OVERWRITTEN = range(4)


def new_table(bits: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty transposition table of ``2 ** bits`` slots (17 bytes each)."""
    size = 1 << int(bits)
    return np.zeros(size, np.uint64), np.zeros(size, np.uint64), np.zeros(size, np.int8)


@njit(cache=True, inline="always")
def _fmix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _hash(seat, hold, n, disp, k, rem):
    """Two 64-bit hashes of the node."""
    head = np.uint64(seat | (rem << 8) | (k << 16))
    h1 = _fmix(head ^ np.uint64(0x243F6A8885A308D3))
    h2 = _fmix(head + np.uint64(0x13198A2E03707344))
    for i in range(n):
        v = np.uint64(hold[i])
        h1 = _fmix(h1 ^ (v + np.uint64(0x9E3779B97F4A7C15)))
        h2 = _fmix((h2 + v) * np.uint64(0xA0761D6478BD642F) + np.uint64(i + 1))
    for i in range(k):
        v = np.uint64(disp[i])
        h1 = _fmix(h1 ^ (v + np.uint64(0x9E3779B97F4A7C15)))
        h2 = _fmix((h2 + v) * np.uint64(0xA0761D6478BD642F) + np.uint64(i + 101))
    return h1, h2


@njit(cache=True)
def _probe(tk1, tk2, tv, h1, h2):
    """The stored result of a node (_WON / _LOST), or _EMPTY when it is not in the table."""
    mask = np.uint64(tv.size - 1)
    for p in range(PROBES):
        j = (h1 + np.uint64(p)) & mask
        v = tv[j]
        if v == _EMPTY:
            return _EMPTY
        if tk1[j] == h1 and tk2[j] == h2:
            return v
    return _EMPTY


@njit(cache=True)
def _store(tk1, tk2, tv, h1, h2, value, cnt):
    mask = np.uint64(tv.size - 1)
    for p in range(PROBES):
        j = (h1 + np.uint64(p)) & mask
        if tv[j] == _EMPTY or (tk1[j] == h1 and tk2[j] == h2):
            if tv[j] == _EMPTY:
                cnt[C_STORED] += 1
            tk1[j] = h1
            tk2[j] = h2
            tv[j] = value
            return
    j = h1 & mask  # every slot taken: the home slot's node makes way
    cnt[C_OVERWRITTEN] += 1
    tk1[j] = h1
    tk2[j] = h2
    tv[j] = value


@njit(cache=True)
def lookup(seat, hold, disp, rem, tk1, tk2, tv):
    """1 proven won, -1 proven lost, 0 not in the table."""
    h1, h2 = _hash(seat, hold, hold.size, disp, disp.size, rem)
    v = _probe(tk1, tk2, tv, h1, h2)
    return 1 if v == _WON else -1 if v == _LOST else 0


@njit(cache=True)
def rehash(tk1, tk2, tv, nk1, nk2, nv, cnt):
    """Move every entry of a table into the larger empty table ``nk1, nk2, nv``."""
    cnt[C_STORED] = 0
    for j in range(tv.size):
        if tv[j] != _EMPTY:
            _store(nk1, nk2, nv, tk1[j], tk2[j], tv[j], cnt)
