"""A frozen copy of The Brain's search code as it was before the search-speed work
(solver, PIMC and greedy, verbatim but for absolute imports and the ``pimc_spec``
parser, which the registry of policy kinds replaced): the "before" reference of
``benchmarks/search_speed.py`` and of the agreement tests. Not part of the package; do not
edit."""

import importlib
import sys
from pathlib import Path


def load():
    """Import this folder as the package ``search_before`` (it is not on sys.path) and return
    its modules ``(solver, pimc, greedy)``."""
    here = Path(__file__).resolve().parent
    if "search_before" not in sys.modules:
        spec = importlib.util.spec_from_file_location("search_before", here / "__init__.py",
                                                      submodule_search_locations=[str(here)])
        module = importlib.util.module_from_spec(spec)
        sys.modules["search_before"] = module
        spec.loader.exec_module(module)
    return tuple(importlib.import_module(f"search_before.{m}") for m in ("solver", "pimc", "greedy"))
