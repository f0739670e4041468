"""The evaluate / crossplay / league / play subcommands, including error paths."""

from __future__ import annotations

import io
import json
import shlex
import subprocess
import sys

import pytest

from braincards.training.cli.main import main
from braincards.training.cli.play import ABANDONED


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
                      "--json", str(tmp_path / "r.json")], capsys)
    assert rc == 0
    assert "| heuristic | 6 |" in out and "team win rate" in out
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["config"] == {"difficulty": "robber", "hand_size": 4, "num_players": 2}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["evaluate", "the_brain", "--seat", "grandmaster", "--seat", "random"], "unknown policy spec 'grandmaster'"),
        (["evaluate", "the_brain", "--seat", "random", "--set", "num_players=3"], "num_players=3 but 1 seats"),
        (["evaluate", "the_brain", "--seat", "random", "--set", "difficulty=expert"], "difficulty"),
        (["evaluate", "the_brain", "--seat", "random", "--set", "nonsense"], "KEY=VALUE"),
        (["evaluate", "the_brain", "--seat", "random", "--config", "/no/such.yaml"], "does not exist"),
        (["evaluate", "the_brain", "--seat", "random", "--seat", "x/y.zip"], "no checkpoint at"),
        (["evaluate", "the_brain", "--seat", "random", "--games", "0"], "games=0"),
        (["crossplay", "oh_my_brain", "random", "heuristic", "--out", "OUT"], "cooperative"),
        (["league", "oh_my_brain", "random", "--out", "OUT"], "at least 2 distinct"),
        (["play", "the_brain", "--seat", "random", "--seat", "random"], "exactly one --seat human"),
        (["play", "the_brain", "--seat", "human", "--seat", "grandmaster"], "unknown policy spec"),
    ],
)
def test_cli_error_paths(argv, message, capsys, tmp_path):
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    rc, out, err = run(argv, capsys)
    assert rc == 2
    assert "braincards: error:" in err and message in err
    assert "Traceback" not in err


def test_cli_unknown_game_and_missing_args(capsys):
    rc, _, err = run(["evaluate", "chess", "--seat", "random"], capsys)
    assert rc == 2
    assert "braincards: error: unknown game 'chess'; known games:" in err and "the_brain_v0" in err
    with pytest.raises(SystemExit) as info:
        main(["evaluate", "the_brain"])  # --seat is required
    assert info.value.code == 2
    assert "--seat" in capsys.readouterr().err


def test_bad_yaml_config(capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("- just\n- a list\n")
    rc, _, err = run(["evaluate", "the_brain", "--seat", "random", "--config", str(bad)], capsys)
    assert rc == 2 and "mapping" in err


def test_crossplay_and_league_commands(capsys, tmp_path):
    rc, out, _ = run(["crossplay", "the_brain", "heuristic", "random", "--games", "4",
                      "--players", "3", "--out", str(tmp_path / "cp"), "--quiet"], capsys)
    assert rc == 0 and "| heuristic |" in out
    assert (tmp_path / "cp" / "crossplay.png").is_file() and (tmp_path / "cp" / "crossplay.csv").is_file()
    rc, out, _ = run(["league", "oh_my_brain", "heuristic", "random", "--games", "6",
                      "--out", str(tmp_path / "lg"), "--quiet"], capsys)
    assert rc == 0 and "openskill" in out
    assert (tmp_path / "lg" / "ratings.md").is_file() and (tmp_path / "lg" / "ratings.csv").is_file()


@pytest.mark.parametrize("game, players", [
    ("the_brain", 3),
    ("oh_my_brain", 2),
    ("brilliant_boar", 2),
])
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
                     capsys, "q\n", monkeypatch)
    assert rc == ABANDONED == 3 and "game abandoned" in out  # not 0: the game was not played out
    assert "hidden" in out  # the other seat's hand is not shown


def test_play_eof_exits_cleanly(capsys, monkeypatch):
    rc, out, _ = run(["play", "oh_my_brain", "--seat", "heuristic", "--seat", "human", "--seed", "2"],
                     capsys, "1\n1\n", monkeypatch)
    assert rc == ABANDONED
    assert "game abandoned (input closed)" in out


def test_play_hides_private_choices(capsys, monkeypatch):
    rc, out, _ = run(["play", "oh_my_brain", "--seat", "human", "--seat", "heuristic", "--seed", "0"],
                     capsys, "1\n" * 3000, monkeypatch)
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
    assert rc == 130 and "game abandoned (interrupted)" in out


# ---------------------------------------------------------------------------- rough edges
def test_version(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"braincards {version('braincards')}"


@pytest.mark.parametrize("argv, says, not_says", [
    (["crossplay", "oh_my_brain", "random", "heuristic", "--out", "OUT"],
     "rate oh_my_brain_v0 with `braincards league`", "league()"),
    (["league", "the_brain", "random", "heuristic", "--out", "OUT"],
     "measure the_brain_v0 with `braincards crossplay`", "crossplay()"),
])
def test_cooperative_and_competitive_errors_speak_the_cli(argv, says, not_says, capsys, tmp_path):
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    rc, _, err = run(argv, capsys)
    assert rc == 2 and "braincards: error:" in err
    assert says in err and not_says not in err


@pytest.mark.parametrize("name, extra", [
    ("yaml", "train"),
    ("stable_baselines3.common", "train"),
    ("sb3_contrib", "train"),
    ("torch", "train"),
    ("openskill.models", "train"),
    ("ray", "rllib"),
    ("no_such_module_anywhere", None),
])
def test_missing_module_names_its_extra(name, extra):
    from braincards.training.cli.main import extra_for_missing_module

    assert extra_for_missing_module(ModuleNotFoundError(f"No module named {name!r}", name=name)) == extra


def test_missing_train_extra_module_is_a_clear_error():
    """Only pyyaml missing: the commands that need the train extra say so, naming it."""
    code = ENVS_ONLY.replace('BLOCKED = {"torch", "stable_baselines3", "sb3_contrib", "yaml", "tensorboard", "tqdm", "rich",\n'
                             '           "matplotlib", "openskill", "pydantic", "safetensors", "ray"}', 'BLOCKED = {"yaml"}')
    assert 'BLOCKED = {"yaml"}' in code
    result = subprocess.run([sys.executable, "-c", code, "evaluate", "the_brain", "--seat", "random",
                             "--games", "2"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "braincards: error: `braincards evaluate` needs pyyaml" in result.stderr
    assert "pip install 'braincards[train]'" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_missing_module_of_no_extra_is_not_hidden(monkeypatch):
    """Only modules of an extra get the install hint; any other is a bug and raises."""
    from braincards.training.cli import evaluation as commands

    def broken(args):
        raise ModuleNotFoundError("No module named 'no_such_module_anywhere'",
                                  name="no_such_module_anywhere")

    monkeypatch.setattr(commands, "cmd_evaluate", broken)
    with pytest.raises(ModuleNotFoundError, match="no_such_module_anywhere"):
        main(["evaluate", "the_brain", "--seat", "random"])


# The environments-only install, simulated: every module of the train extra fails to import.
ENVS_ONLY = """
import json, sys
from importlib.abc import MetaPathFinder

BLOCKED = {"torch", "stable_baselines3", "sb3_contrib", "yaml", "tensorboard", "tqdm", "rich",
           "matplotlib", "openskill", "pydantic", "safetensors", "ray"}


class NotInstalled(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, NotInstalled())
from braincards.training.cli.main import main

sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("argv, rc, says", [
    (["demo", "the_brain", "--players", "2"], 0, "result (game over)"),
    (["--version"], 0, "braincards "),
    (["evaluate", "the_brain", "--seat", "random"], 2,
     "`braincards evaluate` needs torch (module 'torch' is not installed): pip install 'braincards[train]'"),
    (["train", "configs/the_brain/train_3p.yaml"], 2, "pip install 'braincards[train]'"),
    (["league", "oh_my_brain", "random", "heuristic", "--out", "OUT"], 2, "pip install 'braincards[train]'"),
])
def test_environments_only_install(argv, rc, says, tmp_path):
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    result = subprocess.run([sys.executable, "-c", ENVS_ONLY, *argv], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == rc, result.stderr
    assert says in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    if rc == 2:
        assert result.stderr.startswith("braincards: error:")


@pytest.mark.parametrize("argv", [
    ["demo", "oh_my_brain", "--seed", "3"],
    ["evaluate", "the_brain", "--seat", "random", "--games", "3", "--quiet"],
])
def test_a_closed_stdout_is_not_an_error(argv):
    """`braincards ... | head`: the reader goes away; no BrokenPipeError, exit 141 as a
    command killed by SIGPIPE."""
    proc = subprocess.Popen([sys.executable, "-m", "braincards.training.cli.main", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # before anything is written: every write fails
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141, err
    assert err == ""


def test_head_reads_the_first_lines_quietly():
    result = subprocess.run(f"{shlex.quote(sys.executable)} -m braincards.training.cli demo "
                            "oh_my_brain --seed 3 | head -n 2", shell=True, capture_output=True,
                            text=True, timeout=120)
    assert len(result.stdout.splitlines()) == 2
    assert result.stderr == ""


def test_ctrl_c_during_a_command(capsys, monkeypatch):
    from braincards.training.cli import evaluation as commands

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(commands, "cmd_evaluate", interrupted)
    rc, _, err = run(["evaluate", "the_brain", "--seat", "random"], capsys)
    assert rc == 130 and err == "braincards: interrupted\n"
