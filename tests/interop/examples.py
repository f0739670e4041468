"""The interop tests' access to the examples: each example is a script in examples/, loaded
as a module by its path (they are not part of the package)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_example(path: str):
    """The example at ``path`` (relative to the repository, e.g. ``examples/torchrl_ppo.py``)
    as a module."""
    spec = importlib.util.spec_from_file_location(Path(path).stem + "_example", ROOT / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
