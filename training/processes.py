"""Child processes that never outlive their parent, and a SIGTERM that always ends a command.

* :func:`die_with_parent` is called first thing in every worker process braincards starts
  (evaluation workers, SB3's subprocess envs). On Linux the kernel sends the worker SIGKILL
  when its parent dies (``prctl(PR_SET_PDEATHSIG)``), whatever killed the parent, ``kill -9``
  included; elsewhere a watchdog thread ends the worker within a second of the parent's death.
* :class:`Worker` is a child process that answers requests in order (pretraining's recorder,
  the trainer's background evaluation): it dies with its parent, an error in it is raised in
  the parent with its traceback, and a worker that ends abruptly is named with its exit code.
* :func:`sigterm_exits` makes SIGTERM raise ``SystemExit(143)`` in the main thread, so that
  cleanup (stopping workers, closing envs) runs, and ends the process for sure a few seconds
  later if that cleanup hangs.
* :func:`deferred_signals` holds Ctrl-C and SIGTERM back to points the caller chooses, for
  code (a process pool's bookkeeping) that an exception raised in the middle would leave
  with a lock held.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
import weakref
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
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return

    received: list[int] = []

    def handler(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the cleanup
        timer = threading.Timer(grace, os._exit, args=(128 + signum,))
        timer.daemon = True
        timer.start()
        received.append(signum)
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)
    try:
        yield
    except BaseException as err:
        # the SystemExit can come back as another exception: raised inside class creation
        # (an import that SIGTERM interrupts calls __set_name__), Python re-raises it as a
        # RuntimeError; whatever it became, the command ends with SIGTERM's status
        if received and not (isinstance(err, SystemExit) and err.code == 128 + received[0]):
            raise SystemExit(128 + received[0]) from err
        raise
    else:
        if received:  # the SystemExit was caught on the way out: SIGTERM still ends the command
            raise SystemExit(128 + received[0])
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


class DeferredSignals:
    """What :func:`deferred_signals` gives: the signals that arrived, not yet acted on."""

    def __init__(self, previous: dict):
        self._previous = previous  # signum -> the Python handler to call at a safe point
        self.pending: list[int] = []

    def _note(self, signum, frame) -> None:
        if signum not in self.pending:
            self.pending.append(signum)

    def raise_pending(self) -> None:
        """Act on the first signal that arrived, here and now, with the handler it would have
        had: Ctrl-C raises KeyboardInterrupt, SIGTERM under :func:`sigterm_exits` SystemExit.
        Does nothing when none arrived."""
        if self.pending:
            signum = self.pending.pop(0)
            self.pending.clear()  # a second Ctrl-C while the first is handled is the same stop
            self._previous[signum](signum, None)


@contextlib.contextmanager
def deferred_signals(signums=(signal.SIGINT, signal.SIGTERM)) -> Iterator[DeferredSignals]:
    """While inside, Ctrl-C and SIGTERM only note their arrival; the caller acts on them with
    :meth:`DeferredSignals.raise_pending` where an exception is safe. Python raises a signal's
    exception between any two bytecodes, so one raised inside ``concurrent.futures`` (while a
    future's lock is held, in ``wait`` or ``as_completed``) leaves that lock held, and the
    pool's shutdown then waits for it for ever. A signal noted while an exception is already
    leaving the block is dropped (the run is stopping anyway); one noted during a normal exit
    is acted on after the handlers are restored. Only in the main thread, and only for the
    signals whose handler is a Python function (default actions and ignored signals stay)."""
    if threading.current_thread() is not threading.main_thread():
        yield DeferredSignals({})
        return
    previous = {s: signal.getsignal(s) for s in signums}
    previous = {s: h for s, h in previous.items() if callable(h)}
    deferred = DeferredSignals(previous)
    for s in previous:
        signal.signal(s, deferred._note)
    try:
        yield deferred
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    deferred.raise_pending()


class Worker:
    """A child process that answers requests one at a time, in the order they are sent.

    The child runs ``state = setup(*args)`` once, then ``handle(state, request)`` for each
    :meth:`send`; :meth:`receive` returns the answers in order. The child is forked where
    the platform can (so ``args`` may hold live objects: a policy network, envs), else
    spawned (then ``setup``, ``handle`` and ``args`` must pickle). It dies with its parent.
    An exception in the child is raised by :meth:`receive` as a RuntimeError carrying the
    child's traceback, after which the child has ended; a child that ends without answering
    (killed, ``os._exit``) is named with its exit code. :meth:`close` always ends it, and so
    does the end of the parent's interpreter for one left open. The child is not daemonic, so
    it may start processes of its own (an evaluation's worker pool)."""

    def __init__(self, name: str, setup, handle, args: tuple = ()):
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        context = multiprocessing.get_context(method)
        self.name = name
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve, name=name, daemon=False,
                                        args=(child, os.getpid(), setup, handle, args))
        self._process.start()
        child.close()
        self.pending = 0  # requests sent and not yet received
        # not daemonic: multiprocessing would wait for it at exit, so a Worker never closed is
        # stopped first (finalizers run before multiprocessing's own exit function)
        self._stop = weakref.finalize(self, _stop, self._conn, self._process)

    def send(self, request) -> None:
        try:
            self._conn.send(request)
        except (BrokenPipeError, ConnectionError):  # the child has ended: say why, as receive() does
            while self.pending:
                self.receive()  # its error, when it failed on an earlier request
            self._process.join(5)
            raise RuntimeError(f"{self.name}: the process ended (exit code {self._process.exitcode})") from None
        self.pending += 1

    def ready(self) -> bool:
        """Whether an answer (or the child's end) can be received without waiting."""
        return self._conn.poll()

    def receive(self):
        """The answer to the oldest request not yet received (waits for it)."""
        try:
            kind, value = self._conn.recv()
        except (EOFError, ConnectionError):
            self._process.join(5)
            raise RuntimeError(f"{self.name}: the process ended without answering "
                               f"(exit code {self._process.exitcode})") from None
        self.pending -= 1
        if kind == "error":
            raise RuntimeError(f"{self.name} failed:\n{value}")
        return value

    def close(self) -> None:
        """Tell the child to stop, and end it if it does not within 5 s."""
        self._stop()


def _stop(conn, process) -> None:
    with contextlib.suppress(OSError):
        conn.send(None)
    process.join(5)
    if process.is_alive():
        process.kill()
        process.join()
    conn.close()


def _serve(conn, parent: int, setup, handle, args: tuple) -> None:
    """A :class:`Worker`'s child: answer each request until told to stop, or until an error
    (sent to the parent with its traceback)."""
    die_with_parent(parent)
    try:
        state = setup(*args)
        while (request := conn.recv()) is not None:
            conn.send(("answer", handle(state, request)))
    except Exception:
        conn.send(("error", traceback.format_exc()))


__all__ = ["Worker", "die_with_parent", "sigterm_exits"]
