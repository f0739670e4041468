"""50 games at once against a live server, with no cross-talk: games dealt with the same seed
and played the same way end the same, and every replay rebuilds its own game's result."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from braincards.envs import get_spec
from braincards.training.evaluation.replay import read_replay, replay_env

GAMES = 50


def _play(url: str, k: int) -> dict:
    with httpx.Client(base_url=url, timeout=60) as http:
        r = http.post("/api/games", json={"game": "the_brain", "options": {"num_players": 2},
                                          "seats": ["human", "heuristic"], "seed": k % 5})
        r.raise_for_status()
        gid, view = r.json()["id"], r.json()["view"]
        while not view["over"]:
            if view["agents_turn"]:
                r = http.post(f"/api/games/{gid}/advance", json={"step": view["step"]})
            else:
                r = http.post(f"/api/games/{gid}/move", json={"step": view["step"], "action": view["moves"][-1]["action"]})
            r.raise_for_status()
            view = r.json()
        return {"seed": k % 5, "gid": gid, "result": view["result"], "replay": view["replay"]}


def test_fifty_concurrent_games_do_not_cross_talk(app, live_server):
    with ThreadPoolExecutor(GAMES) as pool:
        done = list(pool.map(lambda k: _play(live_server.url, k), range(GAMES)))
    assert len({d["gid"] for d in done}) == GAMES
    by_seed = {}
    for d in done:
        by_seed.setdefault(d["seed"], []).append(d["result"])
        replay = read_replay(app.state.store.replay_dir / d["replay"])
        env = replay_env(replay)
        assert get_spec("the_brain").scores(env.state) == d["result"]["scores"]
        assert replay["header"]["seed"] == d["seed"]
    for results in by_seed.values():
        assert all(r == results[0] for r in results)


def test_an_agent_thinking_in_one_game_does_not_block_another(app, live_server):
    with httpx.Client(base_url=live_server.url, timeout=30) as http:
        games = []
        for _ in range(2):
            r = http.post("/api/games", json={"game": "oh_my_brain", "options": {"num_players": 2},
                                              "seats": ["heuristic", "heuristic"], "seed": 1})
            games.append((r.json()["id"], r.json()["view"]))
        (slow_id, slow_view), (fast_id, fast_view) = games
        assert slow_view["agents_turn"]
        slow = app.state.store.get(slow_id)
        policy = slow.table.policies[slow.to_act]
        act, started = policy.act, threading.Event()

        def slow_act(obs, agent=None):
            started.set()
            time.sleep(2.0)
            return act(obs, agent)

        policy.act = slow_act
        with ThreadPoolExecutor(1) as pool:
            pending = pool.submit(http.post, f"/api/games/{slow_id}/advance", json={"step": 0})
            assert started.wait(10)
            t = time.perf_counter()
            r = http.post(f"/api/games/{fast_id}/advance", json={"step": 0})
            assert r.status_code == 200 and time.perf_counter() - t < 1.0
            assert http.get(f"/api/games/{fast_id}").json()["step"] == 1
            assert pending.result().status_code == 200
