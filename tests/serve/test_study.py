"""Study mode: a fixed, counterbalanced protocol; the results CSV and the replays are written
as games end; a participant never sees a condition's name or its policies; the command line
binds 127.0.0.1 unless told otherwise, and warns when it is."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from braincards.envs import get_spec
from braincards.training.cli import serve as serve_cli
from braincards.training.cli.main import extra_for_missing_module, main
from braincards.training.evaluation.replay import read_replay, replay_env
from braincards.training.serve import create_app
from braincards.training.serve.study import load_study, schedule

ROOT = Path(__file__).resolve().parents[2]
LOCAL = "http://localhost"  # the Host the app answers to
STUDY = """\
game: the_brain
options: {{num_players: 2, difficulty: robber}}
games: 2
out: {out}
pace_ms: 0
conditions:
  - {{name: cond-learned, seats: [human, random], deals: [d101, d102]}}
  - {{name: cond-rules, seats: [human, heuristic], deals: [d202, d203]}}
"""


def write_study(tmp_path, games=2):
    path = tmp_path / "study.yaml"
    path.write_text(STUDY.format(out=tmp_path / "results").replace("games: 2", f"games: {games}"))
    return path


def test_conditions_are_counterbalanced_with_fixed_seeds(tmp_path):
    study = load_study(write_study(tmp_path, games=4))
    first = [(c["name"], s) for c, s in schedule(study, 0)]
    second = [(c["name"], s) for c, s in schedule(study, 1)]
    assert first == [("cond-learned", "d101"), ("cond-rules", "d202"), ("cond-learned", "d102"), ("cond-rules", "d203")]
    assert second == [("cond-rules", "d202"), ("cond-learned", "d101"), ("cond-rules", "d203"), ("cond-learned", "d102")]


@pytest.mark.parametrize("bad", ["games: 0", "conditions: []", "colour: red",
                                 "conditions: [{name: a, seats: [random, random], deals: [x]}]",
                                 "conditions: [{name: a, seats: [human, random], seeds: [1]}]",
                                 "conditions: [{name: a, seats: [human, random], deals: [x, x]}]",
                                 "conditions: [{name: a, seats: [human, random], deals: ['=cmd()']}]",
                                 "pace_ms: -1", "pace_ms: 99999", "pace_ms: fast", "step_mode: sometimes",
                                 "tutorial: maybe"])
def test_a_bad_study_file_is_refused(tmp_path, bad):
    path = tmp_path / "bad.yaml"
    key = bad.split(":")[0]
    drop = (key, "  - ") if key == "conditions" else (key,)
    text = "\n".join(line for line in write_study(tmp_path).read_text().splitlines()
                     if not line.startswith(drop))
    path.write_text(text + "\n" + bad + "\n")
    with pytest.raises(ValueError, match=key if key != "conditions" else "condition"):
        load_study(path)


def play_study_game(client, gid) -> list[str]:
    """Play one study game through the API; every response body the participant got."""
    bodies = [client.get(f"/api/games/{gid}").text]
    view = client.get(f"/api/games/{gid}").json()
    while not view["over"]:
        path = "advance" if view["agents_turn"] else "move"
        body = {"step": view["step"]} | ({} if view["agents_turn"] else {"action": view["moves"][0]["action"]})
        r = client.post(f"/api/games/{gid}/{path}", json=body)
        assert r.status_code == 200, r.text
        bodies.append(r.text)
        view = r.json()
    return bodies


def test_a_study_run_writes_its_csv_and_replays_and_hides_the_conditions(tmp_path):
    app = create_app(study=write_study(tmp_path))
    with TestClient(app, base_url=LOCAL) as client:
        assert client.post("/api/games", json={"game": "the_brain", "seats": ["human"]}).status_code == 403
        assert client.get("/api/replays").status_code == 403
        seen = [client.get("/api/meta").text]
        for participant in ("p-01", "p-02"):
            res = client.post("/api/study/start", json={"participant": participant}).json()
            while not res["done"]:
                seen += play_study_game(client, res["game"])
                res = client.post(f"/api/study/{res['token']}/next").json()
                seen.append(str(res))
        again = client.post("/api/study/start", json={"participant": "p-01"})
        assert again.status_code == 409
    text = "\n".join(seen)
    for secret in ("cond-learned", "cond-rules", "heuristic", "random"):
        assert secret not in text
    assert "partner 1" in text
    rows = list(csv.DictReader((tmp_path / "results" / "results.csv").read_text().splitlines()))
    assert [(r["participant"], r["condition"], r["deal"]) for r in rows] == [
        ("p-01", "cond-learned", "d101"), ("p-01", "cond-rules", "d202"),
        ("p-02", "cond-rules", "d202"), ("p-02", "cond-learned", "d101")]
    deals = json.loads((tmp_path / "results" / "deals.json").read_text())
    assert sorted(deals) == ["d101", "d202"] and all(2**64 < v < 2**128 for v in deals.values())
    assert {r["deal"]: int(r["seed"]) for r in rows} == deals  # one secret seed per deal, every time
    for r in rows:
        assert r["outcome"] in ("1", "-1") and int(r["decisions"]) == len(r["decision_times_s"].split(";"))
        replay = read_replay(tmp_path / "results" / "replays" / r["replay"])
        assert replay_env(replay).state.outcome == int(r["outcome"])


def test_serve_binds_localhost_and_warns_when_exposed(monkeypatch, capsys, tmp_path):
    calls = []
    monkeypatch.setattr(serve_cli.uvicorn, "run", lambda app, **kw: calls.append(kw))
    assert main(["serve", "--replays", str(tmp_path)]) == 0
    assert calls[-1]["host"] == "127.0.0.1" and "warning" not in capsys.readouterr().err
    assert main(["serve", "--host", "0.0.0.0", "--port", "8765", "--replays", str(tmp_path)]) == 0
    assert calls[-1] == {"host": "0.0.0.0", "port": 8765, "log_level": "warning"}
    assert "warning: serving on 0.0.0.0" in capsys.readouterr().err


def test_evaluate_record_writes_replays_that_rebuild_each_game(tmp_path, capsys):
    out = tmp_path / "rec"
    assert main(["evaluate", "oh_my_brain", "--seat", "heuristic", "--seat", "random", "--games", "3",
                 "--quiet", "--record", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == ["game00000.jsonl", "game00001.jsonl", "game00002.jsonl"]
    for name in names:
        replay = read_replay(out / name)
        env = replay_env(replay)
        assert replay["result"]["length"] == len(replay["steps"])
        assert replay["result"]["scores"] == get_spec(replay["header"]["game"]).scores(env.state)
        assert sum(replay["result"]["returns"]) == pytest.approx(
            sum(sum(s["rewards"].values()) for s in replay["steps"]))


def test_the_shipped_example_study_loads():
    study = load_study(ROOT / "configs" / "study.yaml")
    assert [c["name"] for c in study["conditions"]] == ["learned", "rules"]


def test_a_missing_web_extra_is_named_with_its_install_hint():
    assert extra_for_missing_module(ModuleNotFoundError("no fastapi", name="fastapi")) == "web"
    assert extra_for_missing_module(ModuleNotFoundError("no uvicorn", name="uvicorn")) == "web"


def test_ids_that_differ_only_in_punctuation_keep_their_own_replays_and_rows(tmp_path):
    """Replay names come from the participant's number, never from the typed id: "x.y" and
    "x_y" each keep their file (they once shared one, the last writer's)."""
    app = create_app(study=write_study(tmp_path, games=1))
    with TestClient(app, base_url=LOCAL) as client:
        for participant in ("x.y", "x_y", "x-y"):
            res = client.post("/api/study/start", json={"participant": participant}).json()
            play_study_game(client, res["game"])
            assert client.post(f"/api/study/{res['token']}/next").json()["done"]
    rows = list(csv.DictReader((tmp_path / "results" / "results.csv").read_text().splitlines()))
    assert [r["replay"] for r in rows] == [f"participant{k:04d}-game1.jsonl" for k in range(3)]
    for r in rows:
        replay = read_replay(tmp_path / "results" / "replays" / r["replay"])
        assert len(replay["steps"]) == int(r["length"])


@pytest.mark.parametrize("participant", ["=HYPERLINK(\"http://x\")", "a\nb", "", " ", "\"quoted\"",
                                         "-1+2", "x" * 65, 42, None])
def test_participant_ids_are_checked_before_they_reach_the_csv(tmp_path, participant):
    app = create_app(study=write_study(tmp_path))
    with TestClient(app, base_url=LOCAL) as client:
        r = client.post("/api/study/start", json={"participant": participant})
    assert r.status_code == 422, r.text
    assert not (tmp_path / "results" / "results.csv").exists()


def test_the_team_score_is_the_teams_not_the_sum_over_seats(tmp_path):
    """The Brain's score is the team's cards out: every seat has it, so the team's is that
    number, not n times it (28 cards out was once recorded as 56 at 2 players)."""
    app = create_app(study=write_study(tmp_path, games=1))
    with TestClient(app, base_url=LOCAL) as client:
        res = client.post("/api/study/start", json={"participant": "p1"}).json()
        play_study_game(client, res["game"])
        client.post(f"/api/study/{res['token']}/next")
    (row,) = csv.DictReader((tmp_path / "results" / "results.csv").read_text().splitlines())
    assert row["team_score"] == row["score"] and 0 < float(row["score"]) <= 36


def test_after_a_crash_numbers_are_not_handed_out_twice_and_tokens_still_work(tmp_path):
    """A server killed mid-study (nothing shut down: the app is dropped) and started again on
    the same results folder: the participant who finished game 1 goes on with game 2 under
    the same token, the game under way is back where it was, and the next participant gets a
    new number (the Latin square stays balanced)."""
    study = write_study(tmp_path, games=2)
    with TestClient(create_app(study=study), base_url=LOCAL) as client:
        first = client.post("/api/study/start", json={"participant": "p-01"}).json()
        play_study_game(client, first["game"])
        second_game = client.post(f"/api/study/{first['token']}/next").json()
        assert second_game["number"] == 2
        other = client.post("/api/study/start", json={"participant": "p-02"}).json()
        view = client.get(f"/api/games/{other['game']}").json()
        path = "advance" if view["agents_turn"] else "move"
        body = {"step": 0} | ({} if view["agents_turn"] else {"action": view["moves"][0]["action"]})
        assert client.post(f"/api/games/{other['game']}/{path}", json=body).status_code == 200
    with TestClient(create_app(study=study), base_url=LOCAL) as client:  # the restart
        resumed = client.get(f"/api/study/{first['token']}").json()
        assert resumed == {**second_game, "token": first["token"]}  # game 2, under the same id
        again = client.get(f"/api/study/{other['token']}").json()
        assert again["number"] == 1 and again["game"] == other["game"]  # its game 1, where it was
        assert client.get(f"/api/games/{other['game']}").json()["step"] == 1
        assert client.post(f"/api/study/{other['token']}/next").status_code == 409  # finish it first
        assert client.post("/api/study/start", json={"participant": "p-01"}).status_code == 409
        third = client.post("/api/study/start", json={"participant": "p-03"}).json()
        play_study_game(client, third["game"])
        client.post(f"/api/study/{third['token']}/next")
    rows = list(csv.DictReader((tmp_path / "results" / "results.csv").read_text().splitlines()))
    assert [(r["participant"], r["participant_index"], r["condition"]) for r in rows] == [
        ("p-01", "0", "cond-learned"), ("p-03", "2", "cond-learned")]


def test_a_study_that_would_repeat_a_deal_must_say_so(tmp_path):
    path = write_study(tmp_path, games=6)  # 3 games per condition, 2 deals each
    with pytest.raises(ValueError, match="played 3 times per participant but has 2 deals"):
        load_study(path)
    path.write_text(path.read_text() + "repeat_deals: true\n")
    assert load_study(path)["games"] == 6


def test_secret_seeds_survive_a_restart_and_a_shared_deal_id_is_one_deal(tmp_path):
    path = tmp_path / "study.yaml"
    path.write_text(STUDY.format(out=tmp_path / "results").replace("deals: [d202, d203]", "deals: [d101, d203]"))
    seeds = []
    for participant in ("p1", "p2"):  # a restart between them
        with TestClient(create_app(study=path), base_url=LOCAL) as client:
            res = client.post("/api/study/start", json={"participant": participant}).json()
            while not res["done"]:
                play_study_game(client, res["game"])
                res = client.post(f"/api/study/{res['token']}/next").json()
        seeds.append(json.loads((tmp_path / "results" / "deals.json").read_text()))
    assert seeds[0] == seeds[1] and list(seeds[0]) == ["d101"]  # both conditions played deal d101
    rows = list(csv.DictReader((tmp_path / "results" / "results.csv").read_text().splitlines()))
    assert {int(r["seed"]) for r in rows} == {seeds[0]["d101"]}


def _play_some(client, gid, moves):
    """``moves`` moves of the study game ``gid`` (the person takes their first legal move)."""
    for _ in range(moves):
        view = client.get(f"/api/games/{gid}").json()
        body = {"step": view["step"]} | ({} if view["agents_turn"] else {"action": view["moves"][0]["action"]})
        path = "advance" if view["agents_turn"] else "move"
        assert client.post(f"/api/games/{gid}/{path}", json=body).status_code == 200


DEAL = 2**100 + 7  # a deal whose game lasts well past the crash at move 9


def test_a_game_under_way_resumes_at_the_same_position_after_a_crash(tmp_path):
    """Issue 42.1: every move of a study game is on disk when it is answered. A server
    dropped mid-game and started again shows the same game (same id, step, cards and log)
    and plays on to the very end the game would have had; the CSV row counts every decision
    of the person, before and after the crash, and the saved moves are gone once it is in."""
    study = tmp_path / "study.yaml"
    study.write_text(STUDY.format(out=tmp_path / "results").replace("[human, random]", "[human, heuristic]"))
    (tmp_path / "results").mkdir()  # a fixed deal (a secret one could end within 9 moves)
    (tmp_path / "results" / "deals.json").write_text(json.dumps({"d101": DEAL}))
    with TestClient(create_app(study=study), base_url=LOCAL) as client:
        start = client.post("/api/study/start", json={"participant": "p-01"}).json()
        gid = start["game"]
        _play_some(client, gid, 9)
        before = client.get(f"/api/games/{gid}").json()
        saved = json.loads((tmp_path / "results" / "in_progress" / "participant0000.json").read_text())
        assert len(saved["actions"]) == before["step"] == 9 and saved["gid"] == gid
    with TestClient(create_app(study=study), base_url=LOCAL) as client:
        after = client.get(f"/api/games/{gid}").json()
        assert after == before
        assert client.get(f"/api/study/{start['token']}").json() == start
        play_study_game(client, gid)
        rows = list(csv.DictReader((tmp_path / "results" / "results.csv").read_text().splitlines()))
        final = client.get(f"/api/games/{gid}").json()
    assert not (tmp_path / "results" / "in_progress" / "participant0000.json").exists()
    # the same person without a crash, on the same secret deal: the same game, move for move
    again = tmp_path / "again"
    (again / "results").mkdir(parents=True)
    (again / "results" / "deals.json").write_text((tmp_path / "results" / "deals.json").read_text())
    (again / "study.yaml").write_text(study.read_text().replace(str(tmp_path / "results"), str(again / "results")))
    with TestClient(create_app(study=again / "study.yaml"), base_url=LOCAL) as client:
        play_study_game(client, client.post("/api/study/start", json={"participant": "p-01"}).json()["game"])
    replays = [read_replay(d / "results" / "replays" / "participant0000-game1.jsonl") for d in (tmp_path, again)]
    assert [s["action"] for s in replays[0]["steps"]] == [s["action"] for s in replays[1]["steps"]]
    human = sum(1 for s in replays[0]["steps"] if s["agent"] == final["you"])
    assert len(rows) == 1 and int(rows[0]["decisions"]) == human == len(rows[0]["decision_times_s"].split(";"))
    assert len(replays[0]["steps"]) > 9 and human >= 1  # it went on after the crash


def test_the_study_fixes_the_agents_pace_and_step_mode_for_everyone(tmp_path):
    """Issue 42.3: the pace and step mode come from the study file (the page offers no
    control of them in a study); a study that says nothing waits 600 ms per agent move."""
    path = write_study(tmp_path)
    with TestClient(create_app(study=path), base_url=LOCAL) as client:
        assert client.get("/api/meta").json() == {"study": True, "games": [], "pace_ms": 0, "step_mode": False,
                                                  "tutorial": None, "consent": None, "instructions": None, "questionnaire": []}
    path.write_text(path.read_text().replace("pace_ms: 0", "step_mode: true"))
    with TestClient(create_app(study=path), base_url=LOCAL) as client:
        meta = client.get("/api/meta").json()
        assert (meta["pace_ms"], meta["step_mode"]) == (600, True)


FORMS = """\
consent: |
  You are invited to play card games with computer partners.

  Your moves and answers are kept under a number, never your name.
instructions: |
  Play each game as well as you can.
questionnaire:
  - {id: enjoy, text: "I enjoyed playing with my partner.", scale: 7, low: not at all, high: very much}
  - {id: attention, text: "To show you read this, choose 2.", scale: 5, expect: 2}
  - {id: comments, text: "Anything you noticed?", free_text: true, required: false}
"""


def write_forms_study(tmp_path, games=2):
    path = write_study(tmp_path, games)
    path.write_text(path.read_text() + FORMS)
    return path


@pytest.mark.parametrize("bad, message", [
    ("consent: 5", "'consent' must be a text"),
    ("questionnaire: {a: 1}", "'questionnaire' must be a list"),
    ("questionnaire: [{id: q, text: x, scale: 1}]", r"'scale' \(the Likert points\) must be an integer 2..11"),
    ("questionnaire: [{id: q, text: x, scale: 5, expect: 6}]", r"'expect' \(an attention check's answer\) must be one of 1..5"),
    ("questionnaire: [{id: q, text: x, free_text: true, scale: 5}]", "a free-text item has no 'scale'"),
    ("questionnaire: [{id: Q, text: x, scale: 5}]", "'id' must be lower-case"),
    ("questionnaire: [{id: q, scale: 5}]", r"'text' \(the question\) is required"),
    ("questionnaire: [{id: q, text: x, scale: 5}, {id: q, text: y, scale: 3}]", "item ids must differ"),
    ("questionnaire: [{id: q, text: x, scale: 5, colour: red}]", "an item is a mapping with keys from"),
])
def test_a_bad_consent_or_questionnaire_is_refused(tmp_path, bad, message):
    path = write_study(tmp_path)
    path.write_text(path.read_text() + bad + "\n")
    with pytest.raises(ValueError, match=message):
        load_study(path)


def test_consent_is_required_and_kept_with_the_participant(tmp_path):
    """Issue 42.3: with a consent text, nobody starts without agreeing; the time they agreed
    is kept with their number. The page gets the texts and the items, never an attention
    check's expected answer."""
    with TestClient(create_app(study=write_forms_study(tmp_path)), base_url=LOCAL) as client:
        meta = client.get("/api/meta").json()
        assert meta["consent"].startswith("You are invited") and meta["instructions"] == "Play each game as well as you can."
        assert [q["id"] for q in meta["questionnaire"]] == ["enjoy", "attention", "comments"]
        assert all("expect" not in q for q in meta["questionnaire"])
        for consent in (None, False):
            r = client.post("/api/study/start", json={"participant": "p-01", "consent": consent})
            assert r.status_code == 422 and "agree" in r.json()["detail"]
        assert client.post("/api/study/start", json={"participant": "p-01", "consent": True}).status_code == 200
    entry = json.loads((tmp_path / "results" / "participants.json").read_text())[0]
    assert entry["id"] == "p-01" and entry["consented"][:4].isdigit()


def test_each_game_asks_its_questionnaire_before_the_next(tmp_path):
    """Issue 42.3: after a game, the next waits for the questionnaire; bad answers are refused
    naming the item; the answers land in answers.csv, one row per item with the condition,
    the attention check marked, a formula escaped; a restart keeps what was answered."""
    study = write_forms_study(tmp_path)
    with TestClient(create_app(study=study), base_url=LOCAL) as client:
        start = client.post("/api/study/start", json={"participant": "p-01", "consent": True}).json()
        token = start["token"]
        assert client.post(f"/api/study/{token}/answers", json={"answers": {}}).status_code == 409  # mid-game
        play_study_game(client, start["game"])
        assert client.post(f"/api/study/{token}/next").json()["detail"].startswith("please answer the questions")
        assert client.get(f"/api/study/{token}").json()["questions"] is True
        for answers, message in [({"enjoy": 8, "attention": 2}, "enjoy: choose one of 1..7"),
                                 ({"enjoy": True, "attention": 2}, "enjoy: choose one of 1..7"),
                                 ({"attention": 2}, "please answer: I enjoyed playing with my partner."),
                                 ({"enjoy": 3, "attention": 2, "mood": 1}, "no questionnaire item 'mood'"),
                                 ({"enjoy": 3, "attention": 2, "comments": "x" * 2001}, "at most 2,000 characters")]:
            r = client.post(f"/api/study/{token}/answers", json={"answers": answers})
            assert r.status_code == 422 and message in r.json()["detail"], r.text
        ok = client.post(f"/api/study/{token}/answers",
                         json={"answers": {"enjoy": 6, "attention": 3, "comments": "=HYPERLINK(\"x\")"}})
        assert ok.status_code == 200 and "questions" not in ok.json()
        assert client.post(f"/api/study/{token}/answers", json={"answers": {}}).status_code == 409  # answered
        second = client.post(f"/api/study/{token}/next").json()
        play_study_game(client, second["game"])
    with TestClient(create_app(study=study), base_url=LOCAL) as client:  # a restart before the answers
        assert client.get(f"/api/study/{token}").json()["questions"] is True
        client.post(f"/api/study/{token}/answers", json={"answers": {"enjoy": 2, "attention": 2}})
        assert client.post(f"/api/study/{token}/next").json()["done"] is True
    rows = list(csv.DictReader((tmp_path / "results" / "answers.csv").read_text().splitlines()))
    assert [(r["game_index"], r["condition"], r["item"], r["answer"], r["attention_ok"]) for r in rows] == [
        ("0", "cond-learned", "enjoy", "6", ""), ("0", "cond-learned", "attention", "3", "0"),
        ("0", "cond-learned", "comments", "'=HYPERLINK(\"x\")", ""),
        ("1", "cond-rules", "enjoy", "2", ""), ("1", "cond-rules", "attention", "2", "1"),
        ("1", "cond-rules", "comments", "", "")]
