"""The house stays as designed: no import cycles, imports at module top (the optional extras
and one heavy import deferred to its command aside, each commented "optional"), no function over 60 lines outside the
rules engines, a docstring on every module, and no game id spelled out in training/ beyond a
few docstrings and help texts. ``make test`` also runs import-linter's layer contracts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("house_metrics", ROOT / "benchmarks" / "house_metrics.py")
house = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(house)
MEASURES = house.measure()


def test_no_import_cycles():
    assert MEASURES["import_cycles"] == []
    assert MEASURES["mutual_import_pairs"] == []


def test_imports_inside_functions_are_optional_extras_only():
    for place in MEASURES["imports_inside_functions"]:
        path, line = place.rsplit(":", 1)
        lines = (ROOT / path).read_text().splitlines()
        context = "\n".join(lines[int(line) - 3 : int(line)])
        assert "optional" in context, f"{place}: an import inside a function that is no optional extra"
    # ray for --backend rllib and --ray-address, and the benchmark's scorecard (rliable and
    # its stack: 1.5 s that every other command would pay at startup)
    assert len(MEASURES["imports_inside_functions"]) <= 3


def test_functions_are_short():
    assert MEASURES["functions_over_60_lines"] == []


def test_every_module_says_what_it_is_for():
    assert MEASURES["modules_without_docstring"] == []


def test_game_ids_live_in_envs():
    assert len(MEASURES["game_id_lines_in_training"]) <= 5, MEASURES["game_id_lines_in_training"]
