"""evaluate / crossplay / league: reproducibility, serial == parallel, outputs."""

from __future__ import annotations

import csv
import math

import pytest

from braincards.envs import derive_seed
from braincards.training.evaluation.crossplay import crossplay
from braincards.training.evaluation.evaluate import evaluate
from braincards.training.evaluation.league import league


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
                 return_records=True)
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
        evaluate("the_brain", {}, seats=["random", "grandmaster"], games=2)
    with pytest.raises(ValueError, match="difficulty"):
        evaluate("the_brain", {"difficulty": "expert"}, seats=["random", "random"], games=2)
    with pytest.raises(ValueError, match="games=0"):
        evaluate("the_brain", {}, seats=["random", "random"], games=0)
    with pytest.raises(ValueError, match="non-negative"):
        evaluate("the_brain", {}, seats=["random", "random"], games=2, seed=-1)


def test_crossplay_matrix_files_and_same_deals(tmp_path, tiny_checkpoint, warns_solo_at):
    specs = ["heuristic", "random", str(tiny_checkpoint)]
    with warns_solo_at(3):  # the solo checkpoint at 3 players
        r = crossplay("the_brain", {"num_players": 3}, policies=specs, games=12, seed=2,
                      out_dir=tmp_path, progress=False)
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
                  progress=False)
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
               games=20, seed=0, out_dir=tmp_path, progress=False)
    table = r["table"]
    assert [row["policy"] for row in table] == ["heuristic", "random"]
    assert all(row["games"] == 20 for row in table)
    assert table[0]["mu"] > table[1]["mu"] and table[0]["sigma"] < 25 / 3
    md = (tmp_path / "ratings.md").read_text()
    assert "| 1 | heuristic |" in md
    rows = list(csv.DictReader((tmp_path / "ratings.csv").read_text().splitlines()))
    assert rows[0]["policy"] == "heuristic" and rows[0]["games"] == "20"
    again = league("brilliant_boar", {"num_players": 2, "level": 1},
                   policies=["random", "heuristic"], games=20, seed=0, progress=False)
    assert again["table"] == table
    with pytest.raises(ValueError, match="at least 3 distinct"):
        league("oh_my_brain", {"num_players": 3}, policies=["random", "heuristic"], games=2)


@pytest.mark.parametrize("difficulties, seats, games", [
    (["amateur", "robber", "cat_burglar"], ["heuristic", "random"], 4),
    (["amateur", "robber"], ["heuristic", "random"], 8),
    (["amateur", "robber", "cat_burglar"], ["heuristic", "random", "random"], 27),
    (["amateur", "robber"], ["heuristic", "random", "random", "random"], 16),
])
def test_rotation_balanced_with_a_difficulty_list(difficulties, seats, games):
    """Every policy sits at every position equally often whenever the game count is a
    multiple of the player count, also when games cycle through difficulties; each
    difficulty keeps its own cycle of games (game g has difficulty g mod V) and, over
    enough games, sees every rotation equally often too."""
    from collections import Counter

    n, v = len(seats), len(difficulties)
    r = evaluate("the_brain", {"difficulty": difficulties}, seats=seats, games=games, seed=0,
                 progress=False, return_records=True)
    recs = r["records"]
    assert [rec["variant"] for rec in recs] == [g % v for g in range(games)]
    pos = Counter(rec["labels"].index("heuristic") for rec in recs)
    assert pos == dict.fromkeys(range(n), games // n)
    if games % (n * v * math.gcd(n, v)) == 0:
        for d in range(v):
            per = Counter(rec["labels"].index("heuristic") for rec in recs if rec["variant"] == d)
            assert len(set(per.values())) == 1 and len(per) == n, (d, per)


def test_oh_my_brain_brain_shaping_wins_and_returns():
    """With brain_shaping the per-step rewards are shaped: a win is still the game's
    outcome (most brains), and the reward is the whole game's return (terminal reward +
    coef * (own brains - mean brains)), not what arrived since the seat last acted."""
    coef = 1.0
    r = evaluate("oh_my_brain", {"num_players": 3, "brain_shaping": coef},
                 seats=["heuristic", "random", "random"], games=12, seed=0, progress=False,
                 return_records=True)
    for rec in r["records"]:
        b = rec["scores"]
        best, n = max(b), len(b)
        k = b.count(best)
        assert rec["wins"] == [x == best and k < n for x in b]
        terminal = [0.0] * n if k == n else [1 / k if x == best else -1 / (n - k) for x in b]
        mean = sum(b) / n
        assert rec["rewards"] == pytest.approx([t + coef * (x - mean) for t, x in zip(terminal, b, strict=True)])


def test_league_refuses_a_cooperative_game():
    with pytest.raises(ValueError, match="competitive"):
        league("the_brain", {}, policies=["random", "heuristic"], games=2)


def test_duplicate_difficulties_refused():
    with pytest.raises(ValueError, match="more than once"):
        evaluate("the_brain", {"difficulty": ["amateur", "amateur"]}, seats=["random"], games=2)


def test_unknown_env_option_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown option 'foo' for the_brain_v0"):
        evaluate("the_brain", {"foo": 1}, seats=["random"], games=2)
    with pytest.raises(ValueError, match="unknown option 'bar'"):
        crossplay("the_brain", {"bar": 1}, policies=["random", "heuristic"], games=2)


@pytest.mark.parametrize("rate", [0.0, 0.02, 1.0])
def test_crossplay_heatmap_has_a_fixed_scale_and_axis_titles(rate):
    """Heatmaps of different runs compare by colour: the scale is always [0, 1]."""
    from braincards.training.evaluation.crossplay import crossplay_figure

    cell = {"value": rate, "lo": 0.0, "hi": 1.0}
    result = {"game": "the_brain_v0", "config": {"num_players": 2}, "seed": 0,
              "policies": ["a", "b"], "games": [[4, 4], [4, 4]],
              "win_rate": [[cell, cell], [cell, cell]]}
    fig = crossplay_figure(result)
    try:
        ax = fig.axes[0]
        assert ax.images[0].get_clim() == (0.0, 1.0)
        assert ax.get_xlabel() and ax.get_ylabel()
        assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b"]
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
