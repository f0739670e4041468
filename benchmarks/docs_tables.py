"""The docs' tables that are generated from the code, written in place between their markers.

    python benchmarks/docs_tables.py            # rewrite them
    python benchmarks/docs_tables.py --check    # exit 1 when a page is stale

* ``docs/agents.md``: the policy kinds of the registry
  (:func:`braincards.training.agents.specs.policy_table`).
* ``docs/training.md``: the recipes' documented ranges over seeds
  (:func:`braincards.training.learning.ranges.ranges_table`, from ``configs/ranges.yaml``).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from braincards.training.agents.specs import policy_table
from braincards.training.learning.ranges import ranges_table

ROOT = Path(__file__).resolve().parents[1]
TABLES = {  # page -> (marker name, generator)
    ROOT / "docs" / "agents.md": ("policy-table", policy_table),
    ROOT / "docs" / "training.md": ("ranges-table", ranges_table),
}


def render(text: str, marker: str, table: str) -> str:
    """``text`` with the block between ``<!-- marker: ... -->`` and ``<!-- /marker -->`` replaced."""
    block = re.compile(rf"(<!-- {marker}:[^\n]*-->\n)(.*?)(<!-- /{marker} -->)", re.DOTALL)
    if not block.search(text):
        raise ValueError(f"no <!-- {marker}: ... --> ... <!-- /{marker} --> block")
    return block.sub(lambda m: m.group(1) + table + "\n" + m.group(3), text, count=1)


def stale() -> list[Path]:
    """The pages whose generated tables differ from the code's."""
    return [page for page, (marker, make) in TABLES.items()
            if render(page.read_text(), marker, make()) != page.read_text()]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="exit 1 when a page is stale, change nothing")
    args = p.parse_args(argv)
    pages = stale()
    if args.check:
        for page in pages:
            print(f"{page.relative_to(ROOT)} is stale: run python benchmarks/docs_tables.py")
        return 1 if pages else 0
    for page in pages:
        marker, make = TABLES[page]
        page.write_text(render(page.read_text(), marker, make()))
        print(f"wrote {page.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
