"""The schedule both training backends share: the evaluation tables, what "best" means, and
when a snapshot of the learner joins the opponent pool."""

from __future__ import annotations

import pytest

from braincards.training.learning.config import parse_train_config
from braincards.training.learning.schedule import SnapshotSchedule, evaluation_tables, primary_score


def _cfg(game="oh_my_brain_v0", players=2, **opponents):
    return parse_train_config({"game": game, "env": {"num_players": players}, "total_timesteps": 100,
                               "opponents": {"pool": [{"source": "heuristic"}, {"source": "snapshots"}],
                                             "snapshot_window": 10, **opponents}})


def test_evaluation_tables_by_mode():
    team = parse_train_config({"game": "the_brain_v0", "env": {"num_players": 3}, "total_timesteps": 10,
                               "evaluation": {"partners": ["heuristic", "greedy"]}})
    assert evaluation_tables(team) == [("team", ["learner"] * 3),
                                       ("with heuristic", ["learner", "heuristic", "heuristic"]),
                                       ("with greedy", ["learner", "greedy", "greedy"])]
    solo = parse_train_config({"game": "the_brain_v0", "env": {"num_players": 1}, "total_timesteps": 10})
    assert evaluation_tables(solo) == [("solo", ["learner"])]
    seat = parse_train_config({"game": "oh_my_brain_v0", "env": {"num_players": 3}, "total_timesteps": 10,
                               "evaluation": {"opponents": ["random", "heuristic"]}})
    assert evaluation_tables(seat) == [("vs random", ["learner", "random", "random"]),
                                       ("vs heuristic", ["learner", "heuristic", "heuristic"])]
    # a cooperative game in seat mode: the pool holds partners, and so do its evaluations
    partner = parse_train_config({"game": "the_brain_v0", "env": {"num_players": 3}, "total_timesteps": 10,
                                  "mode": "seat", "evaluation": {"partners": ["greedy"], "opponents": ["random"]}})
    assert evaluation_tables(partner) == [("with greedy", ["learner", "greedy", "greedy"])]
    with pytest.raises(ValueError, match="mode 'seat' in a cooperative game evaluates the learner with each"):
        parse_train_config({"game": "the_brain_v0", "env": {"num_players": 3}, "total_timesteps": 10,
                            "mode": "seat", "evaluation": {"partners": []}})


def test_primary_score_is_the_first_tables_win_rate_then_its_score():
    def table(win, score):
        return {"win_rate": {"value": win}, "mean_score": {"value": score}}

    a = {"team": table(0.5, 20.0), "with heuristic": table(0.9, 36.0)}
    b = {"team": table(0.5, 21.0), "with heuristic": table(0.1, 0.0)}
    assert primary_score(a) == pytest.approx(0.52) and primary_score(b) > primary_score(a)
    assert primary_score({"primary": 99.0, **a}) == primary_score(a)  # a stored primary is skipped
    assert primary_score({"team": table(0.6, 0.0)}) > primary_score(b)


def test_snapshots_on_a_timestep_schedule():
    s = SnapshotSchedule(_cfg(snapshot_every=100), start_timesteps=50)
    assert s.enabled and s.next == 150
    assert not s.due(149)
    assert s.due(160) and s.next == 260  # the clock restarts at the snapshot
    assert not s.due(259) and s.due(260)


def test_snapshots_when_the_recent_win_rate_reaches_the_threshold():
    s = SnapshotSchedule(_cfg(snapshot_win_rate=0.7))
    assert s.next is None and s.win_rate is None
    s.record([True] * 6)
    assert s.win_rate == 1.0 and not s.due(10)  # the window (10 games) is not full yet
    s.record([False] * 6)
    assert len(s.window) == 10 and s.win_rate == pytest.approx(0.4) and not s.due(20)
    s.record([True] * 3)  # the last 10: 1 win, 6 losses, 3 wins
    assert s.win_rate == pytest.approx(0.4)
    s.record([True] * 3)  # 4 losses, 6 wins
    assert s.win_rate == pytest.approx(0.6) and not s.due(30)
    s.record([True])  # 3 losses, 7 wins: the threshold
    assert s.due(40) and s.window == [] and s.win_rate is None  # the window starts afresh


def test_no_snapshots_in_team_mode():
    team = parse_train_config({"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 10})
    s = SnapshotSchedule(team)
    s.record([True] * 500)
    assert not s.enabled and not s.due(10**9)
