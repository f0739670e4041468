"""A server that can't be knocked over (the requests side): only the host names it is reached
by, no cross-origin requests, bounded bodies, bounded search per move, and every bad input a
4xx whose message names no server path."""

from __future__ import annotations

import json
import time

import pytest
from fastapi.testclient import TestClient

from braincards.training.cli import serve as serve_cli
from braincards.training.cli.main import main
from braincards.training.serve import create_app, games
from braincards.training.serve.guard import MAX_BODY, host_name, redact
from braincards.training.serve.session import SEARCH_LIMITS

from .conftest import LOCAL, ROOT


@pytest.mark.parametrize("base, status", [("http://localhost", 200), ("http://127.0.0.1:8000", 200),
                                          ("http://[::1]:8000", 200), ("http://evil.example", 400),
                                          ("http://testserver", 400), ("http://localhost.evil.example", 400)])
def test_only_the_servers_own_host_names_are_answered(app, base, status):
    """A page on a name that resolves to this machine (DNS rebinding) gets no API."""
    with TestClient(app, base_url=base) as client:
        r = client.get("/api/meta")
    assert r.status_code == status, r.text
    if status == 400:
        assert "unknown Host" in r.json()["detail"] and client.get("/api/replays").status_code == 400


def test_a_cross_origin_request_is_refused(client):
    body = {"game": "the_brain", "seats": ["random", "random"], "options": {"num_players": 2}}
    assert client.post("/api/games", json=body, headers={"Origin": "http://localhost:8000"}).status_code == 201
    r = client.post("/api/games", json=body, headers={"Origin": "https://evil.example"})
    assert r.status_code == 403 and r.json()["detail"] == "cross-origin request refused"


def test_bodies_over_the_limit_are_refused_before_the_app_reads_them(client):
    big = {"replay": "x" * (MAX_BODY + 10), "step": 0, "viewer": None}
    r = client.post("/api/replay-view", json=big)
    assert r.status_code == 413 and str(MAX_BODY) in r.json()["detail"]

    def chunks():  # no Content-Length: counted as it arrives
        yield b'{"replay": "'
        for _ in range(MAX_BODY // 1000 + 2):
            yield b"y" * 1000
        yield b'", "step": 0}'

    r = client.post("/api/replay-view", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413
    ok = client.post("/api/replay-view", json={"replay": "not a replay", "step": 0, "viewer": None})
    assert ok.status_code == 422  # a small body reaches the app


@pytest.mark.parametrize("seat", ["pimc:samples=100000", "pimc:nodes=1000000", "pimc:samples=33,nodes=10",
                                  "guided:checkpoint=the_brain/ppo_3p,judge=pimc,nodes=99999"])
def test_a_search_over_the_move_budget_is_refused_before_a_game_starts(client, seat):
    r = client.post("/api/games", json={"game": "the_brain", "seats": ["human", seat], "options": {"num_players": 2}})
    assert r.status_code == 422 and "over this server's limit" in r.json()["detail"], r.text


def test_a_search_parameter_that_is_no_number_is_named_as_such(client):
    r = client.post("/api/games", json={"game": "the_brain", "seats": ["human", "pimc:samples=lots"],
                                        "options": {"num_players": 2}})
    assert r.status_code == 422 and "must be an integer" in r.json()["detail"], r.text


def test_a_search_within_the_budget_plays(client):
    seat = f"pimc:samples={SEARCH_LIMITS['samples']},nodes=50"
    r = client.post("/api/games", json={"game": "the_brain", "seats": ["random", seat], "options": {"num_players": 2}})
    assert r.status_code == 201, r.text


@pytest.mark.parametrize("name", ["a" * 300 + ".jsonl", "%2e%2e%2fsecrets.jsonl", "x" * 129 + ".jsonl"])
def test_bad_replay_names_are_a_404_not_a_500(client, name):
    assert client.get(f"/api/replays/{name}").status_code == 404


def test_error_messages_name_no_server_path(client):
    r = client.post("/api/games", json={"game": "the_brain", "seats": ["human", "nope/nothing"],
                                        "options": {"num_players": 2}})
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert "/work" not in detail and "/tmp" not in detail and "<server path>" in detail
    assert redact("no checkpoint at /srv/app/checkpoints/x.zip (see /api/games)") == \
        "no checkpoint at <server path> (see <server path>)"
    assert host_name("[::1]:8000") == "::1" and host_name("LocalHost:80") == "localhost"


def test_serve_answers_to_its_host_and_the_allowed_names(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(serve_cli.uvicorn, "run", lambda app, **kw: calls.append(app))
    assert main(["serve", "--host", "0.0.0.0", "--allow-host", "lab-pc.local", "--replays", str(tmp_path)]) == 0
    with TestClient(calls[0], base_url="http://lab-pc.local:8000") as client:
        assert client.get("/api/meta").status_code == 200
    with TestClient(calls[0], base_url="http://other.local") as client:
        assert client.get("/api/meta").status_code == 400
    assert json.loads(TestClient(calls[0], base_url=LOCAL).get("/api/meta").text)["study"] is False


def _new(client, seats=("random", "random")):
    return client.post("/api/games", json={"game": "the_brain", "seats": list(seats), "options": {"num_players": 2}})


def test_idle_games_expire_and_free_their_place(client, monkeypatch):
    """2,000 games created once locked free play until a restart: idle ones now expire."""
    clock = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(games, "MAX_GAMES", 3)
    ids = [_new(client).json()["id"] for _ in range(3)]
    assert _new(client).status_code == 503  # three games under way: full
    clock[0] += games.IDLE_SECONDS - 1
    assert client.get(f"/api/games/{ids[0]}").status_code == 200  # asked about: kept
    clock[0] += 2
    assert _new(client).status_code == 201  # the two idle ones expired
    assert client.get(f"/api/games/{ids[1]}").status_code == 404
    assert "expired" in client.get(f"/api/games/{ids[2]}").json()["detail"]
    assert client.get(f"/api/games/{ids[0]}").status_code == 200


def test_the_idle_time_is_the_servers_to_set(tmp_path, monkeypatch):
    """``--idle-minutes 2``: a game idle for 121 s is gone, one idle for 119 s is kept; a
    value outside 1 minute to a week is refused."""
    clock = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    with TestClient(create_app(replay_dir=tmp_path, idle_minutes=2), base_url=LOCAL) as client:
        old, kept = _new(client).json()["id"], None
        clock[0] += 119
        kept = _new(client).json()["id"]
        assert client.get(f"/api/games/{old}").status_code == 200
        clock[0] += 121
        _new(client)
        assert client.get(f"/api/games/{old}").status_code == 404  # asked about at 119 s, idle since
        assert "after 2 idle minutes" in client.get(f"/api/games/{kept}").json()["detail"]
    for bad in (0.5, 7 * 24 * 60 + 1):
        with pytest.raises(ValueError, match="idle minutes must be 1..10080"):
            create_app(replay_dir=tmp_path, idle_minutes=bad)


def test_one_address_holds_a_bounded_number_of_games(client, monkeypatch):
    monkeypatch.setattr(games, "PER_CLIENT", 2)
    first = _new(client).json()
    _new(client)
    r = _new(client)
    assert r.status_code == 429 and "already has 2 games under way" in r.json()["detail"]
    view = first["view"]
    while not view["over"]:  # finishing one frees a place
        view = client.post(f"/api/games/{first['id']}/advance", json={"step": view["step"]}).json()
    assert _new(client).status_code == 201


def test_study_games_are_never_evicted_or_expired(tmp_path, monkeypatch):
    monkeypatch.setattr(games, "MAX_GAMES", 2)
    monkeypatch.setattr(games, "IDLE_SECONDS", -1.0)  # every other game would be expired at once
    study = tmp_path / "study.yaml"
    study.write_text("game: the_brain\noptions: {num_players: 2}\ngames: 1\nout: " + str(tmp_path / "out")
                     + "\nconditions:\n  - {name: a, seats: [human, random], deals: [x]}\n")
    with TestClient(create_app(study=study), base_url=LOCAL) as client:
        started = [client.post("/api/study/start", json={"participant": f"p{k}"}).json() for k in range(2)]
        third = client.post("/api/study/start", json={"participant": "p2"})
        assert third.status_code == 503  # refused, rather than dropping a waiting participant's game
        for s in started:
            assert client.get(f"/api/games/{s['game']}").status_code == 200


@pytest.mark.parametrize("host", ["[::1", "localhost:99999", "localhost:80x", "local host", "[::1]x", ""])
def test_a_malformed_host_is_no_host_the_server_answers_to(client, host):
    """An unclosed bracket or a port that is no port used to be read as the name before it."""
    r = client.get("/api/meta", headers={"Host": host})
    assert r.status_code == 400 and "unknown Host" in r.json()["detail"]


def test_render_mode_is_refused_not_dropped(client):
    body = {"game": "the_brain", "seats": ["human", "random"], "options": {"num_players": 2, "render_mode": "human"}}
    r = client.post("/api/games", json=body)
    assert r.status_code == 422 and "render_mode" in r.json()["detail"]


def test_the_hostile_api_probe_gets_a_clean_4xx_for_every_bad_request():
    """benchmarks/serve_probe.py: about 280 bad requests to a free-play server and a study
    server; each must be a 4xx naming no server path (it found three that were not: two malformed hosts, render_mode)."""
    import sys

    sys.path.insert(0, str(ROOT))
    from benchmarks.serve_probe import run

    out = run()
    for name, r in out.items():
        assert r["requests"] > 30 and r["not a clean 4xx"] == [] and r["leaks"] == [], (name, r)
