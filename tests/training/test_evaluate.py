"""evaluate / crossplay / league: reproducibility, serial == parallel, outputs."""

from __future__ import annotations

import csv

import pytest

from braincards.training.evaluate import crossplay, derive_seed, evaluate, league


def test_evaluate_reproducible_under_seed():
    kw = dict(seats=["heuristic", "random", "random"], games=30, progress=False)
    a = evaluate("oh_my_brain", {}, seed=4, return_records=True, **kw)
    b = evaluate("oh_my_brain_v0", {}, seed=4, return_records=True, **kw)
    c = evaluate("oh_my_brain", {}, seed=5, return_records=True, **kw)
    assert a == b
    assert a["records"] != c["records"]
    assert a["policies"]["heuristic"]["seat_games"] == 30
    assert a["policies"]["random"]["seat_games"] == 60


def test_serial_equals_parallel():
    kw = dict(seats=["heuristic", "random"], games=24, seed=11, progress=False, return_records=True)
    serial = evaluate("brilliant_boar", {"level": 2}, workers=1, **kw)
    parallel = evaluate("brilliant_boar", {"level": 2}, workers=2, **kw)
    assert serial == parallel


def test_seats_rotate_and_result_fields():
    r = evaluate("the_brain", {"difficulty": ["amateur", "robber", "cat_burglar"]},
                 seats=["heuristic", "random"], games=12, seed=0, progress=False,
                 return_records=True)  # fmt: skip
    first = [rec["labels"][0] for rec in r["records"]]
    assert first.count("heuristic") == first.count("random") == 6
    assert [rec["variant"] for rec in r["records"]][:6] == [0, 1, 2, 0, 1, 2]
    by = r["team"]["by_difficulty"]
    assert list(by) == ["amateur", "robber", "cat_burglar"]
    assert all(v["games"] == 4 for v in by.values())
    for key in ("win_rate", "mean_reward", "mean_score"):
        d = r["policies"]["heuristic"][key]
        assert d["lo"] <= d["value"] <= d["hi"]
    assert r["mean_length"]["value"] > 0 and r["truncated"] == 0
    # the deal of game g depends on (seed, g) only
    assert r["records"][3]["deal"] == 3 and derive_seed(0, 3) != derive_seed(0, 4)


def test_evaluate_errors():
    with pytest.raises(ValueError, match="num_players=3 but 2 seats"):
        evaluate("the_brain", {"num_players": 3}, seats=["random", "random"], games=2)
    with pytest.raises(ValueError, match="unknown game"):
        evaluate("chess", {}, seats=["random"], games=2)
    with pytest.raises(ValueError, match="unknown policy spec"):
        evaluate("the_brain", {}, seats=["random", "greedy"], games=2)
    with pytest.raises(ValueError, match="difficulty"):
        evaluate("the_brain", {"difficulty": "expert"}, seats=["random", "random"], games=2)
    with pytest.raises(ValueError, match="games=0"):
        evaluate("the_brain", {}, seats=["random", "random"], games=0)
    with pytest.raises(ValueError, match="non-negative"):
        evaluate("the_brain", {}, seats=["random", "random"], games=2, seed=-1)


def test_crossplay_matrix_files_and_same_deals(tmp_path, tiny_checkpoint):
    specs = ["heuristic", "random", str(tiny_checkpoint)]
    r = crossplay("the_brain", {"num_players": 3}, policies=specs, games=12, seed=2,
                  out_dir=tmp_path, progress=False)  # fmt: skip
    k = len(specs)
    assert r["policies"] == specs
    for i in range(k):
        for j in range(k):
            assert r["win_rate"][i][j] == r["win_rate"][j][i]
            assert r["games"][i][j] == 12
    rows = list(csv.DictReader((tmp_path / "crossplay.csv").read_text().splitlines()))
    assert len(rows) == k * k and rows[0]["policy_a"] == "heuristic"
    png = (tmp_path / "crossplay.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    # the self-play cell sees the same deals as a plain evaluation with that seed
    ev = evaluate("the_brain", {"num_players": 3}, seats=["heuristic"] * 3, games=12, seed=2,
                  progress=False)  # fmt: skip
    assert r["win_rate"][0][0] == ev["team"]["win_rate"]
    assert r["mean_score"][0][0] == ev["team"]["mean_score"]


def test_crossplay_errors():
    with pytest.raises(ValueError, match="cooperative"):
        crossplay("oh_my_brain", {}, policies=["random", "heuristic"], games=2)
    with pytest.raises(ValueError, match="two policies"):
        crossplay("the_brain", {}, policies=["random"], games=2)
    with pytest.raises(ValueError, match="num_players >= 2"):
        crossplay("the_brain", {"num_players": 1}, policies=["random", "heuristic"], games=2)


def test_league_ratings(tmp_path):
    r = league("brilliant_boar", {"num_players": 2, "level": 1}, policies=["random", "heuristic"],
               games=20, seed=0, out_dir=tmp_path, progress=False)  # fmt: skip
    table = r["table"]
    assert [row["policy"] for row in table] == ["heuristic", "random"]
    assert all(row["games"] == 20 for row in table)
    assert table[0]["mu"] > table[1]["mu"] and table[0]["sigma"] < 25 / 3
    md = (tmp_path / "ratings.md").read_text()
    assert "| 1 | heuristic |" in md
    rows = list(csv.DictReader((tmp_path / "ratings.csv").read_text().splitlines()))
    assert rows[0]["policy"] == "heuristic" and rows[0]["games"] == "20"
    again = league("brilliant_boar", {"num_players": 2, "level": 1},
                   policies=["random", "heuristic"], games=20, seed=0, progress=False)  # fmt: skip
    assert again["table"] == table
    with pytest.raises(ValueError, match="at least 3 distinct"):
        league("oh_my_brain", {"num_players": 3}, policies=["random", "heuristic"], games=2)
