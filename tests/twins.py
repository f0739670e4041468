"""Twin states: a state changed only in what one seat cannot see (other hands, the deck's
order, face-down graveyards, its own Boar hand). A view of the state for that seat must not
tell a state from its twin; the web page's views and ``table_data`` are checked with them."""

from __future__ import annotations

import random


def _repack(pool: list, sizes: list[int], rng: random.Random) -> list[list]:
    rng.shuffle(pool)
    out, k = [], 0
    for n in sizes:
        out.append(pool[k : k + n])
        k += n
    return out


def _brain_twin(d: dict, me: int, rng: random.Random) -> dict:
    """Other players' hands and the deck, reshuffled among themselves."""
    others = [j for j in range(d["num_players"]) if j != me]
    pool = [c for j in others for c in d["hands"][j]] + list(d["deck"])
    parts = _repack(pool, [len(d["hands"][j]) for j in others] + [len(d["deck"])], rng)
    for j, part in zip(others, parts, strict=False):
        d["hands"][j] = part
    d["deck"] = parts[-1]
    return d


def _counts_to_cards(counts: list[int]) -> list[int]:
    return [v for v, n in enumerate(counts) for _ in range(n)]


def _cards_to_counts(cards: list[int], size: int) -> list[int]:
    out = [0] * size
    for c in cards:
        out[c] += 1
    return out


def _omb_twin(d: dict, me: int, rng: random.Random) -> dict:
    """Other players' hands and the reserve, reshuffled among themselves (a seat choosing
    whom to give a card keeps its hand: the rules hold that card for it)."""
    others = [j for j in range(d["num_players"]) if j != me and not (d["give"] >= 0 and j == d["seat"])]
    size = len(d["hands"][0])
    hands = [_counts_to_cards(d["hands"][j]) for j in others]
    pool = [c for h in hands for c in h] + list(d["reserve"])
    parts = _repack(pool, [len(h) for h in hands] + [len(d["reserve"])], rng)
    for j, part in zip(others, parts, strict=False):
        d["hands"][j] = _cards_to_counts(part, size)
    d["reserve"] = parts[-1]
    return d


def _boar_twin(d: dict, me: int, rng: random.Random) -> dict:
    """The person's own hand (they cannot see it) and the pile under its top card."""
    hand, pile = d["hands"][me], d["pile"]
    under = pile[1:]  # pile[0] is the face-up top card
    parts = _repack(list(hand) + under, [len(hand), len(under)], rng)
    d["hands"][me] = parts[0]
    d["pile"] = pile[:1] + parts[1]
    return d


TWINS = {"the_brain": _brain_twin, "oh_my_brain": _omb_twin, "brilliant_boar": _boar_twin}
