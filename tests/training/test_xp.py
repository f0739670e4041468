"""``braincards xp``: cross-play reports over seeds and recipes (self-play, intra-recipe,
inter-recipe, held-out), pooled from one cross-play matrix on the same deals."""

from __future__ import annotations

import json

import pytest

from braincards.training.cli.main import main
from braincards.training.evaluation.crossplay import crossplay
from braincards.training.evaluation.xp import check_runs, pool, xp_report

RUNS = {"game": "the_brain", "config": {"num_players": 2, "difficulty": "robber"}, "games": 4, "seed": 2,
        "recipes": {"rules": ["heuristic", "heuristic:style=cautious"], "search": ["greedy"]},
        "held_out": ["random"]}


def _cell(wins: int, games: int) -> dict:
    return {"value": wins / games, "lo": 0.0, "hi": 1.0}


def test_cells_are_pooled_into_the_four_figures_by_hand():
    # policies: a0, a1 (recipe a), b0 (recipe b), h (held out); wins out of 10 games per cell
    wins = [[9, 6, 3, 1], [6, 8, 4, 0], [3, 4, 7, 2], [1, 0, 2, 5]]
    result = {"win_rate": [[_cell(w, 10) for w in row] for row in wins], "games": [[10] * 4 for _ in range(4)]}
    owners = [("a", 0), ("a", 1), ("b", 0), (None, 0)]
    figures = pool(result, owners)
    assert {r: {c: (round(d["win_rate"]["value"] * d["games"]), d["games"]) for c, d in by.items()}
            for r, by in figures.items()} == {
        "a": {"self-play": (17, 20), "intra-recipe": (6, 10), "inter-recipe": (7, 20), "held-out": (1, 20)},
        "b": {"self-play": (7, 10), "inter-recipe": (7, 20), "held-out": (2, 10)},
    }  # the held-out partner's own diagonal counts for nobody; an a-b cell counts for both


def test_a_report_is_one_crossplay_matrix_pooled(tmp_path):
    report = xp_report(RUNS, out_dir=tmp_path, progress=False)
    matrix = crossplay("the_brain", RUNS["config"], ["heuristic", "heuristic:style=cautious", "greedy", "random"],
                       games=4, seed=2, progress=False)
    assert report["crossplay"]["win_rate"] == matrix["win_rate"]
    rules = report["figures"]["rules"]
    assert rules["self-play"]["games"] == 8 and rules["intra-recipe"]["games"] == 4
    assert rules["inter-recipe"]["games"] == 8 and rules["held-out"]["games"] == 8
    assert set(report["figures"]["search"]) == {"self-play", "inter-recipe", "held-out"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crossplay.csv", "crossplay.png", "xp.json", "xp.md", "xp.png"]
    assert json.loads((tmp_path / "xp.json").read_text())["figures"] == report["figures"]
    assert "| rules | 2 |" in (tmp_path / "xp.md").read_text()


def test_the_command_reads_a_yaml_of_runs(tmp_path, capsys):
    runs = tmp_path / "runs.yaml"
    runs.write_text("game: the_brain\nconfig: {num_players: 2}\nrecipes:\n  one: [heuristic]\n  two: [greedy]\n")
    assert main(["xp", str(runs), "--games", "2", "--out", str(tmp_path / "o"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "| one | 1 |" in out and "| two | 1 |" in out and "xp.png" in out


@pytest.mark.parametrize("runs, message", [
    ([1, 2], "a cross-play report is a mapping"),
    ({**RUNS, "partners": []}, "unknown key 'partners'"),
    ({**RUNS, "recipes": {}}, "recipes: give a mapping"),
    ({**RUNS, "recipes": {"a": "heuristic"}}, "recipes.a: give a non-empty list"),
    ({**RUNS, "held_out": "random"}, "held_out: give a list"),
    ({**RUNS, "held_out": ["greedy"]}, "'greedy' is named twice"),
    ({k: v for k, v in RUNS.items() if k != "game"}, "game: name the cooperative game"),
])
def test_a_bad_report_says_what_is_wrong(runs, message):
    with pytest.raises(ValueError, match=message):
        check_runs(runs)


def test_a_competitive_game_is_refused():
    with pytest.raises(ValueError, match="cross-play is for cooperative games"):
        xp_report({**RUNS, "game": "oh_my_brain", "config": {"num_players": 2},
                   "recipes": {"a": ["heuristic"]}, "held_out": ["random"]})
