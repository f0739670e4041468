"""The evaluate / crossplay / league / play subcommands, including error paths."""

from __future__ import annotations

import io
import json

import pytest

from braincards.training.cli import main


def run(argv, capsys, stdin: str | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_evaluate_command(capsys, tmp_path):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("env:\n  difficulty: robber\n")
    rc, out, _ = run(["evaluate", "the_brain", "--seat", "heuristic", "--seat", "random",
                      "--games", "6", "--config", str(cfg), "--set", "hand_size=4", "--quiet",
                      "--json", str(tmp_path / "r.json")], capsys)  # fmt: skip
    assert rc == 0
    assert "| heuristic | 6 |" in out and "team win rate" in out
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["config"] == {"difficulty": "robber", "hand_size": 4, "num_players": 2}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["evaluate", "the_brain", "--seat", "greedy", "--seat", "random"], "unknown policy spec 'greedy'"),
        (["evaluate", "the_brain", "--seat", "random", "--set", "num_players=3"], "num_players=3 but 1 seats"),
        (["evaluate", "the_brain", "--seat", "random", "--set", "difficulty=expert"], "difficulty"),
        (["evaluate", "the_brain", "--seat", "random", "--set", "nonsense"], "KEY=VALUE"),
        (["evaluate", "the_brain", "--seat", "random", "--config", "/no/such.yaml"], "does not exist"),
        (["evaluate", "the_brain", "--seat", "random", "--seat", "x/y.zip"], "no checkpoint at"),
        (["evaluate", "the_brain", "--seat", "random", "--games", "0"], "games=0"),
        (["crossplay", "oh_my_brain", "random", "heuristic", "--out", "OUT"], "cooperative"),
        (["league", "oh_my_brain", "random", "--out", "OUT"], "at least 2 distinct"),
        (["play", "the_brain", "--seat", "random", "--seat", "random"], "exactly one --seat human"),
        (["play", "the_brain", "--seat", "human", "--seat", "greedy"], "unknown policy spec"),
    ],
)
def test_cli_error_paths(argv, message, capsys, tmp_path):
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    rc, out, err = run(argv, capsys)
    assert rc == 2
    assert "braincards: error:" in err and message in err
    assert "Traceback" not in err


def test_cli_unknown_game_and_missing_args(capsys):
    with pytest.raises(SystemExit, match="unknown game 'chess'"):
        main(["evaluate", "chess", "--seat", "random"])
    with pytest.raises(SystemExit):
        main(["evaluate", "the_brain"])  # --seat is required
    assert "--seat" in capsys.readouterr().err


def test_bad_yaml_config(capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("- just\n- a list\n")
    rc, _, err = run(["evaluate", "the_brain", "--seat", "random", "--config", str(bad)], capsys)
    assert rc == 2 and "mapping" in err


def test_crossplay_and_league_commands(capsys, tmp_path):
    rc, out, _ = run(["crossplay", "the_brain", "heuristic", "random", "--games", "4",
                      "--players", "3", "--out", str(tmp_path / "cp"), "--quiet"], capsys)  # fmt: skip
    assert rc == 0 and "| heuristic |" in out
    assert (tmp_path / "cp" / "crossplay.png").is_file() and (tmp_path / "cp" / "crossplay.csv").is_file()
    rc, out, _ = run(["league", "oh_my_brain", "heuristic", "random", "--games", "6",
                      "--out", str(tmp_path / "lg"), "--quiet"], capsys)  # fmt: skip
    assert rc == 0 and "openskill" in out
    assert (tmp_path / "lg" / "ratings.md").is_file() and (tmp_path / "lg" / "ratings.csv").is_file()


@pytest.mark.parametrize("game, players", [
    ("the_brain", 3),
    ("oh_my_brain", 2),
    ("brilliant_boar", 2),
])  # fmt: skip
def test_play_scripted_game_to_the_end(game, players, capsys, monkeypatch):
    """A person always answering 1 (after some bad answers) plays a whole game."""
    seats = ["--seat", "human"] + ["--seat", "heuristic"] * (players - 1)
    script = "hello\n0\n999\n\n  \n" + "1\n" * 3000
    rc, out, err = run(["play", game, *seats, "--seed", "5"], capsys, script, monkeypatch)
    assert rc == 0, err
    assert "is not a number" in out and "999 is not a choice" in out
    assert "result (" in out and "final table" in out
    assert "you:" in out


def test_play_shows_only_own_view(capsys, monkeypatch):
    rc, out, _ = run(["play", "the_brain", "--seat", "human", "--seat", "heuristic", "--seed", "1"],
                     capsys, "q\n", monkeypatch)  # fmt: skip
    assert rc == 0 and "game abandoned" in out
    assert "hidden" in out  # the other seat's hand is not shown


def test_play_eof_exits_cleanly(capsys, monkeypatch):
    rc, out, _ = run(["play", "oh_my_brain", "--seat", "heuristic", "--seat", "human", "--seed", "2"],
                     capsys, "1\n1\n", monkeypatch)  # fmt: skip
    assert rc == 0
    assert "game abandoned (input closed)" in out


def test_play_hides_private_choices(capsys, monkeypatch):
    rc, out, _ = run(["play", "oh_my_brain", "--seat", "human", "--seat", "heuristic", "--seed", "0"],
                     capsys, "1\n" * 3000, monkeypatch)  # fmt: skip
    assert rc == 0
    assert "makes a private choice (draft)" in out
    theirs = [line for line in out.splitlines() if line.startswith("player_1 (heuristic):")]
    assert theirs and not any("keep the other two" in line for line in theirs)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["evaluate", "the_brain", "--seat", "random", "--set", "foo=1"], "unknown option 'foo'"),
        (["evaluate", "the_brain", "--seat", "random", "--set", "=3"], "empty key"),
        (["play", "the_brain", "--seat", "human", "--set", "foo=1"], "unknown option 'foo'"),
        (["crossplay", "the_brain", "random", "heuristic", "--games", "2", "--out", "FILE"], "FILE"),
        (["evaluate", "the_brain", "--seat", "random", "--games", "1", "--json", "FILE/r.json"], "FILE"),
        (["league", "the_brain", "random", "heuristic", "--out", "OUT"], "competitive"),
    ],
)
def test_more_cli_error_paths(argv, message, capsys, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    subst = {"OUT": str(tmp_path / "out"), "FILE": str(afile)}
    argv = [a.replace("FILE", str(afile)) if "FILE" in a else subst.get(a, a) for a in argv]
    rc, out, err = run(argv + ["--quiet"] if argv[0] != "play" else argv, capsys)
    assert rc == 2, (out, err)
    assert "braincards: error:" in err and subst.get(message, message) in err
    assert "Traceback" not in err


def test_play_interrupted_says_so(capsys, monkeypatch):
    class Interrupting:
        def readline(self):
            raise KeyboardInterrupt

    monkeypatch.setattr("sys.stdin", Interrupting())
    rc, out, _ = run(["play", "the_brain", "--seat", "human", "--seat", "random", "--seed", "1"], capsys)
    assert rc == 0 and "game abandoned (interrupted)" in out
