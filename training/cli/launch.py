"""The ``braincards`` entry point: the command, with a word when it is slow to start.

A command loads its own modules when it runs (torch, stable-baselines3, numba's compiled
search or the web stack: seconds on a small machine, more when nothing is in the OS's file
cache). When that takes longer than :data:`SAY_AFTER` seconds and stderr is a terminal, one
line says the command is starting, so the first output comes within a second whatever the
command. Piped or redirected output gets nothing extra. ``braincards train`` first pins the
CPU kernels (:mod:`braincards.training.kernels`).
"""

from __future__ import annotations

import sys
import threading

from braincards.training.kernels import pin_cpu_kernels

SAY_AFTER = 0.7  # seconds of loading before the line is shown


def _say_starting() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else ""
    print(f"braincards{' ' + name if name else ''}: starting (loading torch and the game engines) ...",
          file=sys.stderr, flush=True)


if sys.argv[1:2] == ["train"]:  # before torch loads: the kernels of BRAINCARDS_KERNELS's mode
    try:
        pin_cpu_kernels()
    except ValueError as err:  # BRAINCARDS_KERNELS names no mode
        print(f"braincards train: {err}", file=sys.stderr)
        sys.exit(2)
from braincards.training.cli.main import main as _main  # noqa: E402 - after the kernels are pinned


def main(argv: list[str] | None = None) -> int:
    """Run the ``braincards`` command (see :mod:`braincards.training.cli.main`), saying it is
    starting when loading its modules takes longer than :data:`SAY_AFTER` seconds."""
    timer = threading.Timer(SAY_AFTER, _say_starting) if sys.stderr.isatty() else None
    if timer is None:
        return _main(argv)
    timer.daemon = True
    timer.start()
    try:
        return _main(argv, loaded=timer.cancel)
    finally:
        timer.cancel()
