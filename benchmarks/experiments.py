"""The experiments the page generators measure, read from ``configs/experiments.yaml`` and
checked: every checkpoint it names is shipped and every recipe exists, so a typo fails at load
time, not half-way through a long run."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
FILE = ROOT / "configs" / "experiments.yaml"
SECTIONS = ("shipped", "crossplay", "search", "leaderboard", "wheel", "baselines", "best_responses",
            "interop", "xp", "partners", "heldout")


def shipped_checkpoints() -> list[str]:
    """Names of the shipped checkpoints (``the_brain/ppo_3p``, ...), sorted."""
    root = ROOT / "checkpoints"
    return sorted(p.relative_to(root).with_suffix("").as_posix() for p in root.glob("*/*.zip"))


def load(path: Path = FILE) -> dict:
    """The experiments (a ValueError naming what is wrong in the file)."""
    data = yaml.safe_load(Path(path).read_text())
    if not isinstance(data, dict) or sorted(data) != sorted(SECTIONS):
        raise ValueError(f"{path}: expected the sections {list(SECTIONS)}")
    ships = set(shipped_checkpoints())
    if set(data["shipped"]) != ships:
        raise ValueError(f"{path}: 'shipped' must name each shipped checkpoint once; missing "
                         f"{sorted(ships - set(data['shipped']))}, not shipped {sorted(set(data['shipped']) - ships)}")
    missing = [recipe for recipe in data["shipped"].values() if not (ROOT / recipe).is_file()]
    if missing:
        raise ValueError(f"{path}: no such training config {missing}")
    named = [p for table in data["crossplay"].values() for p in table["policies"] if "/" in p]
    named += [t["checkpoint"] for t in data["search"]["tables"].values()]
    named += list(data["wheel"].values())
    named += [r[k] for r in data["best_responses"]["runs"] for k in ("target", "checkpoint")]
    named += [p for p in data["partners"]["br_prox"]["focal"] if "/" in p]
    absent = [e for e in data["interop"]["examples"] + data["xp"]["reports"] if not (ROOT / e).is_file()]
    if absent:
        raise ValueError(f"{path}: interop examples or cross-play reports {absent} do not exist")
    unknown = sorted(set(named) - ships)
    if unknown:
        raise ValueError(f"{path}: checkpoints {unknown} are not shipped")
    return data
