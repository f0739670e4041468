"""The held-out protocol (docs/training.md#held-out-protocol): its seeds are used by nothing
that chooses (no training config, no other benchmark plan or script), every shipped network
has a held-out record made under the plan (its seeds and games, at its own table), and the
results page shows the selection and held-out numbers side by side, labelled."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("heldout", ROOT / "benchmarks" / "heldout.py")
heldout = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(heldout)
PLAN = heldout.PLAN
SEEDS = set(PLAN["seeds"])


def _seeds_in(node) -> set[int]:
    """Every value of a ``seed``/``seeds`` key anywhere in a YAML tree."""
    found: set[int] = set()
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("seed", "seeds"):
                found |= {v} if isinstance(v, int) else {s for s in v if isinstance(s, int)} if isinstance(v, list) else set()
            found |= _seeds_in(v)
    elif isinstance(node, list):
        for v in node:
            found |= _seeds_in(v)
    return found


def test_the_held_out_seeds_are_two_or_more_with_2000_games_a_cell():
    assert len(SEEDS) >= 2 and len(SEEDS) * PLAN["games"] >= 2000


@pytest.mark.parametrize("path", sorted((ROOT / "configs").rglob("*.yaml")), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_config_uses_a_held_out_seed(path):
    data = yaml.safe_load(path.read_text())
    if path.name == "experiments.yaml":
        data = {k: v for k, v in data.items() if k != "heldout"}
    assert not _seeds_in(data) & SEEDS, f"{path.name} uses a held-out seed"


def test_no_other_benchmark_or_training_code_names_a_held_out_seed():
    pattern = re.compile(r"\b(" + "|".join(map(str, sorted(SEEDS))) + r")\b")
    for folder in ("benchmarks", "training"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name != "heldout.py":
                assert not pattern.search(path.read_text()), f"{path.relative_to(ROOT)} names a held-out seed"


@pytest.mark.parametrize("name", heldout.experiments.shipped_checkpoints())
def test_every_shipped_network_has_a_held_out_record_under_the_plan(name):
    path = heldout.FOLDER / f"{name}.json"
    assert path.is_file(), f"no held-out record of {name}: python benchmarks/heldout.py --regenerate --only {name}"
    import json

    rec = json.loads(path.read_text())
    cfg, table, _ = heldout.first_table(name)
    assert (rec["game"], rec["env"], rec["table"]) == (cfg.game, cfg.env, table)
    assert sorted(s["seed"] for s in rec["per_seed"]) == sorted(SEEDS)
    assert rec["games"] == sum(s["games"] for s in rec["per_seed"]) >= len(SEEDS) * PLAN["games"]
    assert rec["wins"] == sum(s["wins"] for s in rec["per_seed"])


def test_the_section_shows_selection_and_held_out_side_by_side():
    net = {"kind": "network", "name": "the_brain/ppo_3p", "game": "the_brain_v0",
           "env": {"num_players": 3, "difficulty": "robber"}, "table": "team", "key": "k",
           "win_rate": {"value": 0.85, "lo": 0.83, "hi": 0.87}, "seeds": [9001, 9002], "games_per_seed": 1000,
           "mean_score": 35.0, "seconds": 20.0,
           "measured": "2026-12-07", "cpus": 2}
    ref = dict(net, kind="reference", name="pimc", win_rate={"value": 0.88, "lo": 0.86, "hi": 0.9}, seconds=200.0)
    lines = heldout.render([net, ref])
    head = next(line for line in lines if line.startswith("| network"))
    assert "| selection | held out |" in head and "`pimc` (held out)" in head
    row = next(line for line in lines if line.startswith("| `the_brain/ppo_3p`"))
    selection = heldout.selection_rate("the_brain/ppo_3p")["win_rate"]["value"]
    assert f"{selection:.3f}" in row and "0.850 [0.830, 0.870]" in row and "0.880 [0.860, 0.900]" in row
    assert row.endswith(" 0.10 |"), "the time column: the network's seconds over pimc's"
    assert heldout.render([]) == []
