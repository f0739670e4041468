"""The browser receives only the person's observation: at every step of a game, the
person's view of the real state and of a twin state that differs only in what the person
cannot see (other hands, the deck's order, face-down graveyards, their own Boar hand) is the
same bytes. Each twin is checked to really differ (the omniscient table is not the same)."""

from __future__ import annotations

import random

import pytest

from ..twins import TWINS
from .test_api import new_game

PROBES_PER_STEP = 2


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
