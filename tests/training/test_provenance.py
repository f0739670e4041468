"""Scorecards from anywhere: every scorecard carries its provenance (suite content hash, the
policy's files, command, seeds, date), ``braincards benchmark --validate`` checks one made
elsewhere, and the leaderboard lists outside scorecards that hold together, marked external,
and refuses tampered or incomplete ones with the reason."""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import sys
import warnings
from pathlib import Path

import pytest

from braincards.training.agents.locations import resolve_checkpoint
from braincards.training.agents.onnx_export import export_onnx
from braincards.training.cli.main import main
from braincards.training.evaluation.benchmark.provenance import check_scorecard, policy_files
from braincards.training.evaluation.benchmark.report import json_safe
from braincards.training.evaluation.benchmark.scorecard import benchmark
from braincards.training.evaluation.benchmark.suites import load_suite, parse_suite

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("leaderboard_page", ROOT / "benchmarks" / "leaderboard_page.py")
leaderboard_page = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(leaderboard_page)


@pytest.fixture(scope="module")
def card(tmp_path_factory) -> dict:
    """A real scorecard of brilliant_boar-v1 (5 games a scenario), as read back from JSON."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made = benchmark("heuristic:window=4", "brilliant_boar-v1", tmp_path_factory.mktemp("bm"), games=5,
                         progress=False, command="braincards benchmark heuristic:window=4 --suite brilliant_boar-v1")
    return json.loads(json.dumps(json_safe(made)))


def test_every_scorecard_says_where_it_comes_from(card):
    suite = load_suite("brilliant_boar-v1")
    prov = card["provenance"]
    assert prov["suite"] == "brilliant_boar-v1" and prov["suite_sha256"] == suite.sha256()
    assert prov["setting"] == "games=5" and prov["policy_spec"] == "heuristic:window=4"
    assert prov["policy_files"] == {}  # a braincards kind: the package version names it
    assert prov["seeds"] == {s.id: s.seed for s in suite.scenarios}
    assert prov["command"].startswith("braincards benchmark") and prov["date"].startswith("20")
    assert card["versions"]["braincards"]


def test_the_suite_hash_changes_with_any_scenario():
    data = {"suite": "tiny-v1", "game": "brilliant_boar", "blocks": 5,
            "scenarios": [{"id": "solo", "config": {"num_players": 1, "level": 1}, "focal": [0], "games": 40,
                           "quick_games": 20, "seed": 7, "metric": "score", "low": "random", "high": "heuristic"}]}
    base = parse_suite(data).sha256()
    assert parse_suite(copy.deepcopy(data)).sha256() == base
    for key, value in (("seed", 8), ("games", 45), ("high", "random")):
        changed = copy.deepcopy(data)
        changed["scenarios"][0][key] = value
        assert parse_suite(changed).sha256() != base, key


def test_the_files_behind_a_policy_are_hashed(tmp_path):
    zip_path = Path(resolve_checkpoint("oh_my_brain/ppo_2p")).with_suffix(".zip")
    files = policy_files("oh_my_brain/ppo_2p")
    assert files == {"ppo_2p.zip": hashlib.sha256(zip_path.read_bytes()).hexdigest(),
                     "ppo_2p.json": hashlib.sha256(zip_path.with_suffix(".json").read_bytes()).hexdigest()}
    onnx = tmp_path / "omb.onnx"
    export_onnx("oh_my_brain/ppo_2p", onnx)
    assert policy_files(f"onnx:{onnx}") == {"omb.onnx": hashlib.sha256(onnx.read_bytes()).hexdigest()}
    module = tmp_path / "my_bench_agent.py"
    module.write_text("from braincards.training.agents.policy import RandomPolicy as Agent\n")
    sys.path.insert(0, str(tmp_path))
    try:
        assert policy_files("my_bench_agent:Agent") == {
            "module my_bench_agent": hashlib.sha256(module.read_bytes()).hexdigest()}
    finally:
        sys.path.remove(str(tmp_path))
    assert policy_files("heuristic") == {} and policy_files("pimc:samples=2") == {}


def _tamper(card: dict, how: str) -> dict:
    bad = copy.deepcopy(card)
    if how == "raw":
        bad["scenarios"][1]["raw"]["value"] = bad["scenarios"][1]["raw"]["hi"] + 1
    elif how == "normalised":
        row = bad["scenarios"][4]
        row["normalised"] = {k: v + 0.2 for k, v in row["normalised"].items()}
    elif how == "aggregate":
        bad["aggregate"]["iqm"]["value"] += 0.05
    elif how == "missing":
        del bad["scenarios"][2]
    elif how == "suite":
        bad["provenance"]["suite_sha256"] = "0" * 64
    elif how == "seed":
        bad["scenarios"][0]["seed"] += 1
    elif how == "games":
        bad["scenarios"][0]["games"] = 10
    elif how == "provenance":
        del bad["provenance"]
    return bad


@pytest.mark.parametrize("how, reason", [
    ("raw", "lies outside its interval"),
    ("normalised", "does not follow from raw"),
    ("aggregate", "aggregate iqm value"),
    ("missing", "missing ['solo-level3']"),
    ("suite", "the suite file it was run on differs"),
    ("seed", "is not the suite's 3101"),
    ("games", "the games=5 setting plays 5"),
    ("provenance", "no provenance"),
])
def test_a_tampered_or_incomplete_scorecard_is_refused_with_the_reason(card, how, reason):
    assert check_scorecard(card) == []
    problems = check_scorecard(_tamper(card, how))
    assert problems and any(reason in p for p in problems), problems


def test_validate_on_the_command_line(card, tmp_path, capsys):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(card))
    bad.write_text(json.dumps(_tamper(card, "aggregate")))
    assert main(["benchmark", "--validate", str(good)]) == 0
    assert "holds together (brilliant_boar-v1, games=5, heuristic:window=4)" in capsys.readouterr().out
    assert main(["benchmark", "--validate", str(bad)]) == 1
    assert "refused (1 problems)" in capsys.readouterr().out
    assert main(["benchmark", "--validate", str(tmp_path / "none.json")]) == 1


def test_the_leaderboard_lists_outside_scorecards_marked_and_refuses_bad_ones(card, tmp_path, monkeypatch, capsys):
    outside = {**card, "policy": {"spec": "someone:Agent"},
               "provenance": {**card["provenance"], "policy_spec": "someone:Agent"}}
    (tmp_path / "theirs.json").write_text(json.dumps(outside))
    (tmp_path / "broken.json").write_text(json.dumps(_tamper(outside, "raw")))
    accepted, refused = leaderboard_page.load_external(tmp_path)
    assert [c["policy"]["spec"] for c in accepted] == ["someone:Agent"] and accepted[0]["external"]
    assert list(refused) == ["broken.json"] and "lies outside its interval" in refused["broken.json"][0]
    page = leaderboard_page.render(leaderboard_page.load_cards(accepted))
    assert "| `someone:Agent` (external) |" in page
    monkeypatch.setattr(leaderboard_page, "EXTERNAL", tmp_path)
    monkeypatch.setattr(leaderboard_page, "PAGE", tmp_path / "leaderboard.md")
    monkeypatch.setattr(leaderboard_page, "ROOT", tmp_path)
    assert leaderboard_page.main([]) == 1  # a refused scorecard fails the command, named
    assert "refused external scorecard broken.json" in capsys.readouterr().err
    assert "(external)" in (tmp_path / "leaderboard.md").read_text()
