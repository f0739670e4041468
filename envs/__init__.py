"""braincards environments: ``make(name, **config)``, the game specs and the registries.

* :data:`GAMES` - the game packages (one line registers a game);
* :data:`SPECS` - env id -> :class:`~braincards.envs.core.spec.GameSpec`, what every other
  layer reads instead of branching on a game id; :func:`get_spec` looks one up by id or name;
* :data:`ENVS` - env id -> the module with ``env()`` / ``raw_env()``;
* :func:`table_config` - a game and its options resolved once into a
  :class:`~braincards.envs.core.table_config.TableConfig`, what the layers above pass down.

Importing this package also registers every env with PettingZoo's registry (where the
installed PettingZoo has one, 1.27+) and the solo variants with gymnasium.
"""

from __future__ import annotations

import gymnasium

from . import brilliant_boar, oh_my_brain, the_brain
from .core.errors import IllegalActionError
from .core.rng import derive_seed
from .core.spec import GameSpec, find_spec
from .core.table_config import TableConfig, table_config

GAMES = (the_brain, oh_my_brain, brilliant_boar)  # a new game: one more entry here

SPECS: dict[str, GameSpec] = {game.SPEC.id: game.SPEC for game in GAMES}
ENVS: dict[str, str] = {game.SPEC.id: game.__name__ for game in GAMES}

# gymnasium id -> "module:factory" of the single-agent solo variants
SOLO_ENVS: dict[str, str] = {
    "braincards/TheBrainSolo-v0": "braincards.envs.the_brain:solo_env",
    "braincards/BrilliantBoarSolo-v0": "braincards.envs.brilliant_boar:solo_env",
}


def get_spec(name: str) -> GameSpec:
    """The spec of a game by env id or name (``"the_brain_v0"`` or ``"the_brain"``); a
    ValueError names the known games otherwise."""
    return find_spec(name)


def make(name: str, *, raw: bool = False, **config):
    """Create the env ``name`` (e.g. ``"the_brain_v0"``) with the given config.

    ``raw=True`` returns the unwrapped env; otherwise PettingZoo's order-enforcing
    wrapper is applied, as ``<game>.env()`` does.
    """
    if name not in SPECS:
        raise ValueError(f"unknown game {name!r}; known games: {sorted(SPECS)}")
    spec = SPECS[name]
    return spec.raw_env(**config) if raw else spec.env(**config)


def _register() -> None:
    for gym_id, entry in SOLO_ENVS.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(id=gym_id, entry_point=entry, disable_env_checker=True)
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # optional: PettingZoo < 1.27 has no registry
        return
    for name, module in ENVS.items():
        game, version = name.rsplit("_v", 1)
        env_id = f"braincards/{game}-v{version}"
        if env_id not in aec_registry:
            register("aec", env_id, entry_point=f"{module}:env")


_register()

__all__ = ["ENVS", "GAMES", "SOLO_ENVS", "SPECS", "GameSpec", "IllegalActionError", "TableConfig",
           "derive_seed", "get_spec", "make", "table_config"]
