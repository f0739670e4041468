"""The wheel's one build step beyond pyproject.toml: its checkpoints are play-only copies.

Everything else about the package is declared in pyproject.toml. After setuptools copies the
package data, each shipped checkpoint (``braincards/checkpoints/<game>/<name>.zip`` + ``.json``)
is rewritten as its play-only copy, the actor without the critic
(``training/agents/play_only.py``, standard library only, loaded from its file because the
package is not installed while it is being built). That halves The Brain's networks and keeps
the wheel under 30 MB; editable installs and the repository keep the full checkpoints.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def _play_only():
    spec = importlib.util.spec_from_file_location("_braincards_play_only", HERE / "training" / "agents" / "play_only.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildPyPlayOnly(build_py):
    """build_py, then each checkpoint in the build folder replaced by its play-only copy."""

    def run(self):
        super().run()
        play_only = _play_only()
        folder = Path(self.build_lib) / "braincards" / "checkpoints"
        for zip_path in sorted(folder.glob("*/*.zip")):
            json_path = zip_path.with_suffix(".json")
            play_only.write_play_only(zip_path, json_path, zip_path, json_path)


setup(cmdclass={"build_py": BuildPyPlayOnly})
