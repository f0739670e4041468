"""braincards environments: ``make(name, **config)`` and the ``ENVS`` registry.

Importing this package also registers every env with PettingZoo's registry (where the
installed PettingZoo has one, 1.27+) and the solo variants with gymnasium.
"""

from __future__ import annotations

import importlib

import gymnasium

from .core.errors import IllegalActionError

# env id -> module with env() / raw_env()
ENVS: dict[str, str] = {
    "the_brain_v0": "braincards.envs.the_brain",
    "oh_my_brain_v0": "braincards.envs.oh_my_brain",
    "brilliant_boar_v0": "braincards.envs.brilliant_boar",
}

# gymnasium id -> "module:factory" of the single-agent solo variants
SOLO_ENVS: dict[str, str] = {
    "braincards/TheBrainSolo-v0": "braincards.envs.the_brain:solo_env",
    "braincards/BrilliantBoarSolo-v0": "braincards.envs.brilliant_boar:solo_env",
}


def _module(name: str):
    if name not in ENVS:
        raise ValueError(f"unknown game {name!r}; known games: {sorted(ENVS)}")
    return importlib.import_module(ENVS[name])


def make(name: str, *, raw: bool = False, **config):
    """Create the env ``name`` (e.g. ``"the_brain_v0"``) with the given config.

    ``raw=True`` returns the unwrapped env; otherwise PettingZoo's order-enforcing
    wrapper is applied, as ``<game>.env()`` does.
    """
    module = _module(name)
    return module.raw_env(**config) if raw else module.env(**config)


def _register() -> None:
    for gym_id, entry in SOLO_ENVS.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(id=gym_id, entry_point=entry, disable_env_checker=True)
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # PettingZoo < 1.27 has no registry
        return
    for name, module in ENVS.items():
        game, version = name.rsplit("_v", 1)
        env_id = f"braincards/{game}-v{version}"
        if env_id not in aec_registry:
            register("aec", env_id, entry_point=f"{module}:env")


_register()

__all__ = ["ENVS", "SOLO_ENVS", "IllegalActionError", "make"]
