"""Where checkpoints are found: the shipped ones (``braincards.checkpoints``), the folders
of ``$BRAINCARDS_CHECKPOINTS``, and paths.

A checkpoint *name* (``"the_brain/ppo_3p"``) is looked up in :func:`checkpoint_dirs`; a
name must stay inside the folder it is looked up in (``..`` cannot climb out of it). Anything
else is taken as a path (``runs/x/best``, with or without ``.zip``).
"""

from __future__ import annotations

import os
from pathlib import Path

import braincards.checkpoints as shipped

from .checkpoint import CheckpointError, checkpoint_paths, read_metadata


def shipped_checkpoints_dir() -> Path:
    """The checkpoints shipped with the package (``braincards.checkpoints``)."""
    return Path(next(iter(shipped.__path__)))


def checkpoint_dirs() -> list[Path]:
    """Where checkpoint *names* are looked up, in order: the package's own checkpoints, then
    each folder of ``$BRAINCARDS_CHECKPOINTS`` (``os.pathsep``-separated). The current
    directory is never searched for a name, so a ``./checkpoints`` folder cannot stand in
    for a shipped policy; give a path (``./checkpoints/x.zip``) to load one from there."""
    dirs = [shipped_checkpoints_dir()]
    for part in os.environ.get("BRAINCARDS_CHECKPOINTS", "").split(os.pathsep):
        if part.strip():
            dirs.append(Path(part.strip()))
    return dirs


def trained_options(specs, game: str) -> dict[str, dict]:
    """``{spec: the options it was trained with}`` for each of ``specs`` that names a
    checkpoint of ``game`` (anything else, or a checkpoint that does not read, is left to the
    policy's own loading to accept or refuse)."""
    found: dict[str, dict] = {}
    for spec in specs:
        if not isinstance(spec, str) or spec in found:
            continue
        try:
            path = resolve_checkpoint(spec)
            meta = read_metadata(path) if path is not None else None
        except (CheckpointError, OSError, ValueError):
            continue
        if meta is not None and meta.get("game") == game and isinstance(meta.get("env_config"), dict):
            found[spec] = dict(meta["env_config"])
    return found


def adopted_options(game: str, specs, seats: int | None = None) -> tuple[dict, str | None]:
    """The table's options when the user set none: the options the seated checkpoints were
    trained with, when they agree (``num_players`` only where the seats do not fix it), and
    the one line that says so; ``({}, None)`` when no checkpoint is seated, or when the
    checkpoints were trained at different tables (the game's defaults then, and each
    checkpoint's warning)."""
    trained = trained_options(specs, game)
    if not trained or len({repr(sorted(c.items())) for c in trained.values()}) != 1:
        return {}, None
    options = next(iter(trained.values()))
    if seats is not None:
        options["num_players"] = seats
    shown_options = ", ".join(f"{k}={v!r}" for k, v in sorted(options.items()) if k != "num_players" or seats is None)
    if not shown_options:
        return options, None
    return options, (f"the table takes the options {', '.join(trained)} was trained with ({shown_options}); "
                     f"set table options to choose others")


def available_checkpoints(game: str | None = None) -> list[str]:
    """Checkpoint names (``"the_brain/ppo_3p"``) under :func:`checkpoint_dirs`, for ``game``
    (read from each checkpoint's metadata, so flat and nested layouts both list)."""
    names: list[str] = []
    for root in checkpoint_dirs():
        if not root.is_dir():
            continue
        for zp in sorted(root.rglob("*.zip")):
            name = zp.relative_to(root).with_suffix("").as_posix()
            if name in names or not zp.with_suffix(".json").is_file():
                continue
            if game is not None:
                try:
                    if read_metadata(zp).get("game") != game:
                        continue
                except CheckpointError:
                    continue
            names.append(name)
    return names


def resolve_checkpoint(spec: str) -> Path | None:
    """A spec naming a checkpoint -> the path without suffix, or None. A name (``the_brain/
    ppo_3p``) is looked up in :func:`checkpoint_dirs` first; a spec that is not a known name
    is taken as a path (relative to the current directory)."""
    spec = os.path.expanduser(spec)
    if not Path(spec).is_absolute() and not spec.startswith("."):
        for root in checkpoint_dirs():
            zip_path, _ = checkpoint_paths(root / spec)
            inside = root.resolve() in zip_path.resolve().parents
            if inside and zip_path.is_file():
                return zip_path.with_suffix("")
    zip_path, _ = checkpoint_paths(spec)
    if zip_path.is_file():
        return zip_path.with_suffix("")
    return None

