"""Child processes that never outlive their parent, and a SIGTERM that always ends a command.

* :func:`die_with_parent` is called first thing in every worker process braincards starts
  (evaluation workers, SB3's subprocess envs). On Linux the kernel sends the worker SIGKILL
  when its parent dies (``prctl(PR_SET_PDEATHSIG)``), whatever killed the parent, ``kill -9``
  included; elsewhere a watchdog thread ends the worker within a second of the parent's death.
* :func:`sigterm_exits` makes SIGTERM raise ``SystemExit(143)`` in the main thread, so that
  cleanup (stopping workers, closing envs) runs, and ends the process for sure a few seconds
  later if that cleanup hangs.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
WATCH_SECONDS = 0.5  # how often the watchdog looks for its parent (non-Linux)
SIGTERM_GRACE = 3.0  # seconds of cleanup after SIGTERM before the process ends regardless


def _parent_death_signal(signum: int) -> bool:
    """Ask Linux to send ``signum`` to this process when its parent ends; False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_SECONDS)
    os._exit(1)


def die_with_parent(parent: int) -> None:
    """End this process as soon as the process ``parent`` (its parent's pid, taken in the
    parent before the start) is gone. Call it first thing in a child process."""
    kernel = _parent_death_signal(signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request was in place
        os._exit(1)
    if not kernel:
        threading.Thread(target=_watch, args=(parent,), name="parent-watchdog", daemon=True).start()


@contextlib.contextmanager
def sigterm_exits(grace: float = SIGTERM_GRACE) -> Iterator[None]:
    """While inside, SIGTERM raises ``SystemExit(143)`` in the main thread (so ``finally``
    blocks stop workers and close files) and a timer ends the process with status 143 after
    ``grace`` seconds if the cleanup has not finished. Only in the main thread, and only
    where SIGTERM has its default action (a program with its own handler keeps it)."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):  # fmt: skip
        yield
        return

    def handler(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the cleanup
        timer = threading.Timer(grace, os._exit, args=(128 + signum,))
        timer.daemon = True
        timer.start()
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


__all__ = ["die_with_parent", "sigterm_exits"]
