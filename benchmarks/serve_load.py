"""``braincards serve`` under load: another player's latency while many games make the server
work (issue 42's denial-of-service check).

A real ``braincards serve`` process on a free local port; this process plays the clients,
one thread each (they mostly wait on the network):

* ``--busy`` games of three PIMC agents at the server's largest search per move
  (``pimc:samples=32,nodes=5000``), each asking for agent moves as fast as they come;
* ``--games`` ordinary games (a person with two heuristic partners), each making its moves
  and asking for its agents' moves at the page's pace (a request every 0.6 s);
* one more such person, whose every request (a new game, a move, an agent move, each
  answered with the new view, as the page makes them) is timed: their median, p95 and
  maximum are the result.

    python benchmarks/serve_load.py --busy 48 --games 200 --seconds 30
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import threading
import time

import httpx

BUSY = ["pimc:samples=32,nodes=5000"] * 3
PERSON = ["human", "heuristic", "heuristic"]
OPTIONS = {"num_players": 3, "difficulty": "robber"}
PACE = 0.6  # seconds a person's page waits between requests (the page's default agent pace)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(port: int) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "braincards.training.cli", "serve", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not start")


def _step(client: httpx.Client, gid: str, view: dict) -> tuple[float, dict]:
    """The request the page makes next (an agent move, or the person's first legal move), as
    the page makes it: the answer is the new view. Returns the seconds it took and the view."""
    t = time.perf_counter()
    if view["agents_turn"]:
        r = client.post(f"/api/games/{gid}/advance", json={"step": view["step"]})
    else:
        r = client.post(f"/api/games/{gid}/move", json={"step": view["step"], "action": view["moves"][0]["action"]})
    took = time.perf_counter() - t
    return took, (r.json() if r.status_code == 200 else client.get(f"/api/games/{gid}").json())


def _player(url: str, seats: list[str], stop: threading.Event, times: list | None, errors: list,
            k: int = 0, pause: float = 0.0) -> None:
    """Play games with ``seats`` until ``stop``; with ``times``, each request's seconds go there.
    Client ``k`` connects from its own loopback address (127.0.x.y), as a separate person
    would, so that the server's per-address limit counts it alone."""
    transport = httpx.HTTPTransport(local_address=f"127.0.{1 + k // 250}.{1 + k % 250}")
    with httpx.Client(base_url=url, timeout=600, transport=transport) as client:
        while not stop.is_set():
            try:
                t = time.perf_counter()
                r = client.post("/api/games", json={"game": "the_brain", "options": OPTIONS, "seats": seats})
                if r.status_code != 201:
                    errors.append(r.status_code)
                    time.sleep(0.5)
                    continue
                if times is not None:
                    times.append(time.perf_counter() - t)
                gid, view = r.json()["id"], r.json()["view"]
                while not stop.is_set() and not view["over"]:
                    time.sleep(pause)
                    took, view = _step(client, gid, view)
                    if times is not None:
                        times.append(took)
            except httpx.HTTPError as err:
                errors.append(type(err).__name__)


def run(busy: int, games: int, seconds: float) -> dict:
    port = _free_port()
    proc = _start(port)
    url = f"http://127.0.0.1:{port}"
    stop, errors, times = threading.Event(), [], []
    threads = [threading.Thread(target=_player, args=(url, BUSY, stop, None, errors, k)) for k in range(busy)]
    threads += [threading.Thread(target=_player, args=(url, PERSON, stop, None, errors, busy + k, PACE))
                for k in range(games)]
    try:
        for t in threads:
            t.start()
        time.sleep(3)  # the load first
        probe = threading.Thread(target=_player, args=(url, PERSON, stop, times, errors, busy + games, PACE))
        probe.start()
        time.sleep(seconds)
        stop.set()
        probe.join(120)
        for t in threads:
            t.join(120)
    finally:
        proc.kill()
        proc.wait(10)
    times.sort()
    return {"busy_games": busy, "games": games, "seconds": seconds, "probe_requests": len(times),
            "median_ms": round(1000 * statistics.median(times), 1) if times else None,
            "p95_ms": round(1000 * times[int(0.95 * (len(times) - 1))], 1) if times else None,
            "max_ms": round(1000 * times[-1], 1) if times else None, "errors": len(errors),
            "error_kinds": sorted({str(e) for e in errors})}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--busy", type=int, default=48, help="games of maximal PIMC agents")
    p.add_argument("--games", type=int, default=200, help="ordinary games at once")
    p.add_argument("--seconds", type=float, default=30, help="how long the probe plays")
    args = p.parse_args(argv)
    print(json.dumps(run(args.busy, args.games, args.seconds), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
