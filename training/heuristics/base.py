"""What every rule-based player shares: it is built from the env's ``observation_layout()``
(named slices of the observation vector), checks that the pieces it reads are there, and
reads them by name."""

from __future__ import annotations


class LayoutPlayer:
    """Base of the heuristics: ``PIECES`` names the observation pieces the player reads."""

    name = "heuristic"
    PIECES: tuple[str, ...] = ()

    def __init__(self, layout: dict, config: dict | None = None, seed: int | None = None):
        missing = [k for k in self.PIECES if k not in layout]
        if missing:
            raise ValueError(f"{type(self).__name__} needs observation pieces {missing}")
        self.layout = layout
        self.config = dict(config or {})

    def reset(self, seed: int | None = None) -> None:
        """Stateless by default (deterministic players ignore ``seed``)."""

    def _piece(self, obs, name: str):
        p = self.layout[name]
        return obs[p["start"] : p["stop"]]
