"""Policy specs: the strings that name a policy wherever one is accepted.

:func:`make_policy` turns a spec into a fresh policy for a game:

* ``"random"`` - :class:`~.policy.RandomPolicy`;
* ``"heuristic"`` - the game's rule-based player (:mod:`.heuristics`);
  ``"heuristic:window=K"`` (Brilliant Boar) remembers only the last K public events;
* ``"greedy"``, ``"pimc"`` / ``"pimc:samples=N,nodes=N"`` - The Brain's one-step greedy
  player and its PIMC search partner (:mod:`.search`);
* ``"guided:checkpoint=NAME,top=K"`` - The Brain: a checkpoint's network proposes its K most
  likely actions and greedy's look-ahead picks one (:mod:`.search.guided`);
* a checkpoint name (``"the_brain/ppo_3p"``, see :mod:`.locations`) or path (``runs/x/best``,
  with or without ``.zip``) - a :class:`~.network.CheckpointPolicy`.

A :class:`~.policy.Policy` object is accepted as it is.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from .checkpoint import checkpoint_paths
from .heuristics import heuristic_spec, make_heuristic
from .locations import available_checkpoints, checkpoint_dirs, resolve_checkpoint
from .network import load_policy
from .policy import PolicySpecError, RandomPolicy
from .search.greedy import make_greedy
from .search.guided import guided_spec
from .search.pimc import make_pimc, pimc_spec


def _random(game: str, config: dict, seed: int | None = None) -> RandomPolicy:
    return RandomPolicy(seed)


# spec name -> factory(game, config, seed=seed) of a fresh policy
BUILTIN_SPECS: dict[str, Callable] = {
    "random": _random,
    "heuristic": make_heuristic,
    "greedy": make_greedy,  # The Brain
    "pimc": make_pimc,  # The Brain
}
# specs that take parameters (``NAME:KEY=VALUE,...``): name -> builder(params) -> factory
PARAMETERISED_SPECS: dict[str, Callable] = {
    "pimc": pimc_spec,  # pimc:samples=16,nodes=2000
    "heuristic": heuristic_spec,  # Brilliant Boar: heuristic:window=16
    "guided": guided_spec,  # The Brain: guided:checkpoint=the_brain/ppo_3p_long,top=3 (parameters only)
}
SPEC_PARAMETERS = ("'pimc:samples=N,nodes=N' (The Brain), 'guided:checkpoint=NAME,top=K' (The Brain), "
                   "'heuristic:window=K' (Brilliant Boar)")


def spec_help(game: str | None = None) -> str:
    """What a policy spec may be, with the checkpoint names found for ``game``."""
    names = available_checkpoints(game)
    shown = ", ".join(repr(n) for n in names) if names else "none found"
    return (
        "allowed policy specs: " + ", ".join(repr(k) for k in BUILTIN_SPECS)
        + f" (with parameters: {SPEC_PARAMETERS})"
        + ", a checkpoint path (NAME.zip with NAME.json "
        f"beside it), or a checkpoint name under {' or '.join(str(d) for d in checkpoint_dirs())} "
        f"({shown})"
    )


def _parameterised(spec: str, name: str, params: str, game: str, config: dict, seed: int | None):
    if name not in PARAMETERISED_SPECS:
        raise PolicySpecError(f"the {name!r} policy takes no parameters (got {spec!r}); "
                              f"parameters go with: {SPEC_PARAMETERS}")  # fmt: skip
    try:
        return PARAMETERISED_SPECS[name](params)(game, config, seed=seed)
    except PolicySpecError:
        raise
    except ValueError as err:
        raise PolicySpecError(f"bad policy spec {spec!r}: {err}") from None


def make_policy(spec, game: str, config: dict | None = None, *, seed: int | None = None,
                deterministic: bool = True):  # fmt: skip
    """Resolve ``spec`` (a Policy or a spec string) to a fresh policy for ``game``."""
    if not isinstance(spec, str):
        if hasattr(spec, "act") and hasattr(spec, "reset"):
            return spec
        raise PolicySpecError(f"not a policy or a policy spec: {spec!r}; {spec_help(game)}")
    key = spec.strip()
    if key in BUILTIN_SPECS:
        return BUILTIN_SPECS[key](game, config or {}, seed=seed)
    name, sep, params = key.partition(":")
    if (sep and name in BUILTIN_SPECS) or name in PARAMETERISED_SPECS:
        return _parameterised(spec, name, params, game, config or {}, seed)
    path = resolve_checkpoint(key)
    if path is not None:
        return load_policy(path, deterministic=deterministic, game=game, config=config, seed=seed,
                           name=key)  # fmt: skip
    if key.endswith(".zip") or "/" in key or os.sep in key:
        zip_path, _ = checkpoint_paths(key)
        raise PolicySpecError(f"no checkpoint at {key!r} ({zip_path} not found); {spec_help(game)}")
    raise PolicySpecError(f"unknown policy spec {spec!r}; {spec_help(game)}")
