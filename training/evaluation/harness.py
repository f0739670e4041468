"""The table harness: seeds, seat rotation, one table, and the worker processes.

Every measurement (:mod:`.evaluate`, :mod:`.crossplay`, :mod:`.league`) is a list of tasks
``(key, deal, variant, labels)`` played by :func:`run_tasks`, serially or in processes.

Seat rotation: game ``g`` puts ``seats[j]`` at player ``(j - rotation(g)) mod n``, where
``rotation(g) = g mod n`` (with a list of V difficulties that shares a factor with n, one
more step after every lcm(V, n) games, so that each difficulty sees every rotation too).
Every policy therefore plays every position equally often whenever the number of games is
a multiple of n. Game ``g`` has difficulty ``g mod V``.

Reproducibility: game ``g`` of a run with seed ``S`` is dealt with env seed
``derive_seed(S, g)`` and the policy in seat ``i`` is reset with ``derive_seed(S, g, 1, i)``;
nothing else is random. So a game's result depends only on (S, g, who sits where), runs
with ``workers=k`` processes give exactly the serial results, and every cross-play cell sees
the same deals.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
import sys
import warnings
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from tqdm import tqdm

from braincards.envs import TableConfig, derive_seed, get_spec, table_config
from braincards.training.processes import deferred_signals, die_with_parent, sigterm_exits

from ..agents.checkpoint import CheckpointConfigWarning
from ..agents.network import set_torch_threads
from ..agents.policy import history_k_of, spec_label
from ..agents.specs import make_policy
from ..agents.table import Table as GameTable
from ..agents.table import seats_config

POLL_S = 0.1  # how often the parent looks for Ctrl-C or SIGTERM while its workers play


def rotation(g: int, n: int, num_variants: int = 1) -> int:
    """How many places game ``g`` rotates the seats (see the module docstring).

    ``g mod n`` puts every policy at every position once in each block of n games. Game g
    has variant ``g mod V``; when V and n share a factor, variant v would only ever meet
    some rotations, so the rotation moves one step further after every lcm(V, n) games."""
    step = g // math.lcm(num_variants, n) if math.gcd(num_variants, n) > 1 else 0
    return (g + step) % n



def check_config(game: str | TableConfig, config: dict | None, num_seats: int | None) -> TableConfig:
    """The table of ``game`` under ``config`` (checked by the game, every variant), with
    ``num_players`` set to ``num_seats`` (a ValueError when the config names another count)."""
    if isinstance(game, TableConfig):
        game, config = game.spec, {**game.config, **dict(config or {})}
    spec = get_spec(game) if isinstance(game, str) else game
    config = dict(config or {})
    config.pop("render_mode", None)
    if num_seats is not None:
        config = seats_config(spec, config, num_seats)
    return table_config(spec, config)


def check_games(games) -> int:
    """``games`` as a positive int (a ValueError otherwise)."""
    games = int(games)
    if games < 1:
        raise ValueError(f"games={games} must be >= 1")
    return games


def _progress(total: int, enabled: bool | None, desc: str):
    if enabled is None:
        enabled = sys.stderr.isatty()
    return tqdm(total=total, desc=desc, disable=not enabled, leave=False, file=sys.stderr)


# ---------------------------------------------------------------------------- one table
class Table:
    """Plays tasks ``(key, deal, variant, labels)``; keeps tables and policies between games.

    ``deal`` picks the seeds (env and policies), ``key`` identifies the task in results."""

    def __init__(self, table: TableConfig, specs: dict, seed: int, deterministic: bool,
                 record: bool = False):
        self.record = record  # keep every game's actions (replays: evaluate --record)
        self.variants = table.variants
        self.specs = specs
        self.seed = seed
        self.deterministic = deterministic
        self._tables: dict[tuple, GameTable] = {}
        self._policies: dict[tuple, object] = {}

    def table(self, variant: int, history_k: int = 0) -> GameTable:
        """The table of ``variant``; behind the game's history wrapper when a seated policy
        reads event history (every policy then gets the prefix of the observation it reads)."""
        key = (variant, history_k)
        if key not in self._tables:
            self._tables[key] = GameTable(self.variants[variant], history_k=history_k, record=self.record)
        return self._tables[key]

    def policy(self, label: str, seat: int, variant: int):
        key = (label, seat, variant)
        if key not in self._policies:
            self._policies[key] = make_policy(self.specs[label], self.variants[variant],
                                              deterministic=self.deterministic)
        return self._policies[key]

    def play(self, task: tuple) -> dict:
        key, deal, variant, labels = task
        seated = [self.policy(label, i, variant) for i, label in enumerate(labels)]
        table = self.table(variant, history_k_of(seated))
        table.reset(seed=derive_seed(self.seed, deal))
        table.seat(seated)
        for i, pol in enumerate(seated):
            pol.reset(seed=derive_seed(self.seed, deal, 1, i))
        table.play_seated()
        record = table.record()
        extra = {"actions": [(agent, action, [rewards[a] for a in table.agents])
                             for agent, action, rewards in table.steps]} if self.record else {}
        # the game's return per seat: every step's rewards, summed (an env with shaped
        # per-step rewards, e.g. Oh My Brain's brain_shaping, pays some before the end)
        return {**extra, "key": key, "deal": deal, "variant": variant, "labels": list(labels),
                "rewards": record["returns"], "scores": record["scores"], "wins": record["wins"],
                "length": record["length"], "truncated": record["truncated"]}


# ---------------------------------------------------------------------------- running
class WorkerError(RuntimeError):
    """A worker process of a parallel run ended abruptly (killed by a signal, out of memory):
    the run is stopped and its results are discarded."""


_WORKER_TABLE: Table | None = None


def _worker_init(parent, table, specs, seed, deterministic, record=False):
    # A worker dies with its parent, however the parent ends (kill -9 included). The parent
    # stops the workers itself on Ctrl-C or SIGTERM. A worker ignores SIGINT (a terminal
    # sends Ctrl-C to the whole process group: no traceback from every worker) and takes
    # SIGTERM's default action (it may have inherited the parent's handler by fork).
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # one torch thread: a forked child must not enter the OpenMP pool its parent started (it
    # hangs there for good, e.g. loading weights after the parent trained a network), and
    # one thread is also what small-batch inference runs fastest on
    set_torch_threads(1)
    # the parent has resolved every spec (validate_specs) and said its warnings once
    warnings.simplefilter("ignore", CheckpointConfigWarning)
    global _WORKER_TABLE
    _WORKER_TABLE = Table(table, specs, seed, deterministic, record)


def _worker_run(tasks):
    return [_WORKER_TABLE.play(t) for t in tasks]


def _pool_processes(ex: ProcessPoolExecutor) -> list:
    """The pool's worker processes (CPython keeps them in ``_processes``; with fork they all
    start at the first submit)."""
    return list((getattr(ex, "_processes", None) or {}).values())


def _stop_pool(ex: ProcessPoolExecutor, procs: list) -> None:
    """Stop a pool now: end the workers (SIGTERM, then SIGKILL after 5 s), wait for them,
    then cancel the games not started and wait for the pool's own thread."""
    for p in procs:
        if p.exitcode is None:
            p.terminate()
    for p in procs:
        p.join(5)
        if p.exitcode is None:
            p.kill()
            p.join()
    ex.shutdown(wait=True, cancel_futures=True)


def _exit_description(p) -> str:
    code = p.exitcode
    if code is None:
        return f"{p.pid}"
    if code < 0:
        try:
            return f"{p.pid} (killed by {signal.Signals(-code).name})"
        except ValueError:
            return f"{p.pid} (killed by signal {-code})"
    return f"{p.pid} (exit status {code})"


def run_tasks(table: TableConfig, specs: dict, tasks: list, *, seed: int, workers: int = 1,
              deterministic: bool = True, progress: bool | None = None,
              desc: str = "games", record: bool = False) -> list[dict]:
    """Play every task (serially or in ``workers`` processes); records in task order.

    With workers, the first error (a policy raising, Ctrl-C, SIGTERM) stops the run at once:
    the games not yet played are cancelled, the workers are ended and waited for, and the
    error is raised. A worker that dies (killed, out of memory) raises :class:`WorkerError`.
    ``record``: each record also has ``actions``, ``(agent, action, rewards)`` per step.
    """
    workers = int(workers)
    if workers < 1:
        raise ValueError(f"workers={workers} must be >= 1")
    if workers == 1 or len(tasks) < 2:
        bar = _progress(len(tasks), progress, desc)
        try:
            player = Table(table, specs, seed, deterministic, record)
            out = []
            for t in tasks:
                out.append(player.play(t))
                bar.update(1)
            return out
        finally:
            bar.close()
    results = _run_in_pool((table, specs, seed, deterministic, record), tasks, workers,
                           lambda: _progress(len(tasks), progress, desc))
    order = {t[0]: k for k, t in enumerate(tasks)}
    results.sort(key=lambda r: order[r["key"]])
    return results


def _run_in_pool(table_args: tuple, tasks: list, workers: int, make_bar) -> list[dict]:
    """The tasks' records, played in ``workers`` processes (in the order they finish)."""
    size = max(1, min(50, math.ceil(len(tasks) / (workers * 8))))
    chunks = [tasks[i : i + size] for i in range(0, len(tasks), size)]
    results: list[dict] = []
    # fork where the platform has it: works from any script, REPL or stdin (spawn re-imports
    # the main module); every game's seeds come from its task, so the start method cannot
    # change a result. The pool starts before the progress bar's thread does.
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    # Ctrl-C and SIGTERM are acted on between waits only (deferred_signals says why)
    with sigterm_exits(), deferred_signals() as signals:
        ex = ProcessPoolExecutor(workers, mp_context=ctx, initializer=_worker_init,
                                 initargs=(os.getpid(), *table_args))
        procs: list = []
        finished = False
        try:
            pending = {ex.submit(_worker_run, c) for c in chunks}
            procs = _pool_processes(ex)
            bar = make_bar()
            try:
                while pending:
                    signals.raise_pending()
                    done, pending = wait(pending, timeout=POLL_S, return_when=FIRST_COMPLETED)
                    for fut in done:
                        recs = fut.result()
                        results.extend(recs)
                        bar.update(len(recs))
            finally:
                bar.close()
            finished = True
        except BrokenProcessPool as err:
            dead = [_exit_description(p) for p in procs if p.exitcode is not None]
            raise WorkerError(
                f"worker process {', '.join(dead) or '(unknown pid)'} ended abruptly while "
                f"playing games; the run was stopped and its results discarded (the "
                f"out-of-memory killer sends SIGKILL: with little memory use fewer workers)"
            ) from err
        finally:
            if finished:
                ex.shutdown(wait=True)
            else:
                _stop_pool(ex, procs or _pool_processes(ex))
    return results


def labels_of(seats: Sequence) -> tuple[list[str], dict]:
    labels, specs = [], {}
    for s in seats:
        label = spec_label(s)
        if label in specs and specs[label] is not s and not isinstance(s, str):
            raise ValueError(f"two different policies share the name {label!r}")
        specs.setdefault(label, s)
        labels.append(label)
    return labels, specs


def validate_specs(table: TableConfig, specs: dict) -> None:
    """Resolve every spec once now, so a bad one fails before any game is played."""
    for spec in specs.values():
        make_policy(spec, table.variants[0])

