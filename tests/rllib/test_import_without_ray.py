"""braincards imports RLlib lazily: the package, its CLI and the rllib subpackage import
without ray (this test runs in the main venv, which has no ray, and in .rllib-venv)."""

from __future__ import annotations

import subprocess
import sys


def test_braincards_training_imports_without_ray():
    code = (
        "import sys\n"
        "import braincards.training, braincards.training.cli.main, braincards.training.learning.rllib\n"
        "from braincards.training.cli.main import build_parser\n"
        "build_parser()\n"
        "print('ray' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False", result.stdout + result.stderr
