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
import importlib
import importlib.util
import os
import re
import sys
import warnings
from importlib.metadata import PackageNotFoundError, requires, version

from braincards.envs import get_spec
from braincards.training.processes import sigterm_exits

DESCRIPTION = ("braincards: The Brain, Oh My Brain and Brainwaves: The Brilliant Boar as PettingZoo "
               "environments, with baselines, evaluation and training")
# every command: (its module, its one-line help, the extra it needs). A command's module is
# imported when the command runs (so `braincards oracle` never loads torch, nor `--help`
# anything heavy); build_parser() without a command imports them all.
COMMANDS = {
    "demo": ("demo", "play one game with random legal moves, printing the table", None),
    "bench": ("bench", "env throughput benchmark (see `braincards bench --help`)", None),
    "evaluate": ("evaluation", "seat policies and play N games: win rates, scores, CIs", "train"),
    "crossplay": ("evaluation", "cooperative cross-play matrix (CSV + heatmap PNG)", "train"),
    "league": ("evaluation", "round-robin ratings (openskill) of competitive policies", "train"),
    "xp": ("evaluation", "cross-play report over seeds and recipes: self-play, intra-, inter-recipe, held-out",
           "train"),
    "partners": ("evaluation", "a partner suite's population: cross-play diversity and best responses", "train"),
    "oracle": ("oracle", "The Brain: share of deals winnable with every card known", "train"),
    "play": ("play", "play in the terminal with or against policies", "train"),
    "train": ("train", "train a policy from a YAML config (MaskablePPO, or RLlib)", "train"),
    "benchmark": ("benchmark", "a policy on a versioned benchmark suite: normalised scorecard", "train"),
    "serve": ("serve", "play, watch replays and run studies in the browser", "web"),
    "study-export": ("serve", "a study's human decisions for behaviour cloning (train/test split by participant)",
                     "web"),
    "proxy": ("proxy", "behaviour-cloning proxies of a study's people (train and test split)", "train"),
    "export": ("export", "a checkpoint's network as an ONNX file (torch-free inference)", "onnx"),
}


ALL = "*"  # build_parser's default: every command's module
EXTRA_PROBES = {"train": "torch", "web": "fastapi", "onnx": "onnxscript"}  # a module each extra installs


def build_parser(command: str = ALL) -> argparse.ArgumentParser:
    """The ``braincards`` parser. ``command``: the command about to run (only its module is
    imported; the others are listed by name and help), :data:`ALL` (every command's module),
    or anything else (``--help``, ``--version``: none is imported). A command whose extra is
    not installed is listed, and when run says what to install."""
    parser = argparse.ArgumentParser(prog="braincards", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    modules = {m for m, _, _ in COMMANDS.values()}
    wanted = modules if command == ALL else {COMMANDS[command][0]} if command in COMMANDS else set()
    for module_name in dict.fromkeys(m for m, _, _ in COMMANDS.values()):
        names = [name for name, (m, _, _) in COMMANDS.items() if m == module_name]
        if module_name not in wanted:
            for name in names:  # listed only: this run is not theirs
                sub.add_parser(name, help=_listed_help(name), add_help=False)
            continue
        try:
            module = importlib.import_module(f"{__package__}.{module_name}")
        except ModuleNotFoundError as err:  # its extra is not installed
            _add_missing(sub, names, err)
        else:
            module.add_commands(sub)
    return parser


def _listed_help(name: str) -> str:
    """A command's line in ``--help``, saying so when its extra is not installed (found without
    importing anything heavy)."""
    _, what, extra = COMMANDS[name]
    if extra is None:
        return what
    try:
        installed = importlib.util.find_spec(EXTRA_PROBES[extra]) is not None
    except ImportError:  # a finder that refuses the name outright
        installed = False
    return what if installed else f"{what} (not installed: pip install 'braincards[{extra}]')"


def _add_missing(sub, names: list[str], err: ModuleNotFoundError) -> None:
    """Commands whose extra is missing: listed in --help, and when run they say what to install."""
    if extra_for_missing_module(err) is None:
        raise err  # not a missing extra: a bug, keep the traceback

    def explain(args):
        raise err

    for name in names:
        p = sub.add_parser(name, help=f"{COMMANDS[name][1]} (not installed: {_install_hint(err)})")
        p.add_argument("args", nargs=argparse.REMAINDER)
        p.set_defaults(func=explain)


def _user_errors() -> tuple[type[Exception], ...]:
    """The errors that are the user's (bad values, unwritable paths, a dead worker): said in one
    line, without a traceback."""
    harness = sys.modules.get("braincards.training.evaluation.harness")
    return (ValueError, OSError) + ((harness.WorkerError,) if harness is not None else ())


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
    checks = sys.modules.get("braincards.training.agents.checkpoint_checks")
    if checks is None:  # this command seats no checkpoint (or the train extra is missing)
        yield
        return
    CheckpointConfigWarning = checks.CheckpointConfigWarning  # noqa: N806 - the class, looked up
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


def main(argv: list[str] | None = None, loaded=None) -> int:
    """Run ``braincards ARGV``; returns the exit status. ``loaded()`` is called once the
    command's modules are imported (the entry point's progress line waits for it)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    command = argv[0] if argv else ""
    try:
        if command == "bench":  # the benchmark parses its own options
            return importlib.import_module(f"{__package__}.bench").cmd_bench(argparse.Namespace(args=argv[1:]))
        args = build_parser(command if command in COMMANDS else "").parse_args(argv)
        if loaded is not None:
            loaded()
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
    except Exception as err:
        if not isinstance(err, _user_errors()):
            raise
        _error(str(err))  # bad config values, unwritable --out/--json paths, a dead worker: no traceback
        return 2


if __name__ == "__main__":
    sys.exit(main())
