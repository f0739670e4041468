"""End to end in a real headless Chromium (Debian's, through Playwright): a person plays by
clicking, watches a replay and takes part in a 2-game study. Every page is saved as a
screenshot in build/screenshots/."""

from __future__ import annotations

import csv
import json
import os
import signal
import socket
import subprocess
import sys
import time

from braincards.training.evaluation.replay import read_replay
from braincards.training.serve import create_app

from .conftest import LiveServer, _free_port, screenshot
from .test_study import DEAL, write_forms_study, write_study


def start_game(page, url, game, options, seats, seed, shot=None):
    page.goto(url + "/")
    page.select_option("#game", game)
    for key, value in options.items():
        page.fill(f'[data-opt="{key}"]', str(value))
        page.dispatch_event(f'[data-opt="{key}"]', "input")
    for i, seat in enumerate(seats):
        page.fill(f'[data-seat="{i}"]', seat)
    page.fill("#seed", str(seed))
    if shot:
        screenshot(page, shot)
    page.click("#start")
    page.wait_for_selector("#status")


def click_until_over(page, pick=-1, shots=(), max_moves=400) -> list[str]:
    """Click one of the legal moves whenever it is the person's turn (agents move by
    themselves at pace 0) until the result shows; returns the decisions the person made."""
    decisions = []
    for _ in range(max_moves):
        page.wait_for_selector("button.move:not([disabled]), #result")
        if page.query_selector("#result"):
            return decisions
        status = page.inner_text("#status")
        decisions.append(status)
        if len(decisions) == 2 and shots:
            screenshot(page, shots[0])
        buttons = page.query_selector_all("button.move")
        buttons[pick if pick < 0 else min(pick, len(buttons) - 1)].click()
        page.wait_for_function("document.querySelectorAll('button.move[disabled]').length == 0")
    raise AssertionError("the game did not end")


def test_a_person_plays_the_brain_solo_and_with_two_checkpoint_partners(web_page, live_server):
    page = web_page
    start_game(page, live_server.url, "the_brain_v0", {"num_players": 1}, ["human"], 5, "new-game")
    assert page.query_selector_all("svg.card"), "cards are drawn as SVG"
    click_until_over(page, shots=("the-brain-solo",))
    assert "Game over" in page.inner_text("#status")
    screenshot(page, "the-brain-solo-result")
    start_game(page, live_server.url, "the_brain_v0", {"num_players": 3, "difficulty": "robber"},
               ["human", "the_brain/ppo_3p", "the_brain/ppo_3p"], 9)
    click_until_over(page, shots=("the-brain-3p",))
    assert "the_brain/ppo_3p" in page.inner_text("#result")
    screenshot(page, "the-brain-3p-result")


def test_a_person_plays_oh_my_brain_through_a_multi_step_decision(web_page, live_server):
    page = web_page
    start_game(page, live_server.url, "oh_my_brain_v0", {"num_players": 2}, ["human", "heuristic"], 2)
    decisions = click_until_over(page, pick=0, shots=("oh-my-brain",))
    kinds = [d.split(": ", 1)[1] for d in decisions if d.startswith("Your turn")]
    follow_ups = {"extra target", "give target", "keep", "refill", "steal", "exchange"}
    assert set(kinds) & follow_ups, f"no multi-step decision in {sorted(set(kinds))}"
    screenshot(page, "oh-my-brain-result")


def test_the_replay_viewer_steps_through_a_recorded_game(web_page, live_server):
    page = web_page
    start_game(page, live_server.url, "brilliant_boar_v0", {"num_players": 2}, ["human", "heuristic"], 4)
    click_until_over(page)
    page.click("#result a")  # the saved replay
    page.wait_for_selector("#replay-step")
    assert page.inner_text("#replay-step").startswith("step 0 /")
    for step in (1, 2, 3):
        page.click("#forward")
        page.wait_for_selector(f"#replay-step:has-text('step {step} /')")
    page.click("#back")
    page.wait_for_selector("#replay-step:has-text('step 2 /')")
    page.select_option("#viewer", "player_0")
    page.wait_for_selector('#table svg[aria-label="hidden card"]')  # the Boar: own hand unseen
    screenshot(page, "replay-viewer")
    page.click("#last")
    page.wait_for_selector(".status:has-text('The pile is empty')")  # why it ended


def test_a_study_run_of_two_games_writes_its_csv(web_page, tmp_path):
    page = web_page
    with LiveServer(create_app(study=write_study(tmp_path))) as server:
        page.goto(server.url + "/")
        page.wait_for_selector("#study-start")
        screenshot(page, "study-start")
        page.fill("#participant", "p-07")
        page.click("#begin")
        for game in range(2):
            page.wait_for_selector(f"#study-progress:has-text('Game {game + 1} of 2')")
            click_until_over(page, shots=("study-game",) if game == 0 else ())
            assert "cond-" not in page.content() and "heuristic" not in page.content()
            page.click("#continue")
        page.wait_for_selector("#thanks")
        screenshot(page, "study-thanks")
    rows = list(csv.DictReader((tmp_path / "results" / "results.csv").read_text().splitlines()))
    assert [(r["participant"], r["condition"]) for r in rows] == [("p-07", "cond-learned"), ("p-07", "cond-rules")]
    assert all(float(r["decision_time_mean_s"]) >= 0 for r in rows)


def test_the_page_says_which_table_a_checkpoint_partner_plays_at(web_page, live_server):
    """The options left as the page shows them: the partners' training table, said on the
    page; a difficulty the player changed: the warning is on the page."""
    page = web_page
    seats = ["human", "the_brain/ppo_3p", "the_brain/ppo_3p"]
    start_game(page, live_server.url, "the_brain_v0", {"num_players": 3}, seats, 4)
    assert "trained with (difficulty='robber')" in page.inner_text("p.note")
    screenshot(page, "the-brain-note-adopted")
    start_game(page, live_server.url, "the_brain_v0", {"num_players": 3, "difficulty": "cat_burglar"}, seats, 4)
    assert "difficulty: trained 'robber', here 'cat_burglar'" in page.inner_text("p.note")


def _serve_study(study, port):
    """``braincards serve --study`` in its own process (killed with SIGKILL by the test)."""
    proc = subprocess.Popen([sys.executable, "-m", "braincards.training.cli", "serve", "--study", str(study),
                             "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        if proc.poll() is not None:
            raise AssertionError(f"the server exited: {proc.stderr.read().decode()[-2000:]}")
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("the server did not start")


def test_a_study_survives_a_kill_9_in_the_middle_of_a_game(web_page, tmp_path):
    """Issue 42: a participant three decisions into their first game; the server process is
    killed with SIGKILL and started again. A reload shows the same game at the same step with
    the same cards, the participant finishes both games, and the CSV has both rows with every
    decision; the token was never in the address bar."""
    page, port = web_page, _free_port()
    study = write_study(tmp_path)
    (tmp_path / "results").mkdir()  # a fixed deal for game 1 (a secret one could end within 3 decisions)
    (tmp_path / "results" / "deals.json").write_text(json.dumps({"d101": DEAL}))
    proc = _serve_study(study, port)
    try:
        page.goto(f"http://127.0.0.1:{port}/")
        page.fill("#participant", "p-09")
        page.click("#begin")
        for _ in range(3):
            page.wait_for_selector("button.move:not([disabled])")
            page.query_selector_all("button.move")[0].click()
            page.wait_for_function("document.querySelectorAll('button.move[disabled]').length == 0")
        page.wait_for_selector("button.move:not([disabled])")  # the person's turn: no request in flight
        before = (page.inner_text("#table"), page.inner_text(".muted"), page.url)
        token = page.evaluate("sessionStorage.getItem('study')")
        assert token and token not in page.url
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        proc = _serve_study(study, port)
        page.reload()
        page.wait_for_selector("button.move:not([disabled])")
        assert (page.inner_text("#table"), page.inner_text(".muted"), page.url) == before
        screenshot(page, "study-resumed")
        for game in range(2):
            page.wait_for_selector(f"#study-progress:has-text('Game {game + 1} of 2')")
            click_until_over(page)
            page.click("#continue")
        page.wait_for_selector("#thanks")
    finally:
        proc.kill()
        proc.wait(10)
    rows = list(csv.DictReader((tmp_path / "results" / "results.csv").read_text().splitlines()))
    assert [(r["participant"], r["game_index"]) for r in rows] == [("p-09", "0"), ("p-09", "1")]
    first = read_replay(tmp_path / "results" / "replays" / rows[0]["replay"])
    you = first["header"]["seats"].index("human")
    assert int(rows[0]["decisions"]) == sum(1 for s in first["steps"] if s["agent"] == f"player_{you}") >= 4


def test_a_study_with_consent_instructions_and_questionnaires(web_page, tmp_path):
    """Issue 42.3 in Chromium: the start page shows the consent form and the instructions and
    refuses to start before the box is ticked; each game is followed by its questionnaire
    (Likert buttons, an attention check, a free text), which must be answered first."""
    page = web_page
    with LiveServer(create_app(study=write_forms_study(tmp_path))) as server:
        page.goto(server.url + "/")
        page.wait_for_selector("#consent")
        assert "Play each game as well as you can." in page.inner_text("#instructions")
        page.fill("#participant", "p-11")
        page.click("#begin")
        page.wait_for_selector("#error:has-text('agree to it')")
        screenshot(page, "study-consent")
        page.check("#agree")
        page.click("#begin")
        for game in range(2):
            page.wait_for_selector(f"#study-progress:has-text('Game {game + 1} of 2')")
            click_until_over(page)
            page.click("#continue")
            page.wait_for_selector("#questionnaire")
            page.click("#send-answers")  # nothing picked: the first required item is named
            page.wait_for_selector("#error:has-text('please answer: I enjoyed playing')")
            page.check(f'input[name="enjoy"][value="{5 + game}"]')
            page.check('input[name="attention"][value="2"]')
            if game == 0:
                page.fill('textarea[data-item="comments"]', "my partner gave me covers")
                screenshot(page, "study-questionnaire")
            page.click("#send-answers")
        page.wait_for_selector("#thanks")
    rows = list(csv.DictReader((tmp_path / "results" / "answers.csv").read_text().splitlines()))
    assert [(r["game_index"], r["item"], r["answer"], r["attention_ok"]) for r in rows] == [
        ("0", "enjoy", "5", ""), ("0", "attention", "2", "1"), ("0", "comments", "my partner gave me covers", ""),
        ("1", "enjoy", "6", ""), ("1", "attention", "2", "1"), ("1", "comments", "", "")]


def test_a_response_that_comes_back_after_leaving_the_game_is_not_drawn(web_page, live_server):
    """Issue 42: clicking Replays while an agent's move was on its way used to draw the old game
    over the Replays page when the move came back. The move is held until the person has left."""
    page = web_page
    held = []
    page.route("**/api/games/*/advance", lambda route: held.append(route))
    start_game(page, live_server.url, "the_brain_v0", {"num_players": 2}, ["heuristic", "human"], seed=3)
    for _ in range(200):  # the partner moves first: its move is asked for, and held here
        if held:
            break
        page.wait_for_timeout(25)
    assert held, "the page never asked for the partner's move"
    page.click("nav >> text=Replays")
    page.wait_for_selector("h1:has-text('Replays')")
    held[0].continue_()
    page.wait_for_timeout(800)  # the held move's response has come back by now
    assert page.inner_text("h1") == "Replays" and page.query_selector("#table") is None
