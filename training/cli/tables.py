"""The table a command plays at: ``--config``, ``--set`` and ``--players``, or, with none of
them given, the table the seated checkpoints were trained at. Apart from :mod:`.common` so that
commands that seat no policy (``oracle``) do not load the checkpoint machinery (torch)."""

from __future__ import annotations

import sys

from braincards.training.agents.locations import adopted_options
from braincards.training.learning.yaml_files import load_env_config


def table_options(args, specs=(), seats: int | None = None) -> dict:
    """The env config of a table command: ``--config`` and ``--set``, then ``--players``.
    With none of them given, the table takes the options the seated checkpoints (``specs``)
    were trained with, saying so in one line (:func:`~..agents.locations.adopted_options`);
    ``seats`` is the player count when the seats fix it."""
    config = load_env_config(args.config, args.set)
    players = getattr(args, "players", None)
    if players is not None:
        config["num_players"] = players
    if not config and not args.config:
        config, note = adopted_options(args.game, specs, seats)
        if note:
            print(f"braincards: {note}", file=sys.stderr)
    return config
