"""The experiment side imports and answers --help: every script of benchmarks/ (a package),
imported as the tests and as `python benchmarks/NAME.py` would (an import error in a script
that is only run by hand fails here, not months later)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p.stem for p in (ROOT / "benchmarks").glob("*.py") if p.stem != "__init__")


@pytest.fixture(autouse=True)
def _repository_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))


def test_every_script_is_found():
    assert {"results_page", "leaderboard_page", "learning", "search_speed", "experiments"} <= set(SCRIPTS)


@pytest.mark.parametrize("name", SCRIPTS)
def test_every_script_imports_and_answers_help(name, capsys):
    module = importlib.import_module(f"benchmarks.{name}")
    if name in ("experiments", "env_throughput"):  # a data loader; the bench's own main is tested elsewhere
        return
    with pytest.raises(SystemExit) as done:
        module.main(["--help"])
    assert done.value.code == 0
    assert "usage:" in capsys.readouterr().out


def test_a_script_runs_as_a_file():
    """`python benchmarks/NAME.py` (the benchmarks' own folder first on sys.path) finds the package."""
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "learning.py"), "--list"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT / "docs")
    assert out.returncode == 0, out.stderr
    assert "the_brain/ppo_3p: configs/the_brain/train_3p.yaml" in out.stdout


def test_the_experiments_file_is_checked(tmp_path):
    from benchmarks import experiments

    data = experiments.load()
    assert set(data["shipped"]) == set(experiments.shipped_checkpoints())
    bad = (ROOT / "configs" / "experiments.yaml").read_text().replace("the_brain/ppo_4p_13m}", "the_brain/ppo_4p_99m}")
    (tmp_path / "e.yaml").write_text(bad)
    with pytest.raises(ValueError, match=r"checkpoints \['the_brain/ppo_4p_99m'\] are not shipped"):
        experiments.load(tmp_path / "e.yaml")


def test_the_search_code_of_before_is_read_from_git():
    """benchmarks/search_speed.py times today's search against the code of before, read from
    the git ref that last held it (the frozen copy is no longer in the tree)."""
    from benchmarks import search_speed

    have = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{search_speed.BEFORE_REF}^{{commit}}"],
                          capture_output=True)
    if have.returncode != 0:
        pytest.skip(f"this clone lacks the history holding {search_speed.BEFORE_REF} (a shallow clone)")
    solver, pimc, greedy = search_speed.load_before()
    assert solver.__name__ == "search_before.solver" and hasattr(pimc, "PIMCPolicy") and hasattr(greedy, "TheBrainGreedy")
    assert not (ROOT / "benchmarks" / "search_before").exists()
