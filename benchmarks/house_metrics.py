"""Measure the shape of the code base: the numbers the house redesign is judged by.

Run from the repository root (no braincards import needed, the files are read as text):

    python benchmarks/house_metrics.py            # a table
    python benchmarks/house_metrics.py --json     # the same as JSON

* import cycles - strongly connected groups of modules of the package (imports at any depth,
  relative ones resolved, and ``"braincards.x.y:Name"`` strings that importlib loads), and the
  module pairs that import each other;
* imports inside functions - ``import`` statements below a ``def`` in ``training/`` and
  ``benchmarks/``;
* functions over 60 lines - in ``envs/`` and ``training/``, rules engines (``rules.py``) aside;
* the largest module of ``training/``, the modules over 500 lines (rules engines aside), the
  README's size, and game-specific code in generic modules of ``training/``: an import of a
  game's own module or a comparison with a game id, anywhere but each game's heuristic, The
  Brain's search and Brilliant Boar's event reader (:data:`GAME_SPECIFIC`).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"envs": "braincards.envs", "training": "braincards.training", "benchmarks": "benchmarks"}
GAMES = ("the_brain", "oh_my_brain", "brilliant_boar")
GAME_ID = re.compile(rf"(?:{'|'.join(GAMES)})(?:_v\d+)?")
# where game-specific code belongs in training/: each game's heuristic, The Brain's search,
# and Brilliant Boar's recurrent event-reader network
GAME_SPECIFIC = ("training/agents/heuristics/", "training/agents/search/", "training/agents/event_reader.py")
LARGE = 500  # lines: the most a module outside the rules engines may have


def modules() -> dict[str, Path]:
    out = {}
    for folder, prefix in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join((prefix, *parts))] = path
    return out


def imported(name: str, path: Path, tree: ast.AST, known: set[str]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            # a string that is a module path ("braincards.x.y:Name"), as importlib registries
            # hold them, is an import too (a docstring that names a module is not)
            m = re.fullmatch(r"(braincards(?:\.\w+)+)(?::\w+)?", node.value)
            targets = [m.group(1)] if m else []
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


def game_specific(rel: str, tree: ast.AST) -> list[str]:
    """Where ``tree`` imports a game's own module or compares with a game id: an
    ``import braincards.envs.<game>`` (or ``from braincards.envs import <game>``), a comparison
    with a quoted game id or name, or with a game module's ``SPEC.id``."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_is_game_id(x) for x in sides):
                out.append(f"{rel}:{node.lineno} compares with a game id")
            continue
        else:
            continue
        if any(re.fullmatch(rf"braincards\.envs\.({'|'.join(GAMES)})(\..*)?", n) for n in names):
            out.append(f"{rel}:{node.lineno} imports a game module")
    return out


def _is_game_id(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return bool(GAME_ID.fullmatch(node.value))
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_is_game_id(e) for e in node.elts)
    return isinstance(node, ast.Attribute) and node.attr == "id" and isinstance(node.value, ast.Attribute) \
        and node.value.attr == "SPEC"


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def measure() -> dict:
    mods = modules()
    known = set(mods)
    trees = {name: ast.parse(path.read_text()) for name, path in mods.items()}
    # a package's __init__ importing its own submodules is how packages are built, not a cycle
    graph = {n: {m for m in imported(n, mods[n], t, known) if not m.startswith(n + ".")}
             for n, t in trees.items()}
    pairs = sorted({tuple(sorted((a, b))) for a in graph for b in graph[a] if a in graph[b]})
    long_functions, sizes = [], {}
    for name, tree in trees.items():
        path = mods[name]
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("training/"):
            sizes[rel] = len(path.read_text().splitlines())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > 60 and path.name != "rules.py":
                    long_functions.append(f"{rel}:{node.lineno} {node.name} ({length} lines)")
    inner_imports = [
        f"{mods[name].relative_to(ROOT).as_posix()}:{n.lineno}"
        for name, tree in trees.items() if mods[name].relative_to(ROOT).as_posix().startswith(("training/", "benchmarks/"))
        for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        for stmt in node.body for n in ast.walk(stmt) if isinstance(n, (ast.Import, ast.ImportFrom))
        and _owner(node, n)
    ]
    undocumented = [mods[name].relative_to(ROOT).as_posix() for name, tree in trees.items()
                    if not ast.get_docstring(tree)]
    specific = [place for name, tree in trees.items()
                for rel in [mods[name].relative_to(ROOT).as_posix()]
                if rel.startswith("training/") and not rel.startswith(GAME_SPECIFIC)
                for place in game_specific(rel, tree)]
    large = [f"{rel} ({n} lines)" for rel, n in _all_sizes(mods).items() if n > LARGE]
    largest = max(sizes.items(), key=lambda kv: kv[1])
    return {
        "import_cycles": cycles(graph),
        "mutual_import_pairs": [list(p) for p in pairs],
        "imports_inside_functions": inner_imports,
        "functions_over_60_lines": long_functions,
        "modules_without_docstring": undocumented,
        "largest_module": {"path": largest[0], "lines": largest[1]},
        "readme_bytes": (ROOT / "README.md").stat().st_size,
        "game_specific_code_in_generic_modules": specific,
        "modules_over_500_lines": large,
    }


def _all_sizes(mods: dict[str, Path]) -> dict[str, int]:
    """Lines per module of envs/ and training/, the rules engines (``rules.py``) aside."""
    return {path.relative_to(ROOT).as_posix(): len(path.read_text().splitlines())
            for path in mods.values() if path.name != "rules.py"}


def _owner(func: ast.AST, node: ast.AST) -> bool:
    """True when ``node`` belongs to ``func`` itself, not to a def nested inside it."""
    for child in ast.walk(func):
        nested = child is not func and isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
        if nested and any(n is node for n in ast.walk(child)):
            return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the measures as JSON")
    args = parser.parse_args(argv)
    m = measure()
    if args.json:
        print(json.dumps(m, indent=2))
        return 0
    print(f"import cycles (groups):      {len(m['import_cycles'])}")
    for group in m["import_cycles"]:
        print(f"  {' <-> '.join(group)}")
    print(f"modules importing each other: {len(m['mutual_import_pairs'])} pairs")
    print(f"imports inside functions:    {len(m['imports_inside_functions'])} (training/)")
    for place in m["imports_inside_functions"]:
        print(f"  {place}")
    print(f"modules without a docstring: {len(m['modules_without_docstring'])}")
    print(f"functions over 60 lines:     {len(m['functions_over_60_lines'])}")
    for f in m["functions_over_60_lines"]:
        print(f"  {f}")
    print(f"largest module:              {m['largest_module']['path']} ({m['largest_module']['lines']} lines)")
    print(f"README.md:                   {m['readme_bytes']} bytes")
    print(f"game-specific code in generic modules: {len(m['game_specific_code_in_generic_modules'])}")
    for place in m["game_specific_code_in_generic_modules"]:
        print(f"  {place}")
    print(f"modules over {LARGE} lines (rules engines aside): {len(m['modules_over_500_lines'])}")
    for place in m["modules_over_500_lines"]:
        print(f"  {place}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
