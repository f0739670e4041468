"""``braincards proxy fit``: a train-split and a test-split behaviour-cloning proxy from a study
export, as checkpoints that seat like any policy; built and tested on scripted players (so they
are not human proxies, and say so)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from fastapi.testclient import TestClient

from braincards.training.agents.checkpoint import read_metadata
from braincards.training.agents.specs import make_policy
from braincards.training.cli.main import main
from braincards.training.evaluation.evaluate import evaluate
from braincards.training.learning.proxy import fit_proxies, read_export
from braincards.training.serve import create_app
from braincards.training.serve.study_export import export_study

from .test_study import LOCAL, write_study


def play_first_legal(client, gid) -> None:
    """A scripted participant: always the first move the page offers."""
    view = client.get(f"/api/games/{gid}").json()
    while not view["over"]:
        path = "advance" if view["agents_turn"] else "move"
        body = {"step": view["step"]} | ({} if view["agents_turn"] else {"action": view["moves"][0]["action"]})
        view = client.post(f"/api/games/{gid}/{path}", json=body).json()


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("proxy")
    with TestClient(create_app(study=write_study(tmp, games=4)), base_url=LOCAL) as client:
        for participant in ("s-1", "s-2", "s-3", "s-4"):
            res = client.post("/api/study/start", json={"participant": participant}).json()
            while not res["done"]:
                play_first_legal(client, res["game"])
                res = client.post(f"/api/study/{res['token']}/next").json()
    export_study(tmp / "results", tmp / "export", test_share=0.25, seed=1)
    return tmp / "export"


def test_two_proxies_fitted_on_disjoint_participants(export, tmp_path):
    report = fit_proxies(export, tmp_path, epochs=30, seed=0)
    manifest, arrays = read_export(export)
    train, test = report["proxies"]["train"], report["proxies"]["test"]
    assert train["participants"] == manifest["split"]["train"] and test["participants"] == manifest["split"]["test"]
    assert train["decisions"] + test["decisions"] == len(arrays["action"])
    # the scripted players always take the first legal move: a fitted proxy learns that rule
    assert train["agreement_own_split"] > 0.9 and train["agreement_other_split"] > 0.9
    meta = read_metadata(tmp_path / "proxy_test")
    assert meta["proxy"]["split"] == "test" and meta["proxy"]["human_data"] is False
    assert json.loads((tmp_path / "proxy.json").read_text())["proxies"]["test"]["decisions"] == test["decisions"]


def test_a_proxy_seats_like_any_policy(export, tmp_path):
    fit_proxies(export, tmp_path, epochs=5, seed=0)
    config = {"num_players": 2, "difficulty": "robber"}
    proxy = make_policy(str(tmp_path / "proxy_test"), "the_brain_v0", config)
    result = evaluate("the_brain_v0", config, [str(tmp_path / "proxy_train"), proxy], games=4, progress=False)
    assert result["games"] == 4
    obs = {"observation": np.zeros(proxy.observation_size, np.float32), "action_mask": np.ones(43, np.int8)}
    assert 0 <= proxy.act(obs, "player_0") < 43


def test_the_command_and_its_errors(export, tmp_path, capsys):
    assert main(["proxy", "fit", str(export), "--out", str(tmp_path / "p"), "--epochs", "2"]) == 0
    out = capsys.readouterr().out
    assert "proxy_train:" in out and "not marked as human data" in out
    assert main(["proxy", "fit", str(export), "--out", str(tmp_path / "q"), "--epochs", "2", "--human-data"]) == 0
    assert read_metadata(tmp_path / "q" / "proxy_train")["proxy"]["human_data"] is True
    for argv, message in ((["--net-arch", "0,4"], "--net-arch '0,4': give layer widths"),
                          (["--epochs", "0"], "--epochs 0: passes over the decisions")):
        assert main(["proxy", "fit", str(export), "--out", str(tmp_path / "r"), *argv]) == 2
        assert message in capsys.readouterr().err
    assert main(["proxy", "fit", str(tmp_path / "nothing"), "--out", str(tmp_path / "s")]) == 2
    assert "no decisions.json; export a study first" in capsys.readouterr().err


def test_an_export_without_a_test_split_is_refused(export, tmp_path):
    data = dict(np.load(export / "decisions.npz"))
    data["test"] = np.zeros_like(data["test"])
    (tmp_path / "e").mkdir()
    np.savez(tmp_path / "e" / "decisions.npz", **data)
    manifest = json.loads((export / "decisions.json").read_text())
    manifest["split"]["test"] = []
    (tmp_path / "e" / "decisions.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="the test split has no decisions"):
        fit_proxies(tmp_path / "e", tmp_path / "out", epochs=1)


def test_the_test_split_proxy_is_refused_as_a_training_partner(export, tmp_path):
    from braincards.training.learning.config import ConfigError, parse_train_config

    fit_proxies(export, tmp_path, epochs=1)
    base = {"game": "the_brain", "env": {"num_players": 2, "difficulty": "robber"}, "total_timesteps": 64}
    test, train = str(tmp_path / "proxy_test"), str(tmp_path / "proxy_train")
    assert parse_train_config({**base, "pretrain": {"teacher": train}}).pretrain.teacher == train
    for extra in ({"pretrain": {"teacher": test}}, {"backend": {"init_from": test}},
                  {"mode": "seat", "opponents": {"pool": [{"source": test}]}}):
        with pytest.raises(ConfigError, match="is a test-split proxy, kept for evaluation only"):
            parse_train_config({**base, **extra})
