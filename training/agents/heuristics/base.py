"""What every rule-based player shares: it is built from the env's ``observation_layout()``
(named slices of the observation vector), checks that the pieces it reads are there, and
reads them by name."""

from __future__ import annotations

from braincards.envs import TableConfig, get_spec, table_config


class LayoutPlayer:
    """Base of the heuristics: ``PIECES`` names the observation pieces the player reads."""

    name = "heuristic"
    GAME: str = ""  # the id of the game it plays (its spec's)
    PIECES: tuple[str, ...] = ()

    @classmethod
    def for_game(cls, table: str | TableConfig, config: dict | None = None, seed: int | None = None, **kwargs):
        """A player for ``table`` (a :class:`TableConfig`, or a game and its ``config``) built
        from the env's layout (a ValueError when it plays another game, or for a bad config)."""
        table = table_config(table, config)
        if table.id != cls.GAME:
            raise ValueError(f"the {cls.name} policy plays {get_spec(cls.GAME).title} only "
                             f"({cls.GAME} only), not {table.id}")
        return cls(table.layout(), table.config, seed=seed, **kwargs)

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
