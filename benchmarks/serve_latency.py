"""``braincards serve`` measured: an agent's move as the page sees it, 50 games at once, and
hidden-state probes.

* latency: the round trip of ``POST /api/games/ID/advance`` (one agent move, the new view
  rendered) against a live uvicorn server, median and p95 over ``--moves`` agent moves, for
  heuristic partners and for checkpoint partners (The Brain, 3 players at robber);
* throughput: ``--games`` games played at once through the HTTP API (one thread each):
  games/s, requests/s and errors;
* probes: at every step of ``--probe-games`` games of each title, the person's view of the
  real state and of twin states that differ only in hidden cards (tests/serve/test_hidden.py's
  twins) must be the same bytes: probes tried, leaks found.

    python benchmarks/serve_latency.py            # about a minute on 2 cores
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from tempfile import TemporaryDirectory

import httpx
from fastapi.testclient import TestClient

from braincards.training.serve import create_app

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.serve import test_hidden  # noqa: E402
from tests.serve.conftest import LiveServer  # noqa: E402

CONFIG = {"num_players": 3, "difficulty": "robber"}


def agent_latency(url: str, partner: str, moves: int, seed: int = 0) -> tuple[list, list]:
    """Seconds per agent move (the /advance round trip) over ``moves`` moves, and seconds per
    new game (seating the partners: a checkpoint is loaded from disk)."""
    times: list[float] = []
    starts: list[float] = []
    with httpx.Client(base_url=url, timeout=60) as http:
        while len(times) < moves:
            t = time.perf_counter()
            r = http.post("/api/games", json={"game": "the_brain", "options": CONFIG, "seed": seed,
                                              "seats": ["human", partner, partner]})
            r.raise_for_status()
            starts.append(time.perf_counter() - t)
            gid, view = r.json()["id"], r.json()["view"]
            seed += 1
            while not view["over"] and len(times) < moves:
                if view["agents_turn"]:
                    t = time.perf_counter()
                    r = http.post(f"/api/games/{gid}/advance", json={"step": view["step"]})
                    times.append(time.perf_counter() - t)
                else:
                    r = http.post(f"/api/games/{gid}/move",
                                  json={"step": view["step"], "action": view["moves"][0]["action"]})
                r.raise_for_status()
                view = r.json()
    return times, starts


def _one_game(url: str, k: int) -> tuple[int, int]:
    """(requests, errors) of one game played through the API, from its own loopback address
    (127.0.x.y, as another person's browser would be: the server limits games per address)."""
    requests = errors = 0
    transport = httpx.HTTPTransport(local_address=f"127.0.{1 + k // 250}.{1 + k % 250}")
    with httpx.Client(base_url=url, timeout=60, transport=transport) as http:
        r = http.post("/api/games", json={"game": "the_brain", "options": {"num_players": 2},
                                          "seats": ["human", "heuristic"], "seed": k})
        requests += 1
        gid, view = r.json()["id"], r.json()["view"]
        while not view["over"]:
            path = "advance" if view["agents_turn"] else "move"
            body = {"step": view["step"]} if view["agents_turn"] else {"step": view["step"], "action": view["moves"][-1]["action"]}
            r = http.post(f"/api/games/{gid}/{path}", json=body)
            requests += 1
            if r.status_code != 200:
                errors += 1
                r = http.get(f"/api/games/{gid}")
            view = r.json()
    return requests, errors


def throughput(url: str, games: int) -> dict:
    t = time.perf_counter()
    with ThreadPoolExecutor(games) as pool:
        done = list(pool.map(lambda k: _one_game(url, k), range(games)))
    seconds = time.perf_counter() - t
    requests = sum(d[0] for d in done)
    return {"games": games, "seconds": round(seconds, 2), "games_per_s": round(games / seconds, 2),
            "requests_per_s": round(requests / seconds, 1), "errors": sum(d[1] for d in done)}


def probes(games: int, replay_dir: Path) -> dict:
    """Hidden-state probes over ``games`` games of each title: tried, twins that differed, leaks."""
    tried = differing = leaks = 0
    app = create_app(replay_dir=replay_dir)
    with TestClient(app, base_url="http://localhost") as client:  # a Host the server answers to
        for game, n, seats in test_hidden.GAMES:
            for g in range(games):
                r = client.post("/api/games", json={"game": game, "options": {"num_players": n},
                                                    "seats": seats, "seed": 1000 + g})
                gid, view = r.json()["id"], r.json()["view"]
                session, rng = app.state.store.get(gid), random.Random(g)
                while not view["over"]:
                    for _ in range(test_hidden.PROBES_PER_STEP):
                        tried += 1
                        try:
                            differing += test_hidden._probe(client, session, gid, test_hidden.TWINS[game], rng)
                        except AssertionError:
                            leaks += 1
                    path = "advance" if view["agents_turn"] else "move"
                    body = {"step": view["step"]} | ({} if view["agents_turn"] else {"action": view["moves"][0]["action"]})
                    view = client.post(f"/api/games/{gid}/{path}", json=body).json()
    return {"probes": tried, "twins_differing": differing, "leaks": leaks}


def summary(measured: tuple[list, list]) -> dict:
    times, starts = measured
    ms = sorted(t * 1000 for t in times)
    return {"moves": len(ms), "median_ms": round(statistics.median(ms), 2),
            "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 2), "max_ms": round(ms[-1], 2),
            "new_games": len(starts), "new_game_median_ms": round(statistics.median(starts) * 1000, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=200)
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--probe-games", type=int, default=3)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    out = {}
    with TemporaryDirectory() as tmp:
        with LiveServer(create_app(replay_dir=Path(tmp) / "r")) as server:
            out["latency_heuristic"] = summary(agent_latency(server.url, "heuristic", args.moves))
            out["latency_checkpoint"] = summary(agent_latency(server.url, "the_brain/ppo_3p", args.moves))
            out["throughput"] = throughput(server.url, args.games)
        out["hidden_state"] = probes(args.probe_games, Path(tmp) / "p")
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
