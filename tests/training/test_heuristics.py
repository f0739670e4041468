"""Each game's heuristic clearly beats random (fixed seeds, asserted margins)."""

from __future__ import annotations

from braincards.training.evaluation.evaluate import evaluate


def test_the_brain_heuristic_team_beats_random_team():
    config = {"num_players": 2, "difficulty": "amateur"}
    h = evaluate("the_brain", config, seats=["heuristic"] * 2, games=300, seed=1, progress=False)
    r = evaluate("the_brain", config, seats=["random"] * 2, games=300, seed=1, progress=False)
    # measured: the careful heuristic ~80% wins (the first one, style=scoring, ~50%); random 0%
    assert h["team"]["win_rate"]["lo"] > r["team"]["win_rate"]["hi"] - 0.02
    assert h["team"]["win_rate"]["value"] >= 0.6
    assert r["team"]["win_rate"]["value"] <= 0.01
    assert h["team"]["mean_score"]["lo"] > r["team"]["mean_score"]["hi"] + 3


def test_oh_my_brain_heuristic_beats_random():
    res = evaluate("oh_my_brain", {"num_players": 2}, seats=["heuristic", "random"], games=200,
                   seed=1, progress=False)
    h = res["policies"]["heuristic"]
    assert h["win_rate"]["lo"] > 0.75  # measured ~0.9
    assert h["mean_reward"]["lo"] > 0.5


def test_brilliant_boar_heuristic_beats_random():
    res = evaluate("brilliant_boar", {"num_players": 3}, seats=["heuristic", "random", "random"],
                   games=60, seed=1, progress=False)
    h = res["policies"]["heuristic"]
    assert h["win_rate"]["lo"] > 0.8  # measured 1.0 (chance: 1/3)
    assert h["mean_score"]["lo"] > res["policies"]["random"]["mean_score"]["hi"] + 10
