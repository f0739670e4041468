"""The `braincards demo` and `braincards bench` commands."""

from __future__ import annotations

import subprocess
import sys

from braincards.training.cli.main import main
from braincards.training.evaluation import bench


def test_demo_plays_a_whole_game_printing_the_table_after_every_decision(capsys):
    assert main(["demo", "the_brain", "--players", "3", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    tables = out.count("The Brain  turn")
    moves = out.count("\nplayer_")
    assert tables == moves + 1 >= 2  # the opening table, then one per decision
    assert out.rstrip().splitlines()[-1].startswith("result (game over): player_0 ")


def test_demo_is_reproducible_from_the_seed(capsys):
    main(["demo", "the_brain_v0", "--players", "2", "--seed", "5"])
    first = capsys.readouterr().out
    main(["demo", "the_brain_v0", "--players", "2", "--seed", "5"])
    assert capsys.readouterr().out == first


def test_demo_errors_name_what_was_wrong(capsys):
    assert main(["demo", "hanabi"]) == 2  # the README promises exit status 2
    err = capsys.readouterr().err
    assert err.startswith("braincards: error: unknown game 'hanabi'; known games:")
    assert "the_brain_v0" in err
    assert main(["demo", "the_brain", "--players", "7"]) == 2
    assert "num_players=7 is out of range; allowed: integers in 1..4" in capsys.readouterr().err


def test_bench_prints_a_table_with_decisions_per_second():
    said: list = []
    rows = bench.run(seconds=0.05, repeats=1, only=["the_brain_v0"], progress=said.append)
    brain = [r for r in rows if r["env"].startswith("the_brain_v0")]
    assert len(brain) == 3 and all(r["decisions_per_s"] > 0 for r in brain)
    # it says how long it will take, then each env as it is measured (issue 40: 90 s of silence)
    assert said[0] == f"bench: {len(rows)} envs x 1 runs x 0.05 s (about 0 s)" and len(said) == 1 + len(rows)
    assert said[1].startswith("bench: 1/") and said[1].endswith(" decisions/s")
    table = bench.format_table(rows)
    assert table.startswith("| env | decisions/s | ratio to leduc_holdem_v4 |")
    # without the peer, the empty ratio column is explained
    assert ("`make bench` runs this benchmark in .bench-venv" in table) == (bench.PEERS_MISSING != "")


def test_console_script_runs():
    result = subprocess.run(
        [sys.executable, "-m", "braincards.training.cli.main", "bench", "--seconds", "0.02", "--repeats", "1", "--only", "the_brain_v0"],
        capture_output=True, text=True, check=True,
    )
    assert "| the_brain_v0 {'num_players': 3} |" in result.stdout
