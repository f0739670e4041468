"""Rule-based players, one per game, reading only their own observation.

Each heuristic is built from the env's ``observation_layout()`` (named slices of the
observation vector) and never touches the env's hidden state. ``make_heuristic(game,
config)`` builds the one for a game.
"""

from __future__ import annotations

import importlib

HEURISTICS: dict[str, str] = {
    "the_brain_v0": "braincards.training.heuristics.the_brain:TheBrainHeuristic",
    "oh_my_brain_v0": "braincards.training.heuristics.oh_my_brain:OhMyBrainHeuristic",
    "brilliant_boar_v0": "braincards.training.heuristics.brilliant_boar:BrilliantBoarHeuristic",
}


def heuristic_class(game: str):
    if game not in HEURISTICS:
        raise ValueError(f"no heuristic for game {game!r}; games with one: {sorted(HEURISTICS)}")
    module, cls = HEURISTICS[game].split(":")
    return getattr(importlib.import_module(module), cls)


def make_heuristic(game: str, config: dict | None = None, seed: int | None = None):
    """The heuristic player of ``game`` for an env built with ``config``."""
    from ..checkpoint import observation_layout

    cls = heuristic_class(game)
    return cls(observation_layout(game, config), dict(config or {}), seed=seed)


def heuristic_spec(params: str):
    """``heuristic:window=K`` (Brilliant Boar) -> a factory(game, config, seed=...) of the
    heuristic that remembers only the last K public events (``BrilliantBoarWindowHeuristic``)."""
    from ..policies import parse_spec_params

    kw = parse_spec_params(params, {"window": int}, spec="heuristic")
    if "window" not in kw:
        raise ValueError("heuristic parameters: window=K (Brilliant Boar), e.g. heuristic:window=16")

    def factory(game, config, seed=None):
        if game != "brilliant_boar_v0":
            raise ValueError(f"heuristic:window=K is for brilliant_boar_v0 only (got {game})")
        from ..checkpoint import observation_layout
        from .brilliant_boar import BrilliantBoarWindowHeuristic

        return BrilliantBoarWindowHeuristic(observation_layout(game, config), dict(config or {}),
                                            seed=seed, window=kw["window"])  # fmt: skip

    return factory


__all__ = ["HEURISTICS", "heuristic_class", "heuristic_spec", "make_heuristic"]
