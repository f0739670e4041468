"""Evaluation with worker processes: a failing policy surfaces at once, Ctrl-C and SIGTERM
stop the run promptly without orphaned workers, and a killed worker is a clear error.

The process checks read /proc (Linux); the worker tests need the fork start method."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from braincards.training.evaluation.evaluate import evaluate
from braincards.training.evaluation.harness import WorkerError
from braincards.training.processes import deferred_signals

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists() or "fork" not in multiprocessing.get_all_start_methods(),
    reason="needs /proc and the fork start method (Linux)",
)

# a run long enough (minutes with 2 workers) that only a prompt stop ends it in time
LONG_RUN = ["evaluate", "the_brain", "--seat", "random", "--seat", "random", "--games", "200000",
            "--workers", "2", "--quiet"]
# the CLI in a fresh interpreter; SIGINT gets Python's default handler even when the test
# runner was started with SIGINT ignored (a background job), which the child would inherit
CLI = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
       "from braincards.training.cli.main import main; sys.exit(main(sys.argv[1:]))")
PROMPT_S = 45  # generous: a prompt stop takes about 2 s here, several times that on a loaded CI machine; the run itself would last minutes


# ---------------------------------------------------------------------------- /proc
def _stat(pid: int) -> tuple[str, int] | None:
    """(state, ppid) of a process, or None when it no longer exists."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1])


def _alive(pid: int) -> bool:
    st = _stat(pid)
    return st is not None and st[0] not in ("Z", "X")


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            st = _stat(int(entry.name))
            if st is not None and st[1] == pid and st[0] not in ("Z", "X"):
                out.append(int(entry.name))
    return out


def _wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


@pytest.fixture
def cli_run(tmp_path):
    """Start the long CLI run; gives (process, its worker pids, a function returning what
    it wrote to stderr). Kills leftovers after. Output goes to files, not pipes: an orphaned
    worker would hold a pipe open and block the read."""
    started: list[subprocess.Popen] = []
    workers: list[int] = []

    def start(argv=LONG_RUN):
        k = len(started)
        with open(tmp_path / f"out{k}", "w") as out, open(tmp_path / f"err{k}", "w") as err:
            proc = subprocess.Popen([sys.executable, "-c", CLI, *argv], stdout=out, stderr=err,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        started.append(proc)
        kids = _wait_for(lambda: len(_children(proc.pid)) >= 2 and _children(proc.pid), 60,
                         "the two worker processes to start")
        workers.extend(kids)
        time.sleep(0.3)  # let them play a few games
        return proc, kids, lambda: (tmp_path / f"err{k}").read_text()

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    for pid in workers:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _assert_gone(pids: list[int]) -> None:
    # the parent joins its workers before it exits; an orphan would run on for minutes
    left = [p for p in pids if _alive(p)]
    if left:
        time.sleep(2)
        left = [p for p in pids if _alive(p)]
    assert not left, f"worker processes {left} outlived the command"


# ---------------------------------------------------------------------------- policies
class _OneFailure:
    """Random legal moves; raises in the ``fail_at``-th game that a process plays with it
    (once only: every other game is fine). Counts the games started in every process."""

    name = "fails_once"

    def __init__(self, fail_at: int, started, action: str = "raise"):
        self.fail_at = fail_at
        self.started = started
        self.action = action
        self.games = 0
        self.parent = os.getpid()
        self.rng = np.random.default_rng(0)

    def reset(self, seed=None):
        self.games += 1
        with self.started.get_lock():
            self.started.value += 1

    def act(self, observation, agent=None):
        if self.games == self.fail_at:
            self.games += 1  # only once
            if self.action == "kill" and os.getpid() != self.parent:  # never the test runner
                os.kill(os.getpid(), signal.SIGKILL)
            raise RuntimeError("the policy failed on purpose")
        return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))


# ---------------------------------------------------------------------------- tests
def test_a_failing_policy_cancels_the_outstanding_games():
    """The first error ends the run: the remaining games are not played first."""
    started = multiprocessing.get_context("fork").Value("i", 0)
    games = 4000
    before = set(_children(os.getpid()))  # e.g. a browser driver another test of this process left
    with pytest.raises(RuntimeError, match="failed on purpose"):
        evaluate("the_brain", {}, seats=[_OneFailure(30, started), "random"], games=games,
                 workers=2, progress=False)
    # before the fix every one of the 4000 games was played before the error surfaced
    assert started.value < games // 4, started.value
    assert not set(_children(os.getpid())) - before


def test_a_failing_policy_fails_the_serial_run_the_same_way():
    started = multiprocessing.get_context("fork").Value("i", 0)
    with pytest.raises(RuntimeError, match="failed on purpose"):
        evaluate("the_brain", {}, seats=[_OneFailure(3, started), "random"], games=50,
                 workers=1, progress=False)
    assert started.value == 3


def test_a_worker_that_dies_is_a_worker_error():
    started = multiprocessing.get_context("fork").Value("i", 0)
    before = set(_children(os.getpid()))
    with pytest.raises(WorkerError, match="worker process .* ended abruptly") as info:
        evaluate("the_brain", {}, seats=[_OneFailure(10, started, "kill"), "random"], games=4000,
                 workers=2, progress=False)
    assert "SIGKILL" in str(info.value)
    assert isinstance(info.value, RuntimeError)
    assert not set(_children(os.getpid())) - before


def test_sigterm_stops_the_cli_promptly_without_orphans(cli_run):
    proc, workers, stderr = cli_run()
    proc.send_signal(signal.SIGTERM)
    rc = proc.wait(timeout=PROMPT_S)
    err = stderr()
    assert rc == 128 + signal.SIGTERM, err
    assert "Traceback" not in err
    _assert_gone(workers)


@pytest.mark.parametrize("to", ["the command", "its process group"])
def test_ctrl_c_stops_the_cli_promptly_without_orphans(to, cli_run):
    """A terminal's Ctrl-C reaches the whole process group: the workers print nothing."""
    proc, workers, stderr = cli_run()
    if to == "the command":
        proc.send_signal(signal.SIGINT)
    else:
        os.killpg(proc.pid, signal.SIGINT)  # its own session: the test runner is not in it
    rc = proc.wait(timeout=PROMPT_S)
    err = stderr()
    assert rc == 130, err
    assert "braincards: interrupted" in err and "Traceback" not in err
    _assert_gone(workers)


def test_a_killed_worker_is_a_cli_error_with_exit_status_2(cli_run):
    proc, workers, stderr = cli_run()
    os.kill(workers[0], signal.SIGKILL)
    rc = proc.wait(timeout=PROMPT_S)
    err = stderr()
    assert rc == 2, err
    assert "braincards: error:" in err and "worker process" in err and "SIGKILL" in err
    assert "Traceback" not in err
    _assert_gone(workers)


# ---------------------------------------------------------------------------- deferred signals
# A Ctrl-C raised inside concurrent.futures' bookkeeping (as_completed holding a future's
# lock) left that lock held, and the pool's shutdown then waited for it for ever: the run
# hung after Ctrl-C about one time in fifteen under load. The parent now notes the signal and
# raises it between waits.
@pytest.fixture
def default_handlers():
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    for s, h in saved.items():
        signal.signal(s, h)


def _signal_self(signum: int) -> None:
    os.kill(os.getpid(), signum)
    time.sleep(0.01)  # Python runs the handler at the next bytecode after delivery


def test_a_deferred_ctrl_c_is_raised_where_the_caller_says(default_handlers):
    reached = []
    with pytest.raises(KeyboardInterrupt), deferred_signals() as signals:
        _signal_self(signal.SIGINT)
        _signal_self(signal.SIGINT)  # a second one is the same stop
        reached.append("after the signals")
        assert signals.pending == [signal.SIGINT]
        signals.raise_pending()
        reached.append("after raise_pending")
    assert reached == ["after the signals"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_signal_noted_during_a_normal_exit_is_raised_after_the_handlers_are_back(
    default_handlers,
):
    with pytest.raises(KeyboardInterrupt), deferred_signals():
        _signal_self(signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with deferred_signals() as signals:  # nothing arrived: nothing raised
        signals.raise_pending()


def test_a_signal_noted_while_an_error_leaves_is_dropped(default_handlers):
    with pytest.raises(ValueError, match="the run's own error"), deferred_signals():
        try:
            raise ValueError("the run's own error")
        finally:
            _signal_self(signal.SIGINT)  # Ctrl-C pressed during the cleanup


def test_a_deferred_sigterm_runs_its_own_handler_at_the_safe_point(default_handlers):
    """Under sigterm_exits the handler raises SystemExit(143) (its grace timer would end this
    test process, so a stand-in with the same effect is the handler here)."""
    calls = []

    def exits(signum, frame):
        calls.append(signum)
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, exits)
    with pytest.raises(SystemExit) as info, deferred_signals() as signals:
        _signal_self(signal.SIGTERM)
        assert calls == []
        signals.raise_pending()
    assert info.value.code == 143 and calls == [signal.SIGTERM]
    assert signal.getsignal(signal.SIGTERM) is exits


SIGTERM_IN = """
import os, signal, sys, time
from braincards.training.processes import sigterm_exits

class Interrupted:  # SIGTERM arrives while a class is created, as in an import
    def __set_name__(self, owner, name):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(10)

with sigterm_exits(grace=30):
    if sys.argv[1] == "class":
        class Owner:
            field = Interrupted()
    else:  # the SystemExit is caught on the way out
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(10)
        except SystemExit:
            pass
print("still running")
"""


@pytest.mark.parametrize("where", ["class", "caught"])
def test_sigterm_ends_the_command_whatever_its_systemexit_became(where):
    """sigterm_exits: Python 3.11 re-raises an exception from __set_name__ as a RuntimeError,
    and code may catch the SystemExit; the command still ends with status 143, at once."""
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-c", SIGTERM_IN, where], capture_output=True, text=True, timeout=60)
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert "still running" not in done.stdout and time.monotonic() - t0 < 10


def test_default_actions_and_other_threads_are_left_alone(default_handlers):
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with deferred_signals():
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # its default action stays
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    seen = []

    def in_a_thread():
        with deferred_signals() as signals:
            seen.append(signal.getsignal(signal.SIGINT))
            signals.raise_pending()

    t = threading.Thread(target=in_a_thread)
    t.start()
    t.join()
    assert seen == [signal.default_int_handler]


def test_a_worker_left_open_does_not_hold_the_interpreter_at_exit():
    """A Worker's child is not daemonic (it may start a pool of its own), so multiprocessing
    would wait for it at exit: one its owner never closed is stopped at exit instead."""
    code = ("from braincards.training.processes import Worker\n"
            "w = Worker('left open', lambda: None, lambda state, request: request * 2)\n"
            "w.send(21)\n"
            "print(w.receive(), w._process.daemon)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["42", "False"]


def test_workers_do_not_hang_in_the_openmp_pool_their_parent_started(tmp_path):
    """A parent that trained a torch network (its OpenMP pool up on 2 threads), then evaluates a
    torch policy in worker processes: a forked worker that copies a large tensor entered the
    copied pool and hung for good (found with the own-agent docs page). Workers now run one
    torch thread. In a subprocess, so that a hang fails this test instead of the suite."""
    (tmp_path / "big_agent.py").write_text(
        "import numpy as np, torch\n"
        "class BigAgent:\n"
        "    def __init__(self, game, seed=None):\n"
        "        net = torch.nn.Linear(2260, 256)\n"
        "        net.load_state_dict({k: v.clone() for k, v in net.state_dict().items()})  # a large copy\n"
        "    def reset(self, seed=None):\n"
        "        pass\n"
        "    def act(self, observation, agent=None):\n"
        "        return int(np.flatnonzero(observation['action_mask'])[0])\n")
    code = ("import sys, torch; sys.path.insert(0, sys.argv[1]); torch.set_num_threads(2)\n"
            "x = torch.randn(512, 2260, requires_grad=True); (x @ torch.randn(2260, 512)).tanh().sum().backward()\n"
            "from braincards.training.evaluation.evaluate import evaluate\n"
            "r = evaluate('the_brain', {'num_players': 2}, seats=['big_agent:BigAgent'] * 2, games=4, workers=2,"
            " progress=False)\n"
            "print(r['games'])\n")
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=90)
    assert result.returncode == 0 and result.stdout.strip() == "4", result.stderr[-2000:]


def test_a_request_sent_to_a_worker_that_failed_raises_its_error():
    """The child failed on an earlier request and ended: the next send raises the child's own
    error with its traceback, not a BrokenPipeError (seen when a background evaluation failed on
    the first of two evaluations sent)."""
    from braincards.training.processes import Worker

    def handle(state, request):
        raise ValueError(f"cannot handle {request}")

    w = Worker("the failing worker", lambda: None, handle)
    try:
        w.send(1)
        w._process.join(30)  # it answered with its error and ended
        assert w._process.exitcode is not None
        with pytest.raises(RuntimeError, match=r"(?s)the failing worker failed:.*ValueError: cannot handle 1"):
            for request in range(2, 50):  # the pipe's buffer may take a few before it breaks
                w.send(request)
    finally:
        w.close()
