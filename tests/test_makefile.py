"""What the Makefile's targets do to the machine: `make test` installs nothing outside the
project's venv (no apt, even as root); `make chromium` is the one target that calls apt, and
it says what it will add before it does."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make on PATH")


def _dry_run(target: str) -> str:
    """The commands ``make TARGET`` would run (``make -n``: printed, not run), with the venv's
    stamp taken as fresh so that the install steps are left out."""
    result = subprocess.run(["make", "-n", "-o", ".venv/.installed", target], cwd=ROOT, capture_output=True,
                            text=True, check=True)
    return result.stdout


def test_make_test_never_calls_apt_or_sudo():
    commands = _dry_run("test")
    assert "pytest" in commands  # the dry run did reach the test suite
    assert "apt" not in commands and "sudo" not in commands, commands


def test_make_chromium_lists_the_packages_before_installing_them():
    commands = _dry_run("chromium")
    assert commands.index("apt-get install -s") < commands.index("apt-get install -y")
    assert "--no-install-recommends chromium" in commands


def test_ci_installs_chromium_explicitly_before_the_tests():
    steps = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("make ")]
    assert steps[:2] == ["make chromium", "make test"], steps


def test_make_train_runs_the_main_jobs_config_and_it_exists():
    commands = _dry_run("train")
    assert "braincards train configs/oh_my_brain/train_2p.yaml --out runs/train_2p-seed0" in commands, commands
    assert (ROOT / "configs" / "oh_my_brain" / "train_2p.yaml").is_file()
