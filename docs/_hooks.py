"""mkdocs hook: lets mkdocstrings (griffe) find ``braincards``.

The package is installed with a ``package-dir`` mapping (``braincards.envs`` is ``envs/``,
``braincards.training`` is ``training/``, ``braincards.checkpoints`` is ``checkpoints/``), which
griffe's static loader cannot follow. Before the plugins read their config, this builds a
scratch folder holding ``braincards/`` with links to those three folders and adds it to the
python handler's search paths. Nothing is imported.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"envs": "envs", "training": "training", "checkpoints": "checkpoints"}


@event_priority(100)  # before mkdocstrings' own on_config
def on_config(config, **kwargs):
    scratch = Path(tempfile.mkdtemp(prefix="braincards-docs-"))
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)
    package = scratch / "braincards"
    package.mkdir()
    (package / "__init__.py").write_text('"""braincards."""\n')
    for name, folder in FOLDERS.items():
        (package / name).symlink_to(ROOT / folder, target_is_directory=True)
    python = config.plugins["mkdocstrings"].config.setdefault("handlers", {}).setdefault("python", {})
    python["paths"] = [str(scratch), *python.get("paths", [])]
    return config
