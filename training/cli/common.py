"""What the ``braincards`` subcommands share: the table options
(``--games``, ``--config``, ``--set``, ``--seed``, ``--workers`` ...), and ``--json`` output."""

from __future__ import annotations

import argparse

from braincards.training import files


def add_table_options(p: argparse.ArgumentParser, *, games_default: int = 100, players: bool = True) -> None:
    """The options of every command that plays games at a table."""
    p.add_argument("--games", type=int, default=games_default, help="games to play (per cell/group)")
    p.add_argument("--config", default=None, metavar="CONFIG", help="env config: a YAML file (a mapping of env "
                   "options) or a shipped config's name (e.g. the_brain/team_3p)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override one env option (value parsed as YAML), repeatable")
    if players:
        p.add_argument("--players", type=int, default=None, help="num_players (default: 2)")
    p.add_argument("--seed", type=int, default=0, help="evaluation seed (default 0)")
    p.add_argument("--workers", type=int, default=1, help="parallel processes (same results)")
    p.add_argument("--stochastic", action="store_true",
                   help="checkpoints sample their actions instead of playing the most likely")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_config_warning_option(p)


def add_config_warning_option(p: argparse.ArgumentParser) -> None:
    """``--no-config-warning``: seat checkpoints at tables they were not trained for quietly."""
    p.add_argument("--no-config-warning", action="store_true",
                   help="don't warn when a checkpoint sits at a table whose game options differ "
                        "from the ones it was trained with")


def progress(args) -> bool | None:
    """``--quiet``: no progress bar; otherwise one when stderr is a terminal."""
    return False if args.quiet else None


def write_json_result(path: str | None, result) -> None:
    """``--json FILE``: the command's full result as JSON (nothing when ``path`` is None)."""
    if path:
        files.write_json(path, result)  # whole or not at all
        print(f"\nwrote {path}")


def rllib_extra():
    """The rllib extra's entry points (:mod:`braincards.training.learning.rllib.extra`), imported
    only by the commands that need Ray (a ValueError saying what to install without it)."""
    try:  # optional: the rllib extra (ray), imported only for --backend rllib and --ray-address
        from ..learning.rllib import extra  # noqa: PLC0415
    except ImportError as err:
        raise ValueError(f"this needs Ray RLlib: pip install 'braincards[rllib]' ({err})") from None
    return extra
