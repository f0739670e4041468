"""Five first-time tasks in Chromium (issue 42.5): a scripted newcomer who knows nothing of
the page's code finds their way by the words on the screen alone (buttons, headings, the
status line), and each task is done within a few clicks. What each took is written to
build/first-time-tasks/TASK.json."""

from __future__ import annotations

import json
import re

import httpx
import pytest

from .conftest import ROOT

RESULTS = ROOT / "build" / "first-time-tasks"
OPTIONS = {"num_players": 3, "difficulty": "robber"}


def _record(task: str, what: dict) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{task.replace(' ', '-')}.json").write_text(json.dumps({"task": task, **what}, indent=1) + "\n")


def _game(page, url, seats, seed):
    with httpx.Client(base_url=url) as http:
        r = http.post("/api/games", json={"game": "the_brain", "options": OPTIONS, "seats": seats, "seed": seed})
    page.goto(f"{url}/#/game/{r.json()['id']}")


def _moves(page, words: str):
    """The move buttons whose words (what the button says) match ``words``."""
    return page.locator("button.move").filter(has_text=re.compile(words))


def _my_turn(page):
    """Wait until the status line (words only) says it is the person's turn or the game ended."""
    page.wait_for_function("/Your turn|Game over/.test(document.body.innerText)")


def test_1_find_your_turn(web_page, live_server):
    """The partners move first; the newcomer waits until the page says it is their turn and
    sees the moves under "Your move"."""
    _game(web_page, live_server.url, ["heuristic", "human", "heuristic"], seed=1)
    _my_turn(web_page)
    assert web_page.get_by_text(re.compile("^Your turn")).is_visible()
    assert web_page.get_by_role("heading", name="Your move").is_visible()
    _record("find your turn", {"clicks": 0, "done": True})


def test_2_make_a_donation(web_page, live_server):
    """Play a donate card, then pick the card to give and whom to give it to: the log then
    says the person donated to a partner."""
    _game(web_page, live_server.url, ["human", "heuristic", "heuristic"], seed=7)
    clicks = 0
    for _ in range(40):
        _my_turn(web_page)
        donate = _moves(web_page, r"play .*\(donate\)")
        if donate.count():
            break
        _moves(web_page, "play ").first.click()
        web_page.wait_for_function("document.querySelectorAll('button.move[disabled]').length == 0")
    else:
        pytest.fail("no donate card came into the hand")
    donate.first.click()
    clicks += 1
    web_page.wait_for_function("/donate card/.test(document.body.innerText)")
    _moves(web_page, "donate ").first.click()
    clicks += 1
    _moves(web_page, "donate to ").first.wait_for()
    _moves(web_page, "donate to ").first.click()
    clicks += 1
    web_page.wait_for_function("/you: donate to/.test(document.body.innerText)")
    assert clicks <= 3
    _record("make a donation", {"clicks": clicks, "done": True})


def test_3_read_why_the_game_ended(web_page, live_server):
    """At the end the result says in words why the game ended and whether the team won."""
    _game(web_page, live_server.url, ["human", "heuristic", "heuristic"], seed=2)
    clicks = 0
    for _ in range(200):
        _my_turn(web_page)
        if web_page.get_by_role("heading", name=re.compile("^Result")).count():
            break
        web_page.locator("button.move").first.click()
        clicks += 1
        web_page.wait_for_function("document.querySelectorAll('button.move[disabled]').length == 0")
    reason = web_page.locator("#end-reason").inner_text()
    assert re.search(r"the team (wins|loses)", reason), reason
    _record("read why the game ended", {"clicks": 0, "done": True, "moves_played": clicks, "reason": reason})


def test_4_look_up_what_a_card_does(web_page, live_server):
    """One click on "What the cards do" tells what a cover card does."""
    _game(web_page, live_server.url, ["human", "heuristic", "heuristic"], seed=3)
    _my_turn(web_page)
    web_page.get_by_text("What the cards do").click()
    assert web_page.get_by_text("the card goes on top of another stack").is_visible()
    _record("look up what a card does", {"clicks": 1, "done": True})


def test_5_tell_two_partners_of_one_kind_apart(web_page, live_server):
    """Two partners of one policy have two names, "partner 1" and "partner 2", on the seats
    line and in the log; the person's own seat is "you"."""
    _game(web_page, live_server.url, ["heuristic", "heuristic", "human"], seed=4)
    for _ in range(10):  # until both partners have moved
        _my_turn(web_page)
        log = web_page.locator("ol.log").inner_text()
        if "partner 1 (heuristic): " in log and "partner 2 (heuristic): " in log:
            break
        web_page.locator("button.move").first.click()
        web_page.wait_for_function("document.querySelectorAll('button.move[disabled]').length == 0")
    seats = web_page.inner_text("body")
    assert "you" in seats and "partner 1 (heuristic)" in seats and "partner 2 (heuristic)" in seats
    assert "partner 1 (heuristic): " in log and "partner 2 (heuristic): " in log
    _record("tell two partners apart", {"clicks": 0, "done": True})
