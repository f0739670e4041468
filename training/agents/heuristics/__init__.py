"""Rule-based players, one per game, reading only their own observation.

Each heuristic is built from the env's ``observation_layout()`` (named slices of the
observation vector) and never touches the env's hidden state. ``make_heuristic(game,
config)`` builds the one for a game; :data:`HEURISTICS` maps each game's id to its player
(a new game's heuristic: one more entry there).
"""

from __future__ import annotations

from ..policy import parse_spec_params
from .base import LayoutPlayer
from .brilliant_boar import BrilliantBoarHeuristic, BrilliantBoarWindowHeuristic
from .oh_my_brain import OhMyBrainHeuristic
from .the_brain import TheBrainHeuristic

HEURISTICS: dict[str, type[LayoutPlayer]] = {
    cls.GAME: cls for cls in (TheBrainHeuristic, OhMyBrainHeuristic, BrilliantBoarHeuristic)
}


def heuristic_class(game: str) -> type[LayoutPlayer]:
    """The heuristic player class of ``game`` (a ValueError naming the games with one)."""
    if game not in HEURISTICS:
        raise ValueError(f"no heuristic for game {game!r}; games with one: {sorted(HEURISTICS)}")
    return HEURISTICS[game]


def make_heuristic(game: str, config: dict | None = None, seed: int | None = None) -> LayoutPlayer:
    """The heuristic player of ``game`` for an env built with ``config``."""
    return heuristic_class(game).for_game(game, config, seed=seed)


def heuristic_spec(params: str):
    """``heuristic:window=K`` (Brilliant Boar) -> a factory(game, config, seed=...) of the
    heuristic that remembers only the last K public events (``BrilliantBoarWindowHeuristic``)."""
    kw = parse_spec_params(params, {"window": int}, spec="heuristic")
    if "window" not in kw:
        raise ValueError("heuristic parameters: window=K (Brilliant Boar), e.g. heuristic:window=16")

    def factory(game, config, seed=None):
        return BrilliantBoarWindowHeuristic.for_game(game, config, seed=seed, window=kw["window"])

    return factory


__all__ = ["HEURISTICS", "heuristic_class", "heuristic_spec", "make_heuristic"]
