"""Named slices of a flat observation vector (OpenSpiel-observer style)."""

from __future__ import annotations


class ObservationLayout:
    """An ordered list of named pieces; ``offset(name)`` and ``slice(name)`` locate each.

    Build it once per env config: ``layout.add("own_hand", 36, "multi-hot of card ids")``.
    """

    def __init__(self):
        self._pieces: list[tuple[str, int, int, str]] = []
        self._by_name: dict[str, tuple[int, int]] = {}
        self.size = 0

    def add(self, name: str, size: int, doc: str = "") -> int:
        if name in self._by_name:
            raise ValueError(f"observation piece {name!r} added twice")
        start = self.size
        self._pieces.append((name, start, size, doc))
        self._by_name[name] = (start, size)
        self.size += size
        return start

    def offset(self, name: str) -> int:
        return self._by_name[name][0]

    def slice(self, name: str) -> slice:
        start, size = self._by_name[name]
        return slice(start, start + size)

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    def as_dict(self) -> dict[str, dict]:
        """``{name: {"start", "stop", "size", "doc"}}`` in vector order."""
        return {
            name: {"start": start, "stop": start + size, "size": size, "doc": doc}
            for name, start, size, doc in self._pieces
        }

    def describe(self) -> str:
        """A Markdown table of the pieces (used for the games' docs pages)."""
        rows = ["| piece | slice | size | meaning |", "|---|---|---|---|"]
        for name, start, size, doc in self._pieces:
            rows.append(f"| `{name}` | {start}:{start + size} | {size} | {doc} |")
        return "\n".join(rows)
