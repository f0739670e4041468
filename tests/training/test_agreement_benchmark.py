"""benchmarks/agreement.py: how often a policy picks its teacher's action on its own games."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("agreement", ROOT / "benchmarks" / "agreement.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def test_a_policy_agrees_with_itself_and_not_with_another():
    config = {"num_players": 3, "difficulty": "robber"}
    same = bench.agreement("the_brain", config, "greedy", "greedy", games=5)
    assert same["agreement"] == 1.0 and same["games_with_a_disagreement"] == 0.0
    assert same["decisions"] > 50 and 0.0 <= same["team_win_rate"] <= 1.0
    other = bench.agreement("the_brain", config, "heuristic", "greedy", games=5)
    assert other["decisions"] > 50 and other["agreement"] < 0.95 and other["games_with_a_disagreement"] > 0


def test_a_remembering_teacher_is_told_the_moves_it_did_not_pick():
    # Brilliant Boar's heuristic asked as the teacher of random play: it must be told each
    # move it did not pick (played()), or its memory of its hand drifts; as a policy it
    # agrees with itself on every decision
    config = {"num_players": 2}
    res = bench.agreement("brilliant_boar", config, "random", "heuristic", games=3)
    assert res["team_win_rate"] is None and 0.0 < res["agreement"] < 1.0
    assert bench.agreement("brilliant_boar", config, "heuristic", "heuristic", games=3)["agreement"] == 1.0


def test_command_line(capsys):
    assert bench.main(["the_brain", "greedy", "greedy", "--set", "num_players=2", "--games", "2"]) == 0
    assert '"agreement": 1.0' in capsys.readouterr().out
    with pytest.raises(SystemExit):
        bench.main(["the_brain", "greedy", "greedy", "--games", "0"])


def test_history_readers_get_the_wrapped_table_and_their_own_prefix():
    # heuristic:window=K reads K event slots behind HistoryWrapper (as in evaluate): with the
    # whole game in its window it plays exactly as the perfect-memory heuristic (R-W9), with
    # 8 events it forgets and disagrees; each policy gets the prefix it reads
    config = {"num_players": 2, "memory": "none"}
    whole = bench.agreement("brilliant_boar", config, "heuristic:window=256", "heuristic", games=3)
    assert whole["decisions"] > 50 and whole["agreement"] == 1.0
    short = bench.agreement("brilliant_boar", config, "heuristic", "heuristic:window=8", games=3)
    assert short["agreement"] < 1.0 and short["games_with_a_disagreement"] > 0
