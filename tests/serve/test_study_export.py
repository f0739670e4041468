"""``braincards study-export``: every decision of the person's seat in a study, replayed from
its replays into (observation, mask, action, time, condition), split by participant."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from fastapi.testclient import TestClient

from braincards.envs import make
from braincards.training.cli.main import main
from braincards.training.serve import create_app
from braincards.training.serve.study_export import export_study, split_participants

from .test_study import LOCAL, play_study_game, write_study


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """A finished study: five participants, two games each, played through the API."""
    tmp = tmp_path_factory.mktemp("study")
    with TestClient(create_app(study=write_study(tmp)), base_url=LOCAL) as client:
        for participant in ("p-01", "p-02", "p-03", "p-04", "p-05"):
            res = client.post("/api/study/start", json={"participant": participant}).json()
            while not res["done"]:
                play_study_game(client, res["game"])
                res = client.post(f"/api/study/{res['token']}/next").json()
    return tmp / "results"


def test_every_human_decision_is_exported_as_the_env_showed_it(study, tmp_path):
    manifest = export_study(study, tmp_path, test_share=0.4, seed=3)
    data = np.load(tmp_path / "decisions.npz")
    rows = list(csv.DictReader((study / "results.csv").read_text().splitlines()))
    assert len(data["action"]) == manifest["decisions"] == sum(int(r["decisions"]) for r in rows)
    times = [float(t) for r in rows for t in r["decision_times_s"].split(";")]
    assert np.allclose(data["time_s"], times)
    assert manifest["conditions"] == ["cond-learned", "cond-rules"]
    # replay the first game by hand: the rows are the env's observations at the person's seat
    first = rows[0]
    replay = [json.loads(line) for line in (study / "replays" / first["replay"]).read_text().splitlines()]
    env = make("the_brain_v0", raw=True, **replay[0]["config"])
    env.reset(seed=replay[0]["env_seed"])
    k = 0
    for step in replay[1:-1]:
        if step["agent"] == "player_0":  # the person's seat (seats: [human, partner])
            obs = env.observe("player_0")
            assert np.array_equal(data["observation"][k], obs["observation"])
            assert np.array_equal(data["action_mask"][k], obs["action_mask"])
            assert data["action"][k] == step["action"] and data["action_mask"][k][step["action"]] == 1
            k += 1
        env.step(step["action"])
    assert k == int(first["decisions"])


def test_the_split_is_by_participant(study, tmp_path):
    manifest = export_study(study, tmp_path, test_share=0.4, seed=3)
    data = np.load(tmp_path / "decisions.npz")
    split = manifest["split"]
    assert len(split["test"]) == 2 and len(split["train"]) == 3 and not set(split["test"]) & set(split["train"])
    for n in range(5):
        rows = data["participant"] == n
        assert rows.any() and len(set(data["test"][rows])) == 1  # nobody's decisions in both splits
        assert bool(data["test"][rows][0]) == (n in split["test"])
    assert export_study(study, tmp_path / "again", test_share=0.4, seed=3)["split"] == split  # seeded


def test_split_sizes_and_bad_shares():
    assert split_participants([0, 1, 2, 3, 4], 0.2, 0) and len(split_participants(list(range(10)), 0.2, 0)) == 2
    assert len(split_participants([0, 1], 0.01, 0)) == 1  # at least one when there are two or more
    assert len(split_participants([0, 1], 0.9, 0)) == 1  # and never everyone
    assert split_participants([0], 0.2, 0) == set() and split_participants([0, 1, 2], 0.0, 0) == set()
    with pytest.raises(ValueError, match="test_share=1.5 must be in \\[0, 1\\)"):
        split_participants([0, 1], 1.5, 0)


def test_the_command_and_its_errors(study, tmp_path, capsys):
    assert main(["study-export", str(study), "--out", str(tmp_path / "x")]) == 0
    assert "participants (4 train, 1 test)" in capsys.readouterr().out
    assert main(["study-export", str(tmp_path / "empty"), "--out", str(tmp_path / "y")]) == 2
    assert "no finished game (results.csv is missing or empty)" in capsys.readouterr().err


def test_a_replay_that_disagrees_with_the_results_is_refused(study, tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "replays").symlink_to(study / "replays")
    rows = list(csv.DictReader((study / "results.csv").read_text().splitlines()))
    rows[0]["decision_times_s"] += ";1.0"
    with open(broken / "results.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(ValueError, match="decisions of the person in the replay, .* times in results.csv"):
        export_study(broken, tmp_path / "out")
