"""The policy registry: every kind of policy a spec string can name, and :func:`make_policy`.

:data:`KINDS` holds braincards' own kinds, one :class:`~.kinds.PolicyKind` each, declared
beside their implementations:

* ``random`` - :class:`~.policy.RandomPolicy`;
* ``heuristic`` - the game's rule-based player (:mod:`.heuristics`);
  ``heuristic:window=K`` (Brilliant Boar) remembers only the last K public events;
* ``greedy``, ``pimc`` / ``pimc:samples=N,nodes=N`` - The Brain's one-step greedy player and
  its PIMC search partner (:mod:`.search`);
* ``guided:checkpoint=NAME[,top=K,...]`` - The Brain: a checkpoint's network proposes, a search
  judges (:mod:`.search.guided`).

Outside packages add kinds through the ``braincards.policies`` entry-point group (the entry
point's name is the kind's name; it loads a :class:`~.kinds.PolicyKind`, or a factory or class
as ``module:attr`` specs do), and any importable ``package.module:attr`` is a spec by itself.
A checkpoint name (``"the_brain/ppo_3p"``, see :mod:`.locations`) or path (``runs/x/best``,
with or without ``.zip``) is a :class:`~.network.CheckpointPolicy`. A
:class:`~.policy.Policy` object is accepted as it is.

The CLI's help, the web app's seat choices, the docs' policy table and validation are all read
from here (:func:`kinds`, :func:`spec_help`, :func:`policy_table`).
"""

from __future__ import annotations

import importlib
import os
import warnings
from functools import cache
from importlib.metadata import entry_points

from braincards.envs import TableConfig, table_config

from .checkpoint import checkpoint_paths
from .heuristics import HEURISTIC
from .kinds import OUTSIDE, PolicyKind, parse_params, parse_spec
from .locations import available_checkpoints, checkpoint_dirs, resolve_checkpoint
from .network import load_policy
from .onnx_policy import OnnxPolicy
from .policy import PolicySpecError, RandomPolicy
from .search.greedy import GREEDY
from .search.guided import GUIDED
from .search.pimc import PIMC

ENTRY_POINT_GROUP = "braincards.policies"


def _random(seed: int | None = None) -> RandomPolicy:
    return RandomPolicy(seed)


RANDOM = PolicyKind("random", "uniformly random over the legal actions (RandomPolicy)", _random)

# braincards' own kinds, in the order help texts list them
KINDS: dict[str, PolicyKind] = {k.name: k for k in (RANDOM, HEURISTIC, GREEDY, PIMC, GUIDED)}


def _as_kind(name: str, obj, origin: str) -> PolicyKind:
    """An entry point's or ``module:attr``'s object as a kind: a PolicyKind as it is, a
    factory or class wrapped (any parameters, every game)."""
    if isinstance(obj, PolicyKind):
        return obj
    if not callable(obj):
        raise PolicySpecError(f"{origin} is a {type(obj).__name__}, not a PolicyKind, a policy factory "
                              f"or a policy class")
    doc = (getattr(obj, "__doc__", None) or "").strip().splitlines()
    return PolicyKind(name, doc[0] if doc else f"outside policy ({origin})", obj, params=None, origin=origin)


@cache
def _entry_points() -> dict:
    """The ``braincards.policies`` entry points by name (not loaded yet)."""
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


@cache
def _entry_point_kind(name: str) -> PolicyKind:
    ep = _entry_points()[name]
    origin = f"entry point {name!r} ({ep.value})"
    try:
        obj = ep.load()
    except Exception as err:  # outside code: any failure to import is the spec's error
        raise PolicySpecError(f"the policy kind {name!r} could not be loaded from {origin}: "
                              f"{type(err).__name__}: {err}") from None
    kind = _as_kind(name, obj, origin)
    if kind.name != name:
        raise PolicySpecError(f"{origin} declares the kind {kind.name!r}; an entry point's name is its kind's name")
    return kind


def kind(name: str) -> PolicyKind | None:
    """The kind named ``name``: braincards' own first, then the installed entry points."""
    if name in KINDS:
        return KINDS[name]
    if name in _entry_points():
        return _entry_point_kind(name)
    return None


def kinds() -> list[PolicyKind]:
    """Every kind: braincards' own, then each installed entry point that loads (one that does
    not, or that reuses a built-in name, is left out with a warning, once)."""
    return [*KINDS.values(), *_entry_point_kinds()]


@cache
def _entry_point_kinds() -> tuple[PolicyKind, ...]:
    out = []
    for name in sorted(_entry_points()):
        if name in KINDS:
            warnings.warn(f"the {ENTRY_POINT_GROUP} entry point {name!r} is ignored: braincards' own "
                          f"{name!r} kind has that name", stacklevel=3)
            continue
        try:
            out.append(_entry_point_kind(name))
        except PolicySpecError as err:
            warnings.warn(str(err), stacklevel=3)
    return tuple(out)


def refresh() -> None:
    """Forget the entry points read so far (after installing a package into a running process)."""
    for cached in (_entry_points, _entry_point_kind, _entry_point_kinds):
        cached.cache_clear()


def outside_kind(spec: str) -> tuple[PolicyKind, list[tuple[str, str]]]:
    """``package.module:attr[:KEY=VALUE,...]`` -> the kind it names and its parameter pairs."""
    module, attr, params = OUTSIDE.fullmatch(spec.strip()).groups()
    where = f"{module}:{attr}"
    try:
        obj = importlib.import_module(module)
    except ModuleNotFoundError as err:
        raise PolicySpecError(f"policy spec {spec!r}: no module named {err.name!r} "
                              f"(is it installed, or on PYTHONPATH?)") from None
    except Exception as err:  # outside code: any failure to import is the spec's error
        raise PolicySpecError(f"policy spec {spec!r}: importing {module!r} failed: "
                              f"{type(err).__name__}: {err}") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise PolicySpecError(f"policy spec {spec!r}: {module!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    found = _as_kind(where, obj, where)
    return found, parse_params(where, params or "")


def spec_help(game: str | None = None) -> str:
    """What a policy spec may be, with the checkpoint names found for ``game``."""
    shown = [k for k in kinds() if game is None or k.plays(game)]
    names = available_checkpoints(game)
    found = ", ".join(repr(n) for n in names) if names else "none found"
    return ("allowed policy specs: " + ", ".join(repr(k.usage(game)) for k in shown)
            + ", 'package.module:attr' (your own policy factory or class), 'onnx:PATH' (an exported "
            "network), a checkpoint path "
            f"(NAME.zip with NAME.json beside it), or a checkpoint name under "
            f"{' or '.join(str(d) for d in checkpoint_dirs())} ({found})")


def cli_help() -> str:
    """The CLI's one-paragraph help for a SPEC argument."""
    return ("policy spec: " + ", ".join(f"'{k.usage()}'" for k in kinds())
            + ", 'package.module:attr' (your own policy), 'onnx:PATH' (a network exported with "
            "braincards export), a checkpoint path (NAME.zip + NAME.json) "
            "or a shipped checkpoint name (e.g. the_brain/ppo_3p; also searched in "
            "$BRAINCARDS_CHECKPOINTS)")


def plain_kinds(game: str) -> list[str]:
    """The kinds that play ``game`` seated by their name alone (the web app's choices)."""
    return [k.name for k in kinds() if k.plain and k.plays(game)]


def make_policy(spec, game: str | TableConfig, config: dict | None = None, *, seed: int | None = None,
                deterministic: bool = True):
    """Resolve ``spec`` (a Policy or a spec string) to a fresh policy for ``game`` under
    ``config`` (or for a :class:`TableConfig` given as ``game``)."""
    if not isinstance(spec, str):
        if hasattr(spec, "act") and hasattr(spec, "reset"):
            return spec
        raise PolicySpecError(f"not a policy or a policy spec: {spec!r}; {spec_help(_game_id(game))}")
    table = table_config(game, config)
    key = spec.strip()
    name, _, rest = key.partition(":")
    if name.strip() == "onnx":
        return _onnx_policy(rest.strip(), key, table, seed, deterministic)
    found = kind(name.strip())
    if found is not None:
        return found.build(key, parse_spec(key)[2], table, seed)
    path = resolve_checkpoint(key)
    if path is not None:
        return load_policy(path, deterministic=deterministic, game=table.id, config=table.config, seed=seed,
                           name=key)
    if OUTSIDE.fullmatch(key):
        outside, pairs = outside_kind(key)
        return outside.build(key, pairs, table, seed)
    if key.endswith(".zip") or "/" in key or os.sep in key:
        zip_path, _ = checkpoint_paths(key)
        raise PolicySpecError(f"no checkpoint at {key!r} ({zip_path} not found); {spec_help(table.id)}")
    raise PolicySpecError(f"unknown policy spec {spec!r}; {spec_help(table.id)}")


def _game_id(game) -> str:
    return game.id if isinstance(game, TableConfig) else game


def _onnx_policy(path: str, spec: str, table: TableConfig, seed: int | None, deterministic: bool):
    """``onnx:PATH``: an exported network (a PolicySpecError when it cannot sit at this table)."""
    if not path:
        raise PolicySpecError("an ONNX policy spec names its file: onnx:PATH, e.g. onnx:runs/ppo_3p.onnx")
    policy = OnnxPolicy(path, table.id, deterministic=deterministic, seed=seed, name=spec)
    size = max(piece["stop"] for piece in table.layout().values())
    if policy.history_k == 0 and size < policy.observation_size:
        raise PolicySpecError(f"{spec} reads {policy.observation_size} observation floats; this table's "
                              f"observation has {size} (it was exported for {policy.info['env']})")
    return policy


def policy_table() -> str:
    """The docs' table of braincards' policy kinds (Markdown), generated from the registry."""
    rows = ["| spec | plays | parameters | what it is |", "|---|---|---|---|"]
    for k in KINDS.values():
        games = "every game" if k.games is None else ", ".join(f"`{g}`" for g in k.games)
        params = "; ".join(f"`{p.usage}`{' (required)' if p.required else ''}: {p.help}"
                           + (f" ({', '.join(p.games)} only)" if p.games else "")
                           + (" (" + "; ".join(f"{g}: {', '.join(cs)}" for g, cs in p.game_choices) + ")"
                              if p.game_choices else "")
                           for p in k.params or ()) or "none"
        cells = [f"`{k.usage()}`", games, params, k.help]
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows)
