"""A hostile probe of ``braincards serve``'s HTTP API: every request below is bad, and each
must be refused with a 4xx whose message names no server path; a 500 (or any 2xx to a bad
request) is a defect. Run in process (FastAPI's test client), free play and a study.

Families:

* hosts and origins: foreign, rebinding and malformed Host headers; foreign Origins;
* bodies: not JSON, JSON of every wrong type for every field of every POST route, unknown
  fields, deep nesting, bodies over the size limit;
* values: actions and steps of every wrong kind (-1, 10**30, true, "1", 1.5, null, lists),
  seeds out of range, unknown games and options, hostile seat specs (unknown kinds, search
  over the budget, missing checkpoints, path traversal, 300 characters), stale and
  out-of-turn moves;
* paths: replay names and game ids (traversal, NUL, 300 characters, unicode);
* a study: hostile participant ids (formulas, newlines, 10,000 characters), tokens,
  answers, free-play routes closed.

    python benchmarks/serve_probe.py            # prints the counts (a few seconds)
    python benchmarks/serve_probe.py --json     # and every refused request's status
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import warnings
from collections import Counter
from pathlib import Path

from fastapi.testclient import TestClient

from braincards.training.serve import create_app
from braincards.training.serve.guard import MAX_BODY

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.serve.test_study import STUDY  # noqa: E402

LOCAL = "http://localhost"
WRONG = [-1, 10**30, -(10**30), True, False, "1", "", 1.5, None, [], [1], {}, {"a": 1}, "x" * 300]
GAME = {"game": "the_brain", "options": {"num_players": 2}, "seats": ["human", "heuristic"]}
# the study of the study tests, with a tutorial and a questionnaire to probe as well
EXTRA = 'tutorial: true\nquestionnaire:\n  - {id: enjoy, text: "I enjoyed it.", scale: 5}\n'


class Probe:
    """Sends requests and counts what came back; remembers every one that was not a clean 4xx."""

    def __init__(self, client: TestClient, secrets: tuple[str, ...]):
        self.client = client
        self.secrets = secrets  # strings no response may contain (install and data paths)
        self.status = Counter()
        self.bad: list[dict] = []
        self.leaks: list[dict] = []

    def send(self, method: str, path: str, *, expect_ok: bool = False, **kw) -> int:
        r = self.client.request(method, path, **kw)
        self.status[f"{r.status_code // 100}xx"] += 1
        body = r.text
        if any(s in body for s in self.secrets):
            self.leaks.append({"path": path, "status": r.status_code, "body": body[:200]})
        if r.status_code >= 500 or (not expect_ok and r.status_code < 400):
            self.bad.append({"method": method, "path": path, "status": r.status_code, "sent": repr(kw)[:200],
                             "body": body[:200]})
        return r.status_code


def _live_game(client: TestClient) -> tuple[str, dict]:
    r = client.post("/api/games", json=GAME | {"seed": 3})
    return r.json()["id"], r.json()["view"]


def probe_hosts(p: Probe) -> None:
    for host in ("evil.example", "localhost.evil.example", "127.0.0.1.nip.io", "", "[::1", "a" * 300, "localhost:99999x"):
        p.send("GET", "/api/meta", headers={"Host": host})
    for origin in ("https://evil.example", "null", "http://localhost.evil.example", "file://"):
        p.send("POST", "/api/games", json=GAME, headers={"Origin": origin})


def probe_bodies(p: Probe, gid: str) -> None:
    routes = {"/api/games": GAME, f"/api/games/{gid}/move": {"action": 0, "step": 0},
              f"/api/games/{gid}/advance": {"step": 0}, "/api/replay-view": {"replay": "", "step": 0, "viewer": None}}
    for path, good in routes.items():
        for raw in (b"", b"{", b"not json", b"[]", b"null", b"1", b'{"a":' * 2000):
            p.send("POST", path, content=raw, headers={"content-type": "application/json"})
        p.send("POST", path, json=good | {"unknown_field": 1})
        p.send("POST", path, content=b"x" * (MAX_BODY + 1), headers={"content-type": "application/json"})
        for key in good:
            for value in WRONG:
                if path.endswith("/advance") and key == "step" and value == 0:
                    continue
                p.send("POST", path, json=good | {key: value})


def probe_values(p: Probe) -> None:
    for value in (-1, 2**128, 1.5, True, "7", [1]):
        p.send("POST", "/api/games", json=GAME | {"seed": value})
    for game in ("chess", "the_brain_v9", "", "../the_brain", "x" * 300):
        p.send("POST", "/api/games", json=GAME | {"game": game})
    for options in ({"num_players": 9}, {"num_players": "2"}, {"difficulty": "god"}, {"colour": 1},
                    {"num_players": 2, "hand_size": 99}, {"render_mode": "human", "num_players": 2}):
        p.send("POST", "/api/games", json=GAME | {"options": options})
    for seat in ("nobody", "pimc:samples=100000", "pimc:nodes=abc", "the_brain/no_such_checkpoint",
                 "../../../etc/passwd", "/etc/passwd.zip", "checkpoint:path=/etc/passwd", "x" * 300,
                 "human", "guided:checkpoint=the_brain/ppo_3p,judge=pimc,samples=999", "heuristic:style=wild"):
        p.send("POST", "/api/games", json=GAME | {"seats": ["human", seat]})
    for seats in ([], ["human"], ["human"] * 2, ["heuristic"] * 9, "human,heuristic", [1, 2], [None, "x"]):
        p.send("POST", "/api/games", json=GAME | {"seats": seats})
    gid, view = _live_game(p.client)
    legal = {m["action"] for m in view["moves"]}
    illegal = next(a for a in range(43) if a not in legal)
    step = view["step"]
    if view["agents_turn"]:
        p.send("POST", f"/api/games/{gid}/move", json={"action": 0, "step": step})  # not your turn
    else:
        p.send("POST", f"/api/games/{gid}/move", json={"action": illegal, "step": step})
        p.send("POST", f"/api/games/{gid}/advance", json={"step": step})  # your turn, not an agent's
    for stale in (step + 1, step - 1, 10**9):
        p.send("POST", f"/api/games/{gid}/move", json={"action": min(legal or {0}), "step": stale})
        p.send("POST", f"/api/games/{gid}/advance", json={"step": stale})
    for g in ("chess", "x" * 300):
        p.send("POST", f"/api/tutorials/{g}")


def probe_paths(p: Probe) -> None:
    names = ("../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "x" * 300, "a%00b", "é.jsonl", ".jsonl",
             "../replays/x.jsonl", "%00", "CON")  # (a client folds "x/.." away before sending)
    for name in names:
        p.send("GET", f"/api/replays/{name}")
    for gid in ("nope", "x" * 300, "..%2Fmeta", "%00"):
        p.send("GET", f"/api/games/{gid}")
        p.send("POST", f"/api/games/{gid}/move", json={"action": 0, "step": 0})
    for replay in ("x" * 1000, '{"game": "the_brain"}', '{"header": {"game": "chess"}}\n',
                   '{"header": {"game": "the_brain", "config": {"num_players": 2}, "seed": 1, "seats": ["a", "b"]}}\n'
                   '{"agent": "player_0", "action": -1}\n'):
        for step in (0, -1, 10**30):
            p.send("POST", "/api/replay-view", json={"replay": replay, "step": step, "viewer": None})


def probe_study(p: Probe) -> None:
    for pid in ("", "=HYPERLINK(\"http://x\")", "a\nb", "a,b", '"q"', "x" * 10_000, "../p", "p\x00", "-p", "p" * 65):
        p.send("POST", "/api/study/start", json={"participant": pid, "consent": None})
    for body in ({}, {"participant": 1}, {"participant": "p1", "extra": 1}, {"participant": None}):
        p.send("POST", "/api/study/start", json=body)
    for token in ("nope", "x" * 300, "%00"):
        p.send("GET", f"/api/study/{token}")
        p.send("POST", f"/api/study/{token}/next")
        p.send("POST", f"/api/study/{token}/answers", json={"answers": {}})
    p.send("POST", "/api/games", json=GAME)  # free play is closed in a study
    p.send("GET", "/api/replays")
    p.send("POST", "/api/replay-view", json={"replay": "", "step": 0, "viewer": None})
    p.send("POST", "/api/tutorials/oh_my_brain")  # not the study's game
    ok = p.client.post("/api/study/start", json={"participant": "p1", "consent": None})
    token = ok.json()["token"]
    for answers in ({"enjoy": 9}, {"enjoy": "5"}, {"enjoy": None}, {"other": 1}, {"enjoy": 3, "x": "y"}, []):
        p.send("POST", f"/api/study/{token}/answers", json={"answers": answers})
    p.send("POST", "/api/study/start", json={"participant": "p1", "consent": None})  # taken part already


def run() -> dict:
    with warnings.catch_warnings(), tempfile.TemporaryDirectory() as tmp:
        warnings.simplefilter("ignore")
        tmp = Path(tmp)
        secrets = (str(ROOT), str(tmp), "site-packages", "Traceback")
        with TestClient(create_app(replay_dir=tmp / "replays"), base_url=LOCAL) as client:
            free = Probe(client, secrets)
            probe_hosts(free)
            gid, _ = _live_game(client)
            probe_bodies(free, gid)
            probe_values(free)
            probe_paths(free)
        (tmp / "study.yaml").write_text(STUDY.format(out=tmp / "results") + EXTRA)
        with TestClient(create_app(study=tmp / "study.yaml"), base_url=LOCAL) as client:
            study = Probe(client, secrets)
            probe_study(study)
    out = {}
    for name, p in (("free play", free), ("study", study)):
        out[name] = {"requests": sum(p.status.values()), "status": dict(sorted(p.status.items())),
                     "not a clean 4xx": p.bad, "leaks": p.leaks}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true", help="also print every request that was not a clean 4xx")
    args = ap.parse_args(argv)
    out = run()
    print("| server | bad requests | 4xx | 5xx | other | path leaks |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, r in out.items():
        s = r["status"]
        other = r["requests"] - s.get("4xx", 0) - s.get("5xx", 0)
        print(f"| {name} | {r['requests']} | {s.get('4xx', 0)} | {s.get('5xx', 0)} | {other} | {len(r['leaks'])} |")
    if args.json:
        print(json.dumps(out, indent=1))
    return 0 if all(not r["not a clean 4xx"] and not r["leaks"] for r in out.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
