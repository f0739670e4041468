"""The browser receives only the person's observation: at every step of a game, the
person's view of the real state and of a twin state that differs only in what the person
cannot see (other hands, the deck's order, face-down graveyards, their own Boar hand) is the
same bytes. Each twin is checked to really differ (the omniscient table is not the same)."""

from __future__ import annotations

import random

import pytest

from .test_api import new_game

PROBES_PER_STEP = 2


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
GAMES = [("the_brain", 3, ["human", "heuristic", "heuristic"]),
         ("oh_my_brain", 3, ["human", "heuristic", "random"]),
         ("brilliant_boar", 2, ["human", "heuristic"])]


def _probe(client, session, gid, twin, rng) -> bool:
    """One probe at the game's current state; True when the twin really differs."""
    raw = session.raw
    real = raw.state.to_dict()
    seen = client.get(f"/api/games/{gid}").content
    omni = raw.render_text()
    me = raw.possible_agents.index(session.human)
    raw.reset(options={"state": twin(raw.state.to_dict(), me, rng)})
    try:
        differs = raw.render_text() != omni
        assert client.get(f"/api/games/{gid}").content == seen, "the view changed with hidden cards"
    finally:
        raw.reset(options={"state": real})
    assert raw.state.to_dict() == real
    return differs


@pytest.mark.parametrize("game,n,seats", GAMES, ids=[g[0] for g in GAMES])
def test_views_are_byte_identical_whatever_the_person_cannot_see(client, app, game, n, seats):
    gid, view = new_game(client, game, {"num_players": n}, seats, seed=11)
    session = app.state.store.get(gid)
    rng = random.Random(0)
    tried = differing = 0
    while not view["over"] and view["step"] < 60:
        for _ in range(PROBES_PER_STEP):
            differing += _probe(client, session, gid, TWINS[game], rng)
            tried += 1
        if view["agents_turn"]:
            r = client.post(f"/api/games/{gid}/advance", json={"step": view["step"]})
        else:
            r = client.post(f"/api/games/{gid}/move", json={"step": view["step"], "action": view["moves"][0]["action"]})
        view = r.json()
    assert tried >= 40 and differing >= tried * 0.8, (tried, differing)
