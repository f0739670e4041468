"""The rulings page (docs/rulings.md) against the rest of the project.

* every ruling ID cited anywhere (code, tests, configs, docs) is defined on the page;
* every ruling defined there is cited by at least one test;
* the repository stands alone: no file points at the rule texts outside it (the folder
  next to the checkout, the rulings file or the rulebook text files that live there);
* the deck tables on the rules pages are the decks the envs ship.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from braincards.envs.oh_my_brain.cards import DEFAULT_DECK
from braincards.envs.the_brain.cards import COLORS, DECK_TABLE, OBJECTS

ROOT = Path(__file__).resolve().parents[1]
RULINGS_PAGE = ROOT / "docs" / "rulings.md"
THIS = Path(__file__).resolve()

# A ruling is defined by a heading of its own: "### R-B5: the actions {#r-b5}".
DEFINITION = re.compile(r"^#{2,4}\s+(R-[BOW]\d+)\b", re.MULTILINE)
# A citation: "R-B5"; a test's name spells it without the dash ("def test_RB5_...").
CITATION = re.compile(r"(?<![A-Za-z0-9_-])R-[BOW]\d+(?!\d)")
TEST_NAME = re.compile(r"\bdef\s+(test_\w+)")
NAME_CITATION = re.compile(r"(?:^|_)R([BOW])(\d+)(?=_|$)")

SCANNED = ["envs", "training", "tests", "configs", "docs", "benchmarks", "README.md"]
SUFFIXES = {".py", ".md", ".yaml", ".js", ".html", ".css"}
SKIPPED_DIRS = {"__pycache__", ".venv", ".rllib-venv", "build", "runs", "node_modules", "site"}

# What no project file may mention (built so that this file does not mention it either).
FORBIDDEN = {
    "the rules folder outside the repository": re.compile(r"\.\./shared"),
    "the rulings file outside the repository": re.compile("RULINGS" + r"\.md"),
    "a rulebook text file": re.compile(r"[\w.-]*_rulebook[\w.-]*\.txt"),
}


def defined_ids(text: str) -> list[str]:
    """The ruling IDs the rulings page defines, in page order."""
    return DEFINITION.findall(text)


def cited_ids(text: str) -> set[str]:
    """The ruling IDs a text cites: dashed (``R-O4``) anywhere, or without the dash in the
    name of a test function (``def test_RO4_...``)."""
    ids = set(CITATION.findall(text))
    for name in TEST_NAME.findall(text):
        ids.update(f"R-{kind}{num}" for kind, num in NAME_CITATION.findall(name))
    return ids


def scanned_files() -> list[Path]:
    out = []
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            out.append(path)
            continue
        for f in sorted(path.rglob("*")):
            rel = f.relative_to(ROOT).parts
            if f.is_file() and f.suffix in SUFFIXES and not SKIPPED_DIRS.intersection(rel):
                out.append(f)
    return out


def project_files() -> list[Path]:
    """Tracked files plus untracked ones git does not ignore."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, capture_output=True, check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the project's files cannot be listed")
    names = sorted({n for n in listed.decode().split("\0") if n})
    return [ROOT / n for n in names if (ROOT / n).is_file() and not (ROOT / n).is_symlink()]


def read_text(path: Path) -> str | None:
    """The file's text, or None for a binary file."""
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


# ------------------------------------------------------------------ the checks, as functions
def undefined_citations(defined: set[str], files: dict[str, str]) -> list[str]:
    """``"path: R-X9"`` for every cited ID that the rulings page does not define."""
    bad = []
    for name, text in files.items():
        for rid in sorted(cited_ids(text) - defined):
            bad.append(f"{name}: {rid}")
    return bad


def uncited_rulings(defined: list[str], test_files: dict[str, str]) -> list[str]:
    """Defined IDs that no test file cites."""
    cited = set().union(*(cited_ids(t) for t in test_files.values())) if test_files else set()
    return [rid for rid in defined if rid not in cited]


def outside_pointers(files: dict[str, str]) -> list[str]:
    """``"path:line: what"`` for every mention of the rule texts outside the repository."""
    bad = []
    for name, text in files.items():
        for what, pattern in FORBIDDEN.items():
            for m in pattern.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                bad.append(f"{name}:{line}: {m.group(0)!r} ({what})")
    return bad


# ------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def defined() -> list[str]:
    return defined_ids(RULINGS_PAGE.read_text())


@pytest.fixture(scope="module")
def scanned() -> dict[str, str]:
    """Every scanned file's text, this file left out (its self-test cites made-up IDs)."""
    return {f.relative_to(ROOT).as_posix(): f.read_text(errors="replace")
            for f in scanned_files() if f.resolve() != THIS}


# ------------------------------------------------------------------ tests
def test_the_rulings_page_defines_every_ruling_once(defined):
    expected = ([f"R-B{i}" for i in range(1, 10)] + [f"R-O{i}" for i in range(1, 12)]
                + [f"R-W{i}" for i in range(1, 10)])
    twice = sorted({rid for rid in defined if defined.count(rid) > 1})
    assert not twice, f"docs/rulings.md defines these rulings more than once: {twice}"
    missing = [rid for rid in expected if rid not in defined]
    assert not missing, f"docs/rulings.md has no heading for {missing}"


def test_the_rulings_page_gives_every_ruling_an_anchor():
    text = RULINGS_PAGE.read_text()
    for rid in defined_ids(text):
        anchor = "{#" + rid.lower() + "}"
        assert re.search(rf"^#+\s+{rid}\b.*{re.escape(anchor)}\s*$", text, re.MULTILINE), (
            f"docs/rulings.md: the heading of {rid} lacks the anchor {anchor}")


def test_every_cited_ruling_is_defined_on_the_rulings_page(defined, scanned):
    assert len(scanned) > 50 and "envs/the_brain/rules.py" in scanned
    bad = undefined_citations(set(defined), scanned)
    assert not bad, f"rulings cited but not defined in docs/rulings.md: {bad}"


def test_every_ruling_is_cited_by_a_test(defined, scanned):
    tests = {name: text for name, text in scanned.items()
             if name.startswith("tests/") and name.endswith(".py")}
    missing = uncited_rulings(defined, tests)
    assert not missing, (
        f"rulings defined in docs/rulings.md that no test under tests/ cites: {missing}")


def test_no_project_file_points_outside_the_repository():
    files = {}
    for f in project_files():
        text = read_text(f)
        if text is not None:
            files[f.relative_to(ROOT).as_posix()] = text
    assert "docs/rulings.md" in files and "README.md" in files
    bad = outside_pointers(files)
    assert not bad, f"files that point at rule texts outside the repository: {bad}"


def test_the_checks_catch_what_they_look_for():
    """Each check, fed a broken input, names the file and the ID or the mention."""
    assert undefined_citations({"R-B1"}, {"envs/x.py": "see R-B1 and R-B10"}) == ["envs/x.py: R-B10"]
    assert undefined_citations({"R-B1"}, {"tests/t.py": "def test_RB12_x(): ..."}) == ["tests/t.py: R-B12"]
    assert uncited_rulings(["R-O1", "R-O2"], {"tests/test_x.py": "def test_RO1_a(): ..."}) == ["R-O2"]
    assert uncited_rulings(["R-W3"], {"tests/test_x.py": '"""R-W3: hands."""'}) == []
    assert uncited_rulings(["R-W3"], {"tests/test_x.py": "x = 'RW3'"}) == ["R-W3"]
    found = outside_pointers({
        "a.md": "see `" + "../" + "shared/rules/`",
        "b.py": "# " + "RULINGS" + ".md",
        "c.yaml": "# the " + "oh_my_brain" + "_rulebook" + ".txt",
    })
    assert [f.split(":")[0] for f in found] == ["a.md", "b.py", "c.yaml"]
    assert outside_pointers({"d.md": "see docs/rulings.md and the printed rulebook"}) == []
    assert cited_ids("R-B1..R-B9, XR-B2, R-B33") == {"R-B1", "R-B9", "R-B33"}
    assert cited_ids("def test_wins_RO10_and_RW2(): ...") == {"R-O10", "R-W2"}
    assert defined_ids("### R-O4: playing {#r-o4}\ntext R-O5\n") == ["R-O4"]


# ------------------------------------------------------------------ deck tables
def _table_rows(text: str, first_cell: str) -> list[list[str]]:
    """The rows of the Markdown table whose header starts with ``first_cell``."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(f"| {first_cell}"))
    rows = []
    for line in lines[start:]:
        if not line.strip().startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return [r for r in rows if not set("".join(r)) <= set("-: ")]


def test_the_brain_rules_page_shows_the_deck_the_env_ships():
    rows = _table_rows((ROOT / "docs/rules/the_brain.md").read_text(), "object \\ color")
    assert rows[0][1:] == list(COLORS), "docs/rules/the_brain.md"
    assert [r[0] for r in rows[1:]] == list(OBJECTS), "docs/rules/the_brain.md"
    assert {r[0]: tuple(r[1:]) for r in rows[1:]} == DECK_TABLE, "docs/rules/the_brain.md"


@pytest.mark.parametrize("page", ["docs/rules/oh_my_brain.md", "docs/rulings.md"])
def test_oh_my_brain_pages_show_the_deck_the_env_ships(page):
    rows = _table_rows((ROOT / page).read_text(), "value")
    values = [int(v) for v in rows[0][1:]]
    copies = [int(c) for c in rows[1][1:]]
    assert dict(zip(values, copies, strict=True)) == DEFAULT_DECK, page
