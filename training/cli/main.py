"""The ``braincards`` command: the parser, and how every command's errors reach the user.

Each command group has its own module, named after it: :mod:`.demo`, :mod:`.bench`,
:mod:`.evaluation` (``evaluate``, ``crossplay``, ``league``), :mod:`.oracle`, :mod:`.play`
and :mod:`.train`, :mod:`.benchmark`, and :mod:`.serve` (the ``web`` extra). Without the
``train`` extra only ``demo`` and ``bench`` run; the others still show in ``--help`` and,
when run, say what to install.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import warnings
from importlib.metadata import PackageNotFoundError, requires, version

from braincards.envs import get_spec
from braincards.training.processes import sigterm_exits

from . import bench, demo

# errors that are the user's (bad values, unwritable paths, a dead worker): said in one line
USER_ERRORS: tuple[type[Exception], ...] = (ValueError, OSError)
try:  # optional: the train extra (torch, SB3, pyyaml, ...) that every other command needs
    from ..evaluation.harness import CheckpointConfigWarning, WorkerError
    from . import benchmark, evaluation, oracle, play, train

    TRAIN_COMMANDS, MISSING = (evaluation, oracle, play, train, benchmark), None
    USER_ERRORS += (WorkerError,)
except ModuleNotFoundError as err:
    TRAIN_COMMANDS, MISSING, CheckpointConfigWarning = (), err, None
try:  # optional: the web extra (fastapi, uvicorn) that `serve` needs (and the train extra)
    from . import serve

    WEB_COMMANDS, WEB_MISSING = (serve,), None
except ModuleNotFoundError as err:
    WEB_COMMANDS, WEB_MISSING = (), err

DESCRIPTION = ("braincards: The Brain, Oh My Brain and Brainwaves: The Brilliant Boar as PettingZoo "
               "environments, with baselines, evaluation and training")
# the commands that need the train extra, as --help lists them when it is missing
NEEDS_TRAIN_EXTRA = {
    "evaluate": "seat policies and play N games: win rates, scores, CIs",
    "crossplay": "cooperative cross-play matrix (CSV + heatmap PNG)",
    "league": "round-robin ratings (openskill) of competitive policies",
    "play": "play in the terminal with or against policies",
    "oracle": "The Brain: share of deals winnable with every card known",
    "train": "train a policy from a YAML config (MaskablePPO, or RLlib)",
    "benchmark": "a policy on a versioned benchmark suite: normalised scorecard",
}
NEEDS_WEB_EXTRA = {"serve": "play, watch replays and run studies in the browser"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="braincards", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    for group in (demo, bench, *TRAIN_COMMANDS, *WEB_COMMANDS):
        group.add_commands(sub)
    if WEB_MISSING is not None:
        _add_missing(sub, NEEDS_WEB_EXTRA, WEB_MISSING)
    if MISSING is not None:
        _add_missing(sub, NEEDS_TRAIN_EXTRA, MISSING)
    return parser


def _explain_missing(args):
    raise MISSING if args.command in NEEDS_TRAIN_EXTRA else WEB_MISSING


def _add_missing(sub, commands: dict, err: ModuleNotFoundError) -> None:
    """Commands whose extra is missing: listed in --help, and when run they say what to install."""
    if extra_for_missing_module(err) is None:
        raise err  # not a missing extra: a bug, keep the traceback
    for name, what in commands.items():
        p = sub.add_parser(name, help=f"{what} (not installed: {_install_hint(err)})")
        p.add_argument("args", nargs=argparse.REMAINDER)
        p.set_defaults(func=_explain_missing)


def _version() -> str:
    try:
        return version("braincards")
    except PackageNotFoundError:
        return "(not installed)"


# modules whose name differs from their distribution's
_MODULE_DISTRIBUTIONS = {"yaml": "pyyaml"}


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def extra_for_missing_module(err: ModuleNotFoundError) -> str | None:
    """The braincards extra that installs the module ``err`` says is missing (``"train"``,
    ``"rllib"``, ...), read from the installed package's metadata; None when no extra does."""
    if not err.name:
        return None
    top = err.name.split(".")[0]
    dist = _normalize(_MODULE_DISTRIBUTIONS.get(top, top))
    try:
        reqs = requires("braincards") or []
    except PackageNotFoundError:
        return None
    for req in reqs:  # e.g. 'pyyaml>=6; extra == "train"'
        m = re.match(r"\s*([A-Za-z0-9._-]+)[^;]*;.*extra\s*==\s*[\"']([^\"']+)[\"']", req)
        if m and _normalize(m.group(1)) == dist:
            return m.group(2)
    return None


def _install_hint(err: ModuleNotFoundError) -> str:
    extra = extra_for_missing_module(err)
    top = err.name.split(".")[0]
    text = (f"{_MODULE_DISTRIBUTIONS.get(top, top)} (module {top!r} is not installed): "
            f"pip install 'braincards[{extra}]'")
    if extra == "train":
        text += " (install torch==2.13.0 first for a CPU build; see the README's Install)"
    return text


MAX_ERROR_LINES = 3
MAX_ERROR_CHARS = 600  # of the last line, which holds what did not fit in the others


def fold(message: str) -> str:
    """``message`` in at most :data:`MAX_ERROR_LINES` lines: blank lines and runs of spaces
    go, and what would come after the last line is joined onto it with ``; ``."""
    lines = [" ".join(line.split()) for line in str(message).splitlines() if line.strip()] or [""]
    if len(lines) > MAX_ERROR_LINES:
        lines = lines[: MAX_ERROR_LINES - 1] + ["; ".join(lines[MAX_ERROR_LINES - 1 :])]
    if len(lines[-1]) > MAX_ERROR_CHARS:
        lines[-1] = lines[-1][: MAX_ERROR_CHARS - 3] + "..."
    return "\n".join(lines)


def _error(message: str) -> None:
    print(f"braincards: error: {fold(message)}", file=sys.stderr)


def _stdout_gone() -> int:
    """The reader of stdout went away (``braincards ... | head``): stop quietly. Further
    output goes to /dev/null so that the exit flush raises nothing; the exit status is the
    one of a command killed by SIGPIPE."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a file descriptor (an embedding program)
        pass
    return 128 + 13  # SIGPIPE


@contextlib.contextmanager
def _config_warnings(silence: bool):
    """A checkpoint seated at a table it was not trained for is said in one line on stderr
    (``braincards: warning: ...``), once per checkpoint, or not at all with
    ``--no-config-warning``."""
    if CheckpointConfigWarning is None:  # no checkpoints without the train extra
        yield
        return
    shown, said = warnings.showwarning, set()

    def one_line(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, CheckpointConfigWarning):
            checkpoint = str(message).split(" was trained", 1)[0]  # once per checkpoint, whatever its tables
            if checkpoint not in said:
                said.add(checkpoint)
                print(f"braincards: warning: {message}", file=sys.stderr)
        else:
            shown(message, category, filename, lineno, file, line)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore" if silence else "default", CheckpointConfigWarning)
        warnings.showwarning = one_line
        yield


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = argv[0] if argv else ""
    try:
        if command == "bench":  # the benchmark parses its own options
            return bench.cmd_bench(argparse.Namespace(args=argv[1:]))
        args = build_parser().parse_args(argv)
        command = args.command
        if hasattr(args, "game"):
            args.game = get_spec(args.game).id
        with sigterm_exits(), _config_warnings(getattr(args, "no_config_warning", False)):
            rc = args.func(args)
        sys.stdout.flush()  # a reader that went away shows here, not at the exit flush
        return rc
    except BrokenPipeError:  # before OSError: it is one
        return _stdout_gone()
    except KeyboardInterrupt:  # Ctrl-C: worker processes are already stopped
        print("braincards: interrupted", file=sys.stderr)
        return 130
    except ModuleNotFoundError as err:  # an extra that is not installed: say which
        if extra_for_missing_module(err) is None:
            raise  # not a missing extra: a bug, keep the traceback
        _error(f"`braincards {command}` needs {_install_hint(err)}")
        return 2
    except USER_ERRORS as err:  # bad config values, unwritable
        _error(str(err))  # --out/--json paths, a dead worker: say what was wrong, no traceback
        return 2


if __name__ == "__main__":
    sys.exit(main())
