"""50 games at once against a live server, with no cross-talk: games dealt with the same seed
and played the same way end the same, and every replay rebuilds its own game's result."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np

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


def _new(http, seats, game="the_brain", options=None):
    r = http.post("/api/games", json={"game": game, "options": options or {"num_players": 3, "difficulty": "robber"},
                                      "seats": seats, "seed": 3})
    return r.json()["id"], r.json()["view"]


def test_a_queue_of_searches_delays_no_other_agents_move_nor_any_other_request(app, live_server):
    """Issue 42.4: agents' moves run on their own workers, a search seat's on the search
    worker. With that worker held, a search game's agent move waits for it, while another
    game's rule-player move, a person's move and a GET are answered at once."""
    with httpx.Client(base_url=live_server.url, timeout=30) as http:
        search_id, search_view = _new(http, ["pimc", "pimc", "pimc"])
        rules_id, rules_view = _new(http, ["heuristic"] * 3)
        person_id, person_view = _new(http, ["human", "greedy", "greedy"])
        assert search_view["agents_turn"] and rules_view["agents_turn"]
        release = threading.Event()
        blocker = app.state.agents.search.submit(release.wait, 30)  # the one search worker is busy
        with ThreadPoolExecutor(1) as pool:
            pending = pool.submit(http.post, f"/api/games/{search_id}/advance", json={"step": 0})
            time.sleep(0.3)
            assert not pending.done()  # queued behind the busy search worker
            t = time.perf_counter()
            assert http.post(f"/api/games/{rules_id}/advance", json={"step": 0}).status_code == 200
            assert http.get(f"/api/games/{search_id}").json()["step"] == 0
            move = person_view["moves"][0]["action"]  # (seed 3: the person moves first)
            assert http.post(f"/api/games/{person_id}/move", json={"step": 0, "action": move}).status_code == 200
            assert time.perf_counter() - t < 2.0 and not pending.done()
            release.set()
            assert blocker.result(10) and pending.result(30).status_code == 200
        assert http.get(f"/api/games/{search_id}").json()["step"] == 1


def test_a_search_seats_move_stops_sampling_at_its_time_budget(app, monkeypatch):
    """Issue 42.4: a search seat's move has a time budget: with none left, PIMC solves one
    sampled deal instead of its 8, and the deadline is cleared after the move."""
    from braincards.training.serve import session as session_module

    gid, s = app.state.store.create("the_brain", {"num_players": 3, "difficulty": "robber"}, ["pimc"] * 3, 3)
    policy = s.table.policies[s.to_act]
    while len(np.flatnonzero(s.table.observe(s.to_act)["action_mask"])) < 2:
        s.agent_move(s.step)
        policy = s.table.policies[s.to_act]
    monkeypatch.setattr(session_module, "MOVE_BUDGET_S", -1.0)
    s.agent_move(s.step)
    assert len(policy.last_votes) > 0 and max(policy.last_votes.values()) <= 1 and policy.deadline is None
    monkeypatch.setattr(session_module, "MOVE_BUDGET_S", 60.0)
    while s.table.policies.get(s.to_act) is None or \
            len(np.flatnonzero(s.table.observe(s.to_act)["action_mask"])) < 2:
        s.agent_move(s.step)
    policy = s.table.policies[s.to_act]
    s.agent_move(s.step)
    assert max(policy.last_votes.values()) > 1  # with time, all 8 deals (some action wins more than once)


def test_a_guided_seat_passes_its_budget_to_its_pimc_judge_and_counts_as_a_search_seat(app):
    """A network with a PIMC judge searches at every move: it takes the search lane, and the
    move's deadline reaches the judge (a greedy judge has none to take)."""
    table = {"num_players": 3, "difficulty": "robber"}
    seats = ["guided:checkpoint=the_brain/ppo_3p,judge=pimc", "guided:checkpoint=the_brain/ppo_3p", "heuristic"]
    _, s = app.state.store.create("the_brain", table, seats, 3)
    assert s.search_seats == {s.agents[0]}
    pimc_judged, greedy_judged = s.table.policies[s.agents[0]], s.table.policies[s.agents[1]]
    pimc_judged.deadline = 12.5
    assert pimc_judged.judge.deadline == 12.5 == pimc_judged.deadline
    greedy_judged.deadline = 12.5
    assert greedy_judged.deadline is None and not hasattr(greedy_judged.judge, "deadline")
