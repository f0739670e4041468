"""Sudden death (issue 20): a checkpoint save killed with SIGKILL loses nothing, no worker
outlives a parent killed with SIGKILL, and SIGTERM ends ``train`` within seconds.

Each check is repeated (50 killed saves; 20 killed parents per command) because the defects
were races: one killed save in 6 corrupted the checkpoint, and orphans survived some kills
only. Several commands are started at once to keep the repetitions quick. Linux only (the
process checks read /proc; saves are killed in a forked child)."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from braincards.training.agents.checkpoint import read_checkpoint, write_checkpoint

from .test_workers import CLI, _alive, _children, _wait_for

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists() or not hasattr(os, "fork"),
    reason="needs /proc and fork (Linux)",
)

SAVE_KILLS = 50
PARENT_KILLS = 20  # per command
AT_ONCE = 5  # commands started together
GONE_WITHIN_S = 5.0


# ---------------------------------------------------------------------------- killed saves
def _weights(model, shift: float) -> dict:
    return {k: v + shift for k, v in model.policy.state_dict().items()}


def test_a_save_killed_at_any_moment_leaves_a_whole_checkpoint(tmp_path, tiny_checkpoint, tiny_model):
    """A child saves over one checkpoint in a loop, alternating two sets of weights, and is
    killed at a random moment; the checkpoint must then load, holding one of the two."""
    meta = read_checkpoint(tiny_checkpoint)[0]
    kwargs = dict(game="the_brain_v0", env_config={"num_players": 1}, algo="MaskablePPO",
                  policy=meta["policy"], timesteps=1)
    versions = [_weights(tiny_model, 0.0), _weights(tiny_model, 0.5)]
    path = tmp_path / "the_brain" / "ck"
    write_checkpoint(path, state_dict=versions[0], **kwargs)
    rng = random.Random(0)
    saves = []
    for _ in range(SAVE_KILLS):
        pid = os.fork()
        if pid == 0:  # the child: save until killed
            try:
                k = 0
                while True:
                    write_checkpoint(path, state_dict=versions[k % 2], **kwargs)
                    k += 1
            finally:
                os._exit(1)
        time.sleep(rng.uniform(0.02, 0.25))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        _, tensors, _ = read_checkpoint(path)  # raises on a corrupt or mismatched pair
        which = [all(torch.equal(tensors[n], v[n]) for n in v) for v in versions]
        assert any(which), "the checkpoint holds neither the old nor the new weights"
        saves.append(which.index(True))
    assert set(saves) == {0, 1}, "the kills should land at different moments of the loop"
    leftovers = [p.name for p in path.parent.iterdir() if p.name not in ("ck.zip", "ck.json")]
    assert all(".tmp-" in name for name in leftovers), leftovers  # only temp files, never used


# ---------------------------------------------------------------------------- orphans
TRAIN_YAML = """\
game: the_brain_v0
env: {num_players: 2}
total_timesteps: 1000000
n_envs: 2
vec_env: subproc
ppo: {n_steps: 64, batch_size: 64}
evaluation: {every: 1000000, games: 10, partners: []}
"""


def _commands(tmp_path) -> dict[str, list[str]]:
    config = tmp_path / "train.yaml"
    config.write_text(TRAIN_YAML)
    return {
        "evaluate": ["evaluate", "oh_my_brain", "--seat", "heuristic", "--seat", "random", "--seat",
                     "random", "--games", "20000", "--workers", "2", "--quiet"],
        "league": ["league", "oh_my_brain", "heuristic", "random", "--players", "2", "--games",
                   "20000", "--workers", "2", "--quiet", "--out", "OUT"],
        "train": ["train", str(config), "--quiet", "--out", "OUT"],
    }


def _start(argv: list[str], out: Path) -> subprocess.Popen:
    argv = [str(out / "run") if a == "OUT" else a for a in argv]
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "stdout", "w") as so, open(out / "stderr", "w") as se:
        proc = subprocess.Popen([sys.executable, "-c", CLI, *argv], stdout=so, stderr=se,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    return proc


def _with_workers(procs: list[subprocess.Popen], outs: list[Path]) -> list[list[int]]:
    """Wait until every command has its two worker processes; their pids."""
    kids: list[list[int]] = []
    for proc, out in zip(procs, outs, strict=True):
        def two(proc=proc, out=out):
            if proc.poll() is not None:
                raise AssertionError(f"the command ended early: {(out / 'stderr').read_text()[-2000:]}")
            found = _children(proc.pid)
            return found if len(found) >= 2 else None

        kids.append(_wait_for(two, 120, "two worker processes"))
    return kids


@pytest.mark.parametrize("command", ["evaluate", "league", "train"])
def test_no_worker_outlives_a_parent_killed_with_sigkill(command, tmp_path):
    argv = _commands(tmp_path)[command]
    survivors, runs = [], 0
    for batch in range(PARENT_KILLS // AT_ONCE):
        outs = [tmp_path / f"{batch}-{k}" for k in range(AT_ONCE)]
        procs = [_start(argv, out) for out in outs]
        try:
            kids = _with_workers(procs, outs)
            for proc in procs:
                os.killpg(proc.pid, 0)  # still there
                proc.kill()  # SIGKILL: no handler, no cleanup
            for proc in procs:
                proc.wait()
            deadline = time.monotonic() + GONE_WITHIN_S
            pids = [p for group in kids for p in group]
            while time.monotonic() < deadline and any(_alive(p) for p in pids):
                time.sleep(0.05)
            survivors += [p for p in pids if _alive(p)]
            runs += len(procs)
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
                _kill_group(proc.pid)
    assert runs == PARENT_KILLS
    assert not survivors, f"{len(survivors)} worker(s) outlived their killed parent by {GONE_WITHIN_S} s"


def _kill_group(pgid: int) -> None:
    """Clean up whatever is left of a command's process group (only after a failure)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def test_sigterm_ends_train_within_seconds_every_time(tmp_path):
    argv = _commands(tmp_path)["train"]
    outs = [tmp_path / f"term-{k}" for k in range(AT_ONCE)]
    procs = [_start(argv, out) for out in outs]
    try:
        kids = _with_workers(procs, outs)
        time.sleep(1.0)  # into the training loop
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        t0 = time.monotonic()
        codes = [proc.wait(timeout=30) for proc in procs]
        took = time.monotonic() - t0
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            _kill_group(proc.pid)
    errors = [(out / "stderr").read_text() for out in outs]
    assert codes == [128 + signal.SIGTERM] * AT_ONCE, errors
    assert took < 10, f"SIGTERM took {took:.1f} s to end {AT_ONCE} trainings"
    assert not any("Traceback" in e for e in errors), errors
    time.sleep(0.5)
    assert not [p for group in kids for p in group if _alive(p)]
