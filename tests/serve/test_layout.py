"""The table a first-time player sees (issue 42.5), in Chromium: at 1280x800 the table and the
moves fit the screen at every decision of every game and player count, and each game's page
is saved at 1280x800 and at a phone's 390x844 (build/screenshots/layout-*.png)."""

from __future__ import annotations

import httpx
import pytest

from .conftest import screenshot

TABLES = [("the_brain_v0", {"num_players": n, "difficulty": "robber"}) for n in (1, 2, 3, 4)]
TABLES += [("oh_my_brain_v0", {"num_players": n}) for n in (2, 3, 4, 5)]
TABLES += [("brilliant_boar_v0", {"num_players": 1, "level": 2})]
TABLES += [("brilliant_boar_v0", {"num_players": n}) for n in (2, 3, 4)]
DECISIONS = 4  # the person's decisions checked per table


def _open(page, url, game, options, seed=4):
    seats = ["human"] + ["heuristic"] * (options["num_players"] - 1)
    with httpx.Client(base_url=url) as http:
        r = http.post("/api/games", json={"game": game, "options": options, "seats": seats, "seed": seed})
        assert r.status_code == 201, r.text
    page.goto(f"{url}/#/game/{r.json()['id']}")


@pytest.mark.parametrize("game, options", TABLES, ids=[f"{g.split('_v0')[0]}-{o['num_players']}p" for g, o in TABLES])
def test_the_table_and_the_moves_fit_one_1280x800_screen(sized_page, live_server, game, options):
    page = sized_page
    _open(page, live_server.url, game, options)
    for k in range(DECISIONS):
        page.wait_for_selector("button.move:not([disabled]), #result")
        if page.query_selector("#result"):
            break
        table, first = page.query_selector("#table").bounding_box(), page.query_selector("button.move").bounding_box()
        assert page.evaluate("window.scrollY") == 0
        assert first["y"] + first["height"] <= 800, f"decision {k}: the first move is below the screen"
        assert table["y"] < 800 and table["x"] + table["width"] <= 1280
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280  # nothing wider than the screen
        if k == 1:
            name = f"layout-{game.split('_v0')[0]}-{options['num_players']}p"
            screenshot(page, f"{name}-1280x800")
            page.set_viewport_size({"width": 390, "height": 844})
            assert page.evaluate("document.documentElement.scrollWidth") <= 390 + 1, "wider than a phone"
            screenshot(page, f"{name}-390x844")
            page.set_viewport_size({"width": 1280, "height": 800})
        page.query_selector_all("button.move")[0].click()
        page.wait_for_function("document.querySelectorAll('button.move[disabled]').length == 0")
