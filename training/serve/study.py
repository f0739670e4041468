"""Study mode (``braincards serve --study STUDY.yaml``): a fixed protocol for human-partner
studies.

A study file names the game and its options, the games each participant plays and the
partner conditions, each with its seats (one ``human``) and the deals it is played on::

    game: the_brain
    options: {num_players: 3, difficulty: robber}
    games: 4
    out: runs/study-pilot
    conditions:
      - {name: learned, seats: [human, the_brain/ppo_3p, the_brain/ppo_3p], deals: [a, b]}
      - {name: rules, seats: [human, heuristic, heuristic], deals: [c, d]}

Participant number k (0, 1, ...; in the order they start) plays the conditions in the order
rotated by k (a Latin square: with two conditions AB, BA, AB, ...); game j has condition
``order[j mod C]`` and that condition's deal ``deals[(j div C) mod D]``. A deal is named by
an id (a number or a word; two conditions may name the same deal to be played under both):
the server draws a secret 128-bit seed for each id the first time it is needed and keeps
the ids and seeds in ``deals.json`` beside the results, so nobody can find a deal by trying
small seeds against the cards they see. A study whose participants would meet a deal twice
(``games`` > conditions x deals) is refused unless it says ``repeat_deals: true``. The results CSV (one
row per game) and the replays are written atomically as each game ends; the replay is named
after the participant's number (``participant0003-game2.jsonl``), never after the typed id.
A participant sees "partner 1", never a condition. The agents move on their own after
``pace_ms`` milliseconds (default 600), or, with ``step_mode: true``, when the participant
clicks "Next move": the study fixes both for everyone, so no participant changes them between
conditions.

The participants (id, number, token) are kept in ``participants.json`` beside the CSV,
written atomically whenever one starts: after a crash and a restart, numbers are never
handed out twice (the Latin square stays balanced) and a participant's token still works.
A game under way has its moves and decision times written atomically after every move
(``in_progress/participant0003.json``); after a crash and a restart it is back under the same
id at the same position, so the participant's page goes on where it was. The games finished
before are in the CSV and are not played again.
"""

from __future__ import annotations

import csv
import json
import re
import secrets
import threading
import time
from pathlib import Path

import yaml

from braincards.envs import get_spec
from braincards.training import files

from .session import HUMAN, RequestError, check_seats, seat_labels
from .study_forms import ANSWER_COLUMNS, answer_rows, check_answers, csv_text, load_forms

PARTICIPANT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
DEAL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
MAX_PACE_MS = 5000
IN_PROGRESS = "in_progress"  # the moves of each participant's game under way, beside the CSV
COLUMNS = ["participant", "participant_index", "game_index", "condition", "deal", "seed", "outcome",
           "won", "score", "team_score", "length", "decisions", "decision_time_mean_s",
           "decision_times_s", "replay"]


def load_study(path: str | Path) -> dict:
    """The study protocol in ``path``, checked (a ValueError names what is wrong)."""
    raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: a study file is a YAML mapping")
    allowed = {"game", "options", "games", "out", "conditions", "name", "repeat_deals", "pace_ms", "step_mode",
               "consent", "instructions", "questionnaire", "tutorial"}
    unknown = set(raw) - allowed
    if unknown:
        raise ValueError(f"{path}: unknown study keys {sorted(unknown)}; allowed: {sorted(allowed)}")
    pace = raw.get("pace_ms", 600)
    if not isinstance(pace, int) or isinstance(pace, bool) or not 0 <= pace <= MAX_PACE_MS:
        raise ValueError(f"{path}: 'pace_ms' (the wait before each agent move) must be an integer "
                         f"0..{MAX_PACE_MS}, got {pace!r}")
    if not isinstance(raw.get("tutorial", False), bool):
        raise ValueError(f"{path}: 'tutorial' must be true (participants may play the game's tutorial "
                         "before their first game) or false")
    if not isinstance(raw.get("step_mode", False), bool):
        raise ValueError(f"{path}: 'step_mode' must be true (the participant clicks for each agent move) or false")
    spec = get_spec(raw.get("game"))
    config = spec.check_options(dict(raw.get("options") or {}))
    games = raw.get("games")
    if not isinstance(games, int) or games < 1:
        raise ValueError(f"{path}: 'games' (per participant) must be an integer >= 1")
    conds = raw.get("conditions")
    if not isinstance(conds, list) or not conds:
        raise ValueError(f"{path}: 'conditions' must be a non-empty list")
    out = [_condition(path, spec, config, c) for c in conds]
    if not raw.get("repeat_deals", False):
        for c in out:
            plays = len(range(out.index(c), games, len(out)))  # the games a participant plays in it
            if plays > len(c["deals"]):
                raise ValueError(f"{path}: condition {c['name']!r} is played {plays} times per participant "
                                 f"but has {len(c['deals'])} deals: add deals, or say repeat_deals: true")
    return {"game": spec.id, "config": config, "games": games, "conditions": out,
            "out": Path(raw.get("out") or "study-results"), "pace_ms": pace,
            "step_mode": raw.get("step_mode", False), "tutorial": raw.get("tutorial", False),
            **load_forms(raw, str(path))}


def _condition(path, spec, config: dict, c) -> dict:
    """One condition of a study file, checked: name, seats (one ``human``) and deal ids."""
    if not isinstance(c, dict) or not c.get("name") or "seeds" in c or not c.get("deals"):
        raise ValueError(f"{path}: each condition needs a name, seats and deals (a list of deal ids; "
                         "'seeds' are no longer given: the server draws secret ones)")
    seats = check_seats(spec, config, list(c.get("seats") or []))
    if seats.count(HUMAN) != 1:
        raise ValueError(f"{path}: condition {c['name']!r} needs exactly one 'human' seat")
    deals = [str(d) for d in c["deals"]]
    if not all(isinstance(d, (int, str)) and not isinstance(d, bool) and DEAL_ID.fullmatch(str(d)) for d in c["deals"]):
        raise ValueError(f"{path}: condition {c['name']!r}: deal ids are short words or numbers, got {c['deals']}")
    if len(set(deals)) != len(deals):
        raise ValueError(f"{path}: condition {c['name']!r} names a deal twice")
    return {"name": str(c["name"]), "seats": seats, "deals": deals}


def schedule(study: dict, index: int) -> list[tuple[dict, str]]:
    """Participant ``index``'s games: ``(condition, deal id)`` each, counterbalanced."""
    conds = study["conditions"]
    c = len(conds)
    order = [conds[(index + k) % c] for k in range(c)]
    plan = []
    for j in range(study["games"]):
        cond = order[j % c]
        plan.append((cond, cond["deals"][(j // c) % len(cond["deals"])]))
    return plan


def partner_labels(spec, seats: list[str]) -> list[str]:
    """"you" and "partner k" / "opponent k": what a participant is told about the seats."""
    return seat_labels(spec, seats, policies=False)


class Study:
    """The running study: participants by token, the results rows, the CSV."""

    def __init__(self, study: dict, store):
        self.study = study
        self.store = store
        self.csv_path = study["out"] / "results.csv"
        self.registry_path = study["out"] / "participants.json"
        self.deals_path = study["out"] / "deals.json"
        self._deals: dict[str, int] = json.loads(self.deals_path.read_text()) if self.deals_path.is_file() else {}
        self.rows = read_rows(self.csv_path)
        self.answers_path = study["out"] / "answers.csv"
        self.answers = read_rows(self.answers_path)
        self._participants: dict[str, dict] = {}
        self._lock = threading.Lock()
        registered = json.loads(self.registry_path.read_text()) if self.registry_path.is_file() else []
        for entry in registered:  # a restart: every participant keeps their number and token
            done = sum(1 for r in self.rows if r["participant"] == entry["id"])
            self._participants[entry["token"]] = {"id": entry["id"], "index": entry["index"], "game": done - 1,
                                                  "plan": schedule(self.study, entry["index"]), "gid": None,
                                                  "consented": entry.get("consented")}
        for p in self._participants.values():
            saved = self._progress_path(p["index"])
            if saved.is_file() and json.loads(saved.read_text())["game"] == p["game"] + 1:
                self._resume(p, json.loads(saved.read_text()))
        self._seen = {p["id"] for p in self._participants.values()} | {r["participant"] for r in self.rows}
        self._next_index = 1 + max([p["index"] for p in self._participants.values()]
                                   + [int(r["participant_index"]) for r in self.rows], default=-1)

    def start(self, participant, consent: bool | None = None) -> dict:
        """A new participant (their id checked): numbered, given a token, their first game.
        A study with a consent text starts only those who agreed to it."""
        if self.study["consent"] and consent is not True:
            raise RequestError(422, "please read the consent form and agree to it to take part")
        participant = participant.strip() if isinstance(participant, str) else ""
        if not PARTICIPANT_ID.fullmatch(participant):
            raise RequestError(422, "a participant id is 1 to 64 letters, digits, '.', '_' or '-', "
                                    "starting with a letter or digit")
        with self._lock:
            if participant in self._seen:
                raise RequestError(409, f"participant {participant!r} has already taken part")
            self._seen.add(participant)
            index = self._next_index
            self._next_index += 1
            token = secrets.token_urlsafe(18)
            self._participants[token] = {"id": participant, "index": index, "game": -1,
                                         "plan": schedule(self.study, index), "gid": None,
                                         "consented": time.strftime("%Y-%m-%dT%H:%M:%S%z") if consent else None}
            entries = [{"id": p["id"], "index": p["index"], "token": t, "consented": p.get("consented")}
                       for t, p in self._participants.items()]
            files.write_text(self.registry_path, json.dumps(entries, indent=1) + "\n")
        return self.next_game(token)

    def next_game(self, token: str) -> dict:
        """The participant's next game (once the current one is over), or done."""
        p = self._participants.get(token)
        if p is None:
            raise RequestError(404, "no such participant session")
        if p["gid"] is not None and not self.store.get(p["gid"]).over:
            raise RequestError(409, "finish the current game first")
        if self._unanswered(p):
            raise RequestError(409, "please answer the questions about the game you just played first")
        p["game"] += 1
        total = len(p["plan"])
        if p["game"] >= total:
            return {"token": token, "done": True, "total": total}
        session = self._open(p)
        self.progress(session)  # its id is on disk before the page can ask for it
        return self.current(token)

    def current(self, token: str) -> dict:
        """Where the participant is: their game under way (its id, number and the total), or
        done. A page that lost its address asks this (``GET /api/study/TOKEN``)."""
        p = self._participants.get(token)
        if p is None:
            raise RequestError(404, "no such participant session")
        total = len(p["plan"])
        if p["game"] >= total:
            return {"token": token, "done": True, "total": total}
        if self._unanswered(p):  # a finished game whose questionnaire is still to come
            return {"token": token, "done": False, "game": p["gid"], "number": p["game"] + 1, "total": total,
                    "questions": True}
        if p["gid"] is None:  # between two games (a restart after a game ended): the page asks for the next
            return {"token": token, "done": False, "game": None, "number": p["game"] + 2, "total": total}
        return {"token": token, "done": False, "game": p["gid"], "number": p["game"] + 1, "total": total}

    # ------------------------------------------------------------------ the questionnaire
    def _unanswered(self, p: dict) -> bool:
        """Whether the participant's last game is over and its questionnaire not answered."""
        if not self.study["questionnaire"] or p["game"] < 0:
            return False
        if p["gid"] is not None and not self.store.get(p["gid"]).over:
            return False
        index = str(p["game"])
        return not any(r["participant"] == p["id"] and r["game_index"] == index for r in self.answers)

    def answer(self, token: str, answers) -> dict:
        """The questionnaire about the participant's game just played: checked, then one row
        per item added to ``answers.csv`` (rewritten atomically); returns :meth:`current`."""
        p = self._participants.get(token)
        if p is None:
            raise RequestError(404, "no such participant session")
        if not self._unanswered(p):
            raise RequestError(409, "there is no questionnaire to answer now")
        checked = check_answers(self.study["questionnaire"], answers)
        cond, _ = p["plan"][p["game"]]
        info = {"participant": p["id"], "index": p["index"], "game": p["game"], "condition": cond["name"]}
        with self._lock:
            self.answers += [{k: str(v) for k, v in row.items()}
                             for row in answer_rows(self.study["questionnaire"], info, checked)]
            files.write_text(self.answers_path, csv_text(self.answers, ANSWER_COLUMNS))
        return self.current(token)

    def _open(self, p: dict, gid: str | None = None):
        """Participant ``p``'s game number ``p["game"]`` as a new session (``gid``: its id
        from before a restart)."""
        cond, deal = p["plan"][p["game"]]
        spec = get_spec(self.study["game"])
        gid, session = self.store.create(spec.id, self.study["config"], cond["seats"], self._seed(deal),
                                         labels=partner_labels(spec, cond["seats"]), gid=gid)
        session.study = {"participant": p["id"], "index": p["index"], "game": p["game"],
                         "condition": cond["name"], "deal": deal, "gid": gid}
        session.replay_name = f"participant{p['index']:04d}-game{p['game'] + 1}.jsonl"
        p["gid"] = gid
        return session

    # ------------------------------------------------------------------ games under way
    def _progress_path(self, index: int) -> Path:
        return self.study["out"] / IN_PROGRESS / f"participant{index:04d}.json"

    def progress(self, session) -> None:
        """After every move of a study game (under its lock): its moves and decision times so
        far, written atomically, so that a restart brings the game back where it was."""
        info = session.study
        if info is None or session.over:
            return
        data = {"participant": info["participant"], "index": info["index"], "game": info["game"],
                "gid": info["gid"], "actions": [s["action"] for s in session.steps],
                "decision_times": list(session.decision_times)}
        files.write_text(self._progress_path(info["index"]), json.dumps(data) + "\n")

    def _resume(self, p: dict, saved: dict) -> None:
        """Bring back a game that was under way when the server stopped: the same id, deal and
        seats, its moves played again in order (each agent move asked of its policy again, so
        a seeded policy's state is as it was), its decision times kept. The person's clock
        for the decision they were on starts again when the page shows it."""
        p["game"] = saved["game"]
        session = self._open(p, gid=saved["gid"])
        with session.lock:
            for action in saved["actions"]:
                if session.to_act != session.human:
                    session.table.policy_action()  # the policy's own state moves on as it did
                session._apply(action)
            session.decision_times = list(saved["decision_times"])

    def _seed(self, deal: str) -> int:
        """The secret seed of deal ``deal``: drawn (128 bits) the first time, kept in deals.json."""
        with self._lock:
            if deal not in self._deals:
                self._deals[deal] = secrets.randbits(128)
                files.write_text(self.deals_path, json.dumps(self._deals, indent=1, sort_keys=True) + "\n")
            return self._deals[deal]

    def record(self, session) -> None:
        """A study game ended: its row is added and the whole CSV rewritten atomically."""
        info = session.study
        if info is None:
            return
        res = session.result()
        seat = session.agents.index(session.human)
        times = session.decision_times
        row = {"participant": info["participant"], "participant_index": info["index"],
               "game_index": info["game"], "condition": info["condition"], "deal": info["deal"],
               "seed": session.seed,
               "outcome": res["outcome"], "won": int(res["wins"][seat]),
               "score": res["scores"][seat],
               # a cooperative game's score is the team's, the same for every seat
               "team_score": res["scores"][seat] if get_spec(self.study["game"]).cooperative else "",
               "length": res["length"], "decisions": len(times),
               "decision_time_mean_s": round(sum(times) / len(times), 3) if times else "",
               "decision_times_s": ";".join(f"{t:.3f}" for t in times),
               "replay": session.replay_name}
        with self._lock:
            self.rows.append(row)
            files.write_text(self.csv_path, csv_text(self.rows, COLUMNS))
            self._progress_path(info["index"]).unlink(missing_ok=True)  # the row holds it now


def read_rows(path: Path) -> list[dict]:
    """The rows of a study's results CSV (none when it does not exist yet)."""
    if not path.is_file():
        return []
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))
