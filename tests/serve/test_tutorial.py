"""The tutorial per game (issue 42.3): a fixed deal whose first decisions are guided, one
move at a time, and refused when another move is made; every person sees the same one; it
leaves no replay and no study row. In Chromium: guided by the marked button alone, at
1280x800, with the table and the tutorial's words on one screen."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from braincards.training.serve import create_app
from braincards.training.serve.tutorials import TUTORIALS

from .conftest import LOCAL, screenshot
from .test_study import write_study

GAMES = sorted(TUTORIALS)


def _play(client, gid, view, *, stray: bool = False) -> tuple[dict, list[str]]:
    """Play the tutorial game to its end, always the asked move (else the first); ``stray``:
    first try another legal move at every guided decision, which must be refused."""
    said, refused = [], 0
    while not view["over"]:
        t = view["tutorial"]
        said.append(" ".join(t["say"]))
        if view["agents_turn"]:
            view = client.post(f"/api/games/{gid}/advance", json={"step": view["step"]}).json()
            continue
        legal = [m["action"] for m in view["moves"]]
        if t["move"] is not None:
            assert t["move"] in legal and t["made"] < t["guided"]
            other = [a for a in legal if a != t["move"]]
            if stray and other:
                r = client.post(f"/api/games/{gid}/move", json={"step": view["step"], "action": other[0]})
                assert r.status_code == 422 and "the tutorial asks for this move now" in r.json()["detail"]
                refused += 1
        else:
            assert t["made"] >= t["guided"], "a guided decision without a move asked for"
        action = t["move"] if t["move"] is not None else legal[0]
        r = client.post(f"/api/games/{gid}/move", json={"step": view["step"], "action": action})
        assert r.status_code == 200, r.text
        view = r.json()
    return view, said + [f"refused {refused}"]


@pytest.mark.parametrize("game", GAMES)
def test_a_tutorial_guides_its_first_moves_and_refuses_others(client, app, game):
    r = client.post(f"/api/tutorials/{game}")
    assert r.status_code == 201, r.text
    gid, view = r.json()["id"], r.json()["view"]
    tutorial = TUTORIALS[game]
    assert view["tutorial"]["say"][0] == tutorial.intro and view["tutorial"]["made"] == 0
    end, said = _play(client, gid, view, stray=True)
    assert int(said[-1].split()[-1]) >= 2, "fewer than two guided decisions could be refused"
    assert end["tutorial"]["made"] > tutorial.guided
    assert any(tutorial.closing in s for s in said), "the end of the guided part is never said"
    assert "replay" not in end and not list((app.state.store.replay_dir).glob("*"))  # practice: no replay
    # the same deal and the same guided moves for everyone
    again = client.post(f"/api/tutorials/{game.removesuffix('_v0')}").json()
    assert _play(client, again["id"], again["view"])[1][:-1] == said[:-1]


def test_every_decision_kind_met_is_explained_and_every_effect_named():
    """The words cover the game: each decision kind of each game has its sentence, and every
    card effect of The Brain and Oh My Brain one."""
    from braincards.envs.brilliant_boar.rules import DECISIONS as BOAR
    from braincards.envs.oh_my_brain.rules import DECISIONS as OMB
    from braincards.envs.the_brain.cards import SYMBOLS
    from braincards.envs.the_brain.rules import DECISIONS as BRAIN

    for game, kinds in (("the_brain_v0", BRAIN), ("oh_my_brain_v0", OMB), ("brilliant_boar_v0", BOAR)):
        assert set(TUTORIALS[game].decisions) == set(kinds), game
    brain = TUTORIALS["the_brain_v0"]
    for symbol in SYMBOLS:
        effect = symbol.replace("_object", " key").replace("_color", " red")
        assert brain.effect_text({"effect": effect}), symbol
    omb = TUTORIALS["oh_my_brain_v0"]
    assert all(omb.effect_text({"effect": e}) for e in ("mosquito", "spider", "mouse", "marshmallow"))


def test_an_unknown_tutorial_is_refused_with_the_known_ones(client):
    r = client.post("/api/tutorials/chess")
    assert r.status_code == 404 and "the_brain_v0" in r.json()["detail"]


def test_a_study_offers_its_own_game_tutorial_only_when_its_file_says_so(tmp_path):
    plain = write_study(tmp_path)
    with TestClient(create_app(study=plain), base_url=LOCAL) as client:
        assert client.get("/api/meta").json()["tutorial"] is None
        assert client.post("/api/tutorials/the_brain").status_code == 403
    offered = tmp_path / "with-tutorial.yaml"
    offered.write_text(plain.read_text() + "tutorial: true\n")
    with TestClient(create_app(study=offered), base_url=LOCAL) as client:
        assert client.get("/api/meta").json()["tutorial"] == "the_brain_v0"
        assert client.post("/api/tutorials/oh_my_brain").status_code == 403  # not the study's game
        r = client.post("/api/tutorials/the_brain")
        assert r.status_code == 201
        labels = [s["label"] for s in r.json()["view"]["seats"]]
        assert labels == ["you", "partner 1"], "a study never names a seat's policy"
        end, _ = _play(client, r.json()["id"], r.json()["view"])
        assert end["over"] and "replay" not in end
    results = tmp_path / "results"
    assert not (results / "results.csv").exists() and not list((results / "replays").glob("*"))


@pytest.mark.parametrize("game", GAMES)
def test_the_tutorial_in_chromium(sized_page, live_server, game):
    """From the new-game page, one click on the game's tutorial; then only the marked move is
    offered at each guided decision, and the tutorial's words, the table and that move are
    on the 1280x800 screen."""
    page = sized_page
    page.goto(live_server.url)
    page.locator(f'button.tutorial-start[data-game="{game}"]').click()
    page.wait_for_selector("#tutorial")
    guided = TUTORIALS[game].guided
    for k in range(guided):
        page.wait_for_selector("button.move.suggested")
        assert f"guided move {k + 1} of {guided}" in page.inner_text("#tutorial h2")
        suggested = page.locator("button.move.suggested")
        box = suggested.bounding_box()
        assert box["y"] + box["height"] <= 800, "the asked move is below the screen"
        assert page.locator("#table").bounding_box()["y"] < 800
        assert page.locator("button.move").count() == 1, "a guided decision offers the asked move alone"
        if k == 0:
            screenshot(page, f"tutorial-{game}-1280x800")
        suggested.click()
        page.wait_for_function(f"document.querySelector('#tutorial h2') && "
                               f"!document.querySelector('#tutorial h2').innerText.includes('move {k + 1} of')")
    page.wait_for_function("/You know the basics|tutorial game is over/.test(document.body.innerText)")
