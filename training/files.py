"""Atomic file writes: a file a run or an evaluation produces is either the old one or the
new one, never half of each.

Every writer goes through :func:`atomic_open`: the data goes to a hidden temporary file in
the same folder, which is flushed, fsynced and then renamed over the target (``os.replace``
is atomic on POSIX and Windows within one file system); the folder is fsynced too, so that
the rename itself survives a power cut. A process killed mid-write (``kill -9``) leaves the
old file intact and, at worst, a ``.NAME.tmp-*`` file beside it, which the next save of
that file removes (:func:`clean_stale`). A write error (a full disk) names the file.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

TEMP_MARK = ".tmp-"  # temporary files are ".{name}.tmp-{random}" in the target's folder
STALE_S = 60.0  # a temporary file untouched this long is a killed save's: the next save removes it


def _named(err: OSError, target: Path) -> OSError:
    """``err`` naming ``target`` (a disk-full write error names no file of its own)."""
    if err.filename is None and err.errno is not None:
        return type(err)(err.errno, f"{err.strerror} (writing {target})", str(target))
    return err


def clean_stale(target: Path) -> list[Path]:
    """Remove the temporary files that saves of ``target`` killed mid-write left beside it
    (untouched for :data:`STALE_S` seconds; a save in progress keeps writing its own): the
    save about to be made supersedes them. Returns them. Other files' temporaries are left:
    one may be the only complete copy of a save cut between its renames."""
    now, removed = time.time(), []
    for tmp in target.parent.glob(f".{target.name}{TEMP_MARK}*"):
        with contextlib.suppress(OSError):
            if now - tmp.stat().st_mtime > STALE_S:
                tmp.unlink()
                removed.append(tmp)
    return removed


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # e.g. Windows, where folders cannot be opened
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on a folder; the rename is still atomic
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", *, newline: str | None = None,
                encoding: str | None = None) -> Iterator[IO[Any]]:
    """Open ``path`` for writing (``mode`` ``"w"`` or ``"wb"``) so that it appears whole or
    not at all. The folder is created if needed. If the block raises, the target is left
    as it was and the temporary file is removed."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes whole files: mode must be 'w' or 'wb', not {mode!r}")
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    clean_stale(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}{TEMP_MARK}", dir=target.parent)
    try:
        text = {"newline": newline, "encoding": encoding or "utf-8"} if mode == "w" else {}
        with open(fd, mode, **text) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        with contextlib.suppress(OSError):
            os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; give the usual mode
        os.replace(tmp, target)
    except OSError as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise _named(err, target) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(target.parent)


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()  # read once: os.umask is process-wide, not safe to toggle per write


def write_together(items: list[tuple[str | os.PathLike, bytes]]) -> list[Path]:
    """Write several files as one save: every file is written to its temporary name and
    fsynced first, then they are renamed over their targets in the order given, back to back
    (microseconds apart), and the folders fsynced. A process killed before the renames
    leaves every old file; only a kill between two renames (a window of a few
    microseconds) leaves the first files new and the others old, which a reader can detect
    (a checkpoint's metadata records its archive's digest)."""
    temps: list[tuple[str, Path]] = []
    renamed = 0
    target = None
    try:
        for path, data in items:
            target = Path(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            clean_stale(target)
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}{TEMP_MARK}", dir=target.parent)
            temps.append((tmp, target))
            with open(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            with contextlib.suppress(OSError):
                os.chmod(tmp, 0o666 & ~_UMASK)
        for tmp, target in temps:
            os.replace(tmp, target)
            renamed += 1
    except BaseException as err:
        if not renamed:  # once one file is in place, the others stay complete under their
            for tmp, _ in temps:  # temporary names, for a reader to find (see above)
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        if isinstance(err, OSError) and target is not None:
            raise _named(err, target) from None
        raise
    for folder in dict.fromkeys(target.parent for _, target in temps):
        _fsync_dir(folder)
    return [target for _, target in temps]


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically; returns the path."""
    with atomic_open(path, "wb") as fh:
        fh.write(data)
    return Path(path)


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the path."""
    with atomic_open(path, "w") as fh:
        fh.write(text)
    return Path(path)


def write_json(path: str | os.PathLike, data: Any) -> Path:
    """Write ``data`` as indented JSON (with a final newline) to ``path`` atomically."""
    return write_text(path, json.dumps(data, indent=2) + "\n")


def save_figure(fig, path: str | os.PathLike, **kwargs) -> Path:
    """``fig.savefig(path)`` atomically (the format from the file's suffix, PNG by default)."""
    fmt = Path(path).suffix.lstrip(".").lower() or "png"
    with atomic_open(path, "wb") as fh:
        fig.savefig(fh, format=fmt, **kwargs)
    return Path(path)


__all__ = [
    "TEMP_MARK", "atomic_open", "save_figure", "write_bytes", "write_json", "write_text",
    "write_together",
]
