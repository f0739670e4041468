"""Rule-based players, one per game, reading only their own observation.

Each heuristic is built from the env's ``observation_layout()`` (named slices of the
observation vector) and never touches the env's hidden state. ``make_heuristic(game,
config)`` builds the one for a game; :data:`HEURISTICS` maps each game's id to its player
(a new game's heuristic: one more entry there).
"""

from __future__ import annotations

from braincards.envs import TableConfig, table_config

from ..kinds import Param, PolicyKind
from .base import LayoutPlayer
from .brilliant_boar import BrilliantBoarHeuristic, BrilliantBoarWindowHeuristic
from .oh_my_brain import OhMyBrainHeuristic
from .the_brain import STYLES as THE_BRAIN_STYLES
from .the_brain import TheBrainHeuristic
from .the_brain_scoring import TheBrainScoringHeuristic

# each game's styles of play, the default first (``heuristic:style=NAME``)
STYLES: dict[str, tuple[str, ...]] = {
    TheBrainHeuristic.GAME: (*THE_BRAIN_STYLES, "scoring"),
    OhMyBrainHeuristic.GAME: OhMyBrainHeuristic.STYLES,
    BrilliantBoarHeuristic.GAME: BrilliantBoarHeuristic.STYLES,
}
HEURISTICS: dict[str, type[LayoutPlayer]] = {
    cls.GAME: cls for cls in (TheBrainHeuristic, OhMyBrainHeuristic, BrilliantBoarHeuristic)
}


def heuristic_class(game: str) -> type[LayoutPlayer]:
    """The heuristic player class of ``game`` (a ValueError naming the games with one)."""
    if game not in HEURISTICS:
        raise ValueError(f"no heuristic for game {game!r}; games with one: {sorted(HEURISTICS)}")
    return HEURISTICS[game]


def make_heuristic(table: str | TableConfig, config: dict | None = None, seed: int | None = None,
                   window: int | None = None, style: str | None = None) -> LayoutPlayer:
    """The heuristic player of ``game`` for an env built with ``config``; with ``window``
    (Brilliant Boar), the one that remembers only the last ``window`` public events
    (``BrilliantBoarWindowHeuristic``); with ``style``, that style of play (:data:`STYLES`;
    the first is the default)."""
    table = table_config(table, config)
    styled = {} if style is None else {"style": style}
    if window is not None:
        return BrilliantBoarWindowHeuristic.for_game(table, seed=seed, window=window, **styled)
    if style == "scoring":
        return TheBrainScoringHeuristic.for_game(table, seed=seed)
    return heuristic_class(table.id).for_game(table, seed=seed, **styled)


HEURISTIC = PolicyKind(
    "heuristic", "the game's rule-based player", make_heuristic,
    params=(Param("window", int, "remember only the last K public events, K = 1..256",
                  games=(BrilliantBoarWindowHeuristic.GAME,), metavar="K"),
            Param("style", str, "a style of play, the first of its game the default",
                  game_choices=tuple(STYLES.items()), metavar="STYLE")),
    games=tuple(HEURISTICS), example="heuristic:window=16",
)

__all__ = ["HEURISTIC", "HEURISTICS", "STYLES", "heuristic_class", "make_heuristic"]
