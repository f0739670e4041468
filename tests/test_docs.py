"""The README and the docs site (``docs/**/*.md``) are checked against the code: the
observation layouts they show are the ones the envs build, and every code block is run or
checked.

Every fenced block names its language, which says how it is checked:

* ``python`` - executed, in order, in one namespace per ``##`` section of a page (a block
  may use what the blocks before it in its section defined), in a scratch directory holding
  the repository's ``configs/`` and ``checkpoints/`` (the README's Quickstart in an empty
  one: shipped checkpoints load by name from any folder);
* ``bash`` - every ``braincards ...`` line is parsed by the CLI's real argparse parser, its
  game and ``configs/`` files must exist, and the cheap ones (``demo``, ``evaluate``,
  ``crossplay``, ``league`` with built-in policies only) are run with few games; every
  ``make TARGET`` must be a Makefile target;
* ``json`` - parsed; ``yaml`` - parsed;
* ``text`` - not code (synopses, layouts, sample output): not checked;
* a ``python`` block that only includes a file (``--8<-- "examples/x.py"``, shown whole in the
  site) - the file must exist and a test must run it (the interop examples run in
  ``tests/interop``, in their own venv).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

from braincards.envs import make
from braincards.training.agents.locations import resolve_checkpoint

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PAGES = ["README.md"] + sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md"))
TEXTS = {page: (ROOT / page).read_text() for page in PAGES}
README_LIMIT = 10 * 1024  # bytes: the README is a landing page, the rest lives in docs/
FIRST_SCREEN = 30  # lines

PYTHON, SHELL, DATA, TEXT = {"python"}, {"bash", "sh", "shell"}, {"json", "yaml"}, {"text"}
INCLUDED = {"included"}  # a python block that includes one file (see the module docstring)
INCLUDE = re.compile(r'--8<-- "([^"]+)"\n')

# Exact text replaced in python blocks before they run, to keep the test fast (each block
# is otherwise run as written)
SPEED_UPS = {"games=1000,": "games=24,",  # Evaluation API: 1,000 games take ~10 s here
             "games=300,": "games=12,",  # Evaluate your own agent: evaluate, crossplay
             "quick=True,": "games=5,",  # ... and a benchmark of 5 games a scenario
             "range(150)": "range(30)", "range(20)": "range(3)"}  # ... trained on fewer games
# `braincards` subcommands run (with few games) when every policy they seat is built in
CHEAP_COMMANDS = {"demo", "evaluate", "crossplay", "league"}
BUILTIN_POLICIES = {"random", "heuristic"}
CHEAP_GAMES = 6
# (page, section) -> a check on the namespace its python blocks leave
PLAYED_A_GAME = {("README.md", "Quickstart"), ("docs/environments.md", "A game loop")}
# (page, section) whose python blocks run in an empty folder
BARE = {("README.md", "Quickstart")}


@dataclass
class Block:
    lang: str
    code: str
    line: int  # of the opening fence
    section: str  # the enclosing "## " heading
    page: str = "README.md"

    def where(self) -> str:
        return f"{self.page}:{self.line} ({self.section})"


def readme_blocks(text: str = README, page: str = "README.md") -> list[Block]:
    """The fenced blocks of one Markdown page, with their ``## `` section."""
    blocks, section, lines, i = [], "(top)", text.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            section = line[3:].strip()
        elif line.startswith("```"):
            end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), None)
            assert end is not None, f"{page}:{i + 1}: code block never closed"
            info, code = line[3:].split(), "\n".join(lines[i + 1 : end]) + "\n"
            lang = info[0] if info else ""
            if lang in PYTHON and INCLUDE.fullmatch(code):
                lang = "included"
            blocks.append(Block(lang, code, i + 1, section, page))
            i = end
        i += 1
    return blocks


BLOCKS = [b for page in PAGES for b in readme_blocks(TEXTS[page], page)]


def _sections_with(langs: set[str]) -> list[tuple[str, str]]:
    return list(dict.fromkeys((b.page, b.section) for b in BLOCKS if b.lang in langs))


def _commands(blocks: list[Block]) -> list[tuple[Block, int, list[str]]]:
    """(block, line, argv) of every command in the shell blocks (``\\`` continues a line)."""
    out = []
    for b in blocks:
        if b.lang not in SHELL:
            continue
        pending, start = "", 0
        for k, raw in enumerate(b.code.split("\n")):
            if not pending:
                start = b.line + 1 + k
            if raw.rstrip().endswith("\\"):
                pending += raw.rstrip()[:-1] + " "
                continue
            argv = shlex.split(pending + raw, comments=True)
            pending = ""
            if argv:
                out.append((b, start, argv))
    return out


COMMANDS = _commands(BLOCKS)


# ---------------------------------------------------------------------------- layouts
@pytest.mark.parametrize(
    "game, config, page",
    [
        ("the_brain_v0", {"open_hands": True, "discard_peek": True}, "docs/games/the_brain.md"),
        ("oh_my_brain_v0", {}, "docs/games/oh_my_brain.md"),
        ("brilliant_boar_v0", {}, "docs/games/brilliant_boar.md"),
    ],
)
def test_docs_show_the_current_observation_layout(game, config, page):
    assert make(game, raw=True, **config).layout.describe() in TEXTS[page]


# ---------------------------------------------------------------------------- README
def test_readme_names_the_test_command_and_every_env():
    assert "`make test`" in README
    for game in ("the_brain_v0", "oh_my_brain_v0", "brilliant_boar_v0"):
        assert f"`{game}`" in README


def test_readme_is_a_landing_page():
    size = len(README.encode())
    assert size <= README_LIMIT, f"README.md is {size} bytes, over {README_LIMIT}: move detail into docs/"
    first_screen = "\n".join(README.split("\n")[:FIRST_SCREEN])
    for command in ("make train", "make test"):
        assert command in first_screen, f"`{command}` is not in the README's first {FIRST_SCREEN} lines"


def test_readme_maps_every_import_path_to_its_folder():
    layout = README[README.index("## Repository layout"):]
    for package, folder in (("braincards.envs", "envs/"), ("braincards.training", "training/"),
                            ("braincards.checkpoints", "checkpoints/")):
        assert re.search(rf"\| `{re.escape(package)}` \| `{re.escape(folder)}`", layout), package
    for sub in ("agents/", "evaluation/", "learning/", "cli/", "configs/", "docs/", "tests/", "benchmarks/"):
        assert f"`{sub}`" in layout, sub


def test_every_relative_link_points_at_a_file():
    bad = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", TEXTS[page]):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not ((ROOT / page).parent / target).exists():
                bad.append(f"{page}: {target}")
    assert not bad, f"links to missing files: {bad}"


def test_every_docs_page_is_in_the_site_navigation():
    nav = (ROOT / "mkdocs.yml").read_text()
    missing = [p for p in PAGES if p.startswith("docs/") and p.removeprefix("docs/") not in nav]
    assert not missing, f"pages missing from mkdocs.yml's nav: {missing}"


# ---------------------------------------------------------------------------- blocks
def test_every_block_names_a_language_that_says_how_it_is_checked():
    known = PYTHON | SHELL | DATA | TEXT | INCLUDED
    bad = [f"{b.where()}: ```{b.lang}" for b in BLOCKS if b.lang not in known]
    assert not bad, (
        f"code blocks without a known language {bad}; use one of {sorted(known)} "
        "(```text for a synopsis or a layout, which is not checked)"
    )


def test_blocks_sections_and_commands_are_read_as_written():
    text = ("# t\n\n```bash\nmake x  # c\n```\n\n## A\n\n```python\na = 1\n```\n\n## B\n\n"
            "```bash\nbraincards evaluate the_brain \\\n  --seat random\npip install x\n```\n"
            "```\nuntagged\n```\n")
    blocks = readme_blocks(text, "docs/x.md")
    assert [(b.lang, b.section, b.line, b.page) for b in blocks] == [
        ("bash", "(top)", 3, "docs/x.md"), ("python", "A", 9, "docs/x.md"), ("bash", "B", 15, "docs/x.md"),
        ("", "B", 20, "docs/x.md")]
    assert [(line, argv) for _, line, argv in _commands(blocks)] == [
        (4, ["make", "x"]),
        (16, ["braincards", "evaluate", "the_brain", "--seat", "random"]),
        (18, ["pip", "install", "x"]),
    ]


def test_docs_blocks_are_found():
    assert sum(b.lang == "python" for b in BLOCKS) >= 5
    assert any(argv[0] == "braincards" for _, _, argv in COMMANDS)
    assert {b.page for b in BLOCKS} >= {"README.md", "docs/environments.md", "docs/agents.md",
                                         "docs/evaluation.md", "docs/training.md"}


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    """``make(bare=False)``: a scratch current directory with the repository's configs/ and
    checkpoints/ (files linked), or nothing at all (``bare=True``)."""

    def make_workspace(bare: bool = False) -> Path:
        if not bare:
            (tmp_path / "configs").symlink_to(ROOT / "configs", target_is_directory=True)
            if (ROOT / "checkpoints").is_dir():
                shutil.copytree(ROOT / "checkpoints", tmp_path / "checkpoints", copy_function=_link,
                                ignore=shutil.ignore_patterns("__pycache__"))
        monkeypatch.chdir(tmp_path)
        return tmp_path

    return make_workspace


def _link(src, dst):
    Path(dst).symlink_to(Path(src).resolve())


def _warnings_are_errors():
    """Turn the warnings a user would see into errors: Python's default filters show every
    UserWarning (our CheckpointConfigWarning, a library's deprecation notice such as starlette's
    about httpx), RuntimeWarning and FutureWarning, and hide DeprecationWarnings raised inside
    libraries."""
    for category in (UserWarning, RuntimeWarning, FutureWarning):
        warnings.simplefilter("error", category)


@pytest.mark.parametrize("page, section", _sections_with(PYTHON), ids=lambda x: x)
def test_docs_python_blocks_run(page, section, workspace):
    blocks = [b for b in BLOCKS if b.page == page and b.section == section and b.lang in PYTHON]
    workspace(bare=(page, section) in BARE)
    namespace: dict = {"__name__": "__docs__"}
    for b in blocks:
        code = b.code
        for slow, fast in SPEED_UPS.items():
            code = code.replace(slow, fast)
        try:
            with warnings.catch_warnings():  # a documented snippet prints no warning (issue 40)
                _warnings_are_errors()
                exec(compile(code, b.where(), "exec"), namespace)  # noqa: S102 - our own docs
        except Exception as err:
            pytest.fail(f"{b.where()}: the python block fails: {type(err).__name__}: {err}")
    if (page, section) in PLAYED_A_GAME:
        assert namespace["env"].unwrapped.state.outcome in (1, -1)


def test_sections_with_checks_still_exist():
    sections = set(_sections_with(PYTHON))
    for key in PLAYED_A_GAME | BARE:
        assert key in sections, f"{key} has no python block any more: update PLAYED_A_GAME / BARE"


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang in INCLUDED], ids=lambda b: f"{b.page}:{b.line}")
def test_included_files_exist_and_a_test_runs_them(block):
    path = INCLUDE.fullmatch(block.code).group(1)
    assert (ROOT / path).is_file(), f"{block.where()} includes {path}, which does not exist"
    tests = "".join(p.read_text() for p in (ROOT / "tests").rglob("test_*.py"))
    assert path in tests, f"{block.where()} includes {path}, which no test under tests/ runs"


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang in DATA], ids=lambda b: f"{b.page}:{b.line}")
def test_docs_data_blocks_parse(block):
    if block.lang == "json":
        json.loads(block.code)
    else:
        import yaml

        yaml.safe_load(block.code)


def test_allowances_are_still_needed():
    python = "".join(b.code for b in BLOCKS if b.lang in PYTHON)
    for slow in SPEED_UPS:
        assert slow in python, f"{slow!r} is no longer in a python block: drop it from SPEED_UPS"


@pytest.mark.parametrize("block, line, argv", COMMANDS,
                         ids=[f"{b.page}:{line}-{argv[0]}" for b, line, argv in COMMANDS])
def test_docs_commands_parse(block, line, argv, workspace, capsys, monkeypatch):
    where = f"{block.page}:{line} `{shlex.join(argv)}`"
    workdir = workspace()
    if argv[0] == "make":
        targets = set(re.findall(r"(?m)^([A-Za-z0-9_.-]+):", (ROOT / "Makefile").read_text()))
        missing = [t for t in argv[1:] if not t.startswith("-") and "=" not in t and t not in targets]
        assert not missing, f"{where}: no Makefile target {missing}"
        return
    if argv[0] != "braincards":
        return  # pip, python, tensorboard ...: not ours to check
    for arg in argv:
        if arg.startswith("configs/"):
            assert (ROOT / arg).exists(), f"{where}: {arg} does not exist"
    if argv[1:2] == ["bench"]:  # parses its own options: run it with the measuring stubbed
        from braincards.training.evaluation import bench

        monkeypatch.setattr(bench, "run", lambda *a, **k: [])
        assert bench.main(argv[2:]) == 0, where
        return
    from braincards.envs import get_spec
    from braincards.training.cli.main import build_parser

    try:
        args = build_parser().parse_args(argv[1:])
    except SystemExit:
        pytest.fail(f"{where} does not parse: {capsys.readouterr().err.strip()}")
    if hasattr(args, "game"):
        args.game = get_spec(args.game).id
    specs = list(getattr(args, "seat", None) or []) + list(getattr(args, "specs", None) or [])
    shipped = {s for s in specs if resolve_checkpoint(s) is not None}
    if args.command in CHEAP_COMMANDS and set(specs) <= BUILTIN_POLICIES | shipped:
        args.games = min(getattr(args, "games", CHEAP_GAMES), CHEAP_GAMES)
        for key, value in (("workers", 1), ("quiet", True), ("json", None)):
            if hasattr(args, key):
                setattr(args, key, value)
        if hasattr(args, "out"):
            args.out = str(workdir / "out")
        with warnings.catch_warnings():  # a documented command prints no warning (issue 40)
            _warnings_are_errors()
            assert args.func(args) == 0, where
