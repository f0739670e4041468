"""The generated docs pages are what benchmarks/results_page.py renders: docs/results.md from
the measurements in benchmarks/results/ (so a hand edit, or a stale measurement after a
checkpoint was retrained, fails) and docs/training-config.md from the training config's
pydantic models (so a new key or default shows up in the docs)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("results_page", ROOT / "benchmarks" / "results_page.py")
results_page = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(results_page)

REGENERATE = "python benchmarks/results_page.py"


def test_results_page_is_the_rendering_of_the_measurements():
    rendered = results_page.pages()[results_page.RESULTS_PAGE]
    assert (ROOT / "docs" / "results.md").read_text() == rendered, (
        f"docs/results.md differs from its rendering: do not edit it by hand; run `{REGENERATE}`"
    )


def test_config_page_is_the_rendering_of_the_models():
    assert (ROOT / "docs" / "training-config.md").read_text() == results_page.render_config(), (
        f"docs/training-config.md differs from the config models: run `{REGENERATE}`"
    )


@pytest.mark.parametrize("name", results_page.shipped())
def test_every_shipped_checkpoint_is_measured_as_it_is_shipped(name):
    """A measurement per shipped checkpoint, of that checkpoint: its env and timesteps are the
    metadata's (a retrained checkpoint needs `--regenerate --only NAME`)."""
    path = results_page.result_path(name)
    assert path.is_file(), f"no measurement of {name}: run `{REGENERATE} --regenerate --only {name}`"
    record = json.loads(path.read_text())
    meta = json.loads((ROOT / "checkpoints" / f"{name}.json").read_text())
    assert record["checkpoint"] == name
    assert record["env"] == meta["env_config"], f"{name} was measured at another env config"
    assert record["timesteps"] == meta["timesteps"], f"{name} was retrained since it was measured"
    assert record["tables"], name
    for table in record["tables"]:
        assert table["seats"].count("learner") >= 1
        for who in ("learner", "heuristic"):
            rate = table[who]["win_rate"]
            assert 0.0 <= rate["lo"] <= rate["value"] <= rate["hi"] <= 1.0


def test_no_measurement_of_a_checkpoint_that_is_not_shipped():
    measured = sorted(p.relative_to(results_page.RESULTS).with_suffix("").as_posix()
                      for p in results_page.RESULTS.glob("*/*.json")
                      if p.parent not in results_page.OTHER_FOLDERS)
    assert measured == results_page.shipped()


@pytest.mark.parametrize("name", sorted(results_page.CROSSPLAY_SETS))
def test_every_crossplay_table_is_measured_with_its_policies(name):
    """The cross-play record holds the set's policies in order, a full symmetric matrix, and
    only shipped checkpoints or built-in bots."""
    path = results_page.CROSSPLAY / f"{name}.json"
    assert path.is_file(), "run python benchmarks/results_page.py --crossplay --games 200"
    rec = json.loads(path.read_text())
    spec = results_page.CROSSPLAY_SETS[name]
    assert rec["policies"] == spec["policies"] and rec["config"] == spec["config"] and rec["game"] == spec["game"]
    k = len(rec["policies"])
    assert len(rec["win_rate"]) == k and all(len(row) == k for row in rec["win_rate"])
    for i in range(k):
        for j in range(k):
            assert rec["win_rate"][i][j] == rec["win_rate"][j][i]
            d = rec["win_rate"][i][j]
            assert 0.0 <= d["lo"] <= d["value"] <= d["hi"] <= 1.0
    assert {p for p in rec["policies"] if "/" in p} <= set(results_page.shipped())


def test_crossplay_rendering_shows_every_cell():
    rec = {"name": "t", "game": "g_v0", "config": {"num_players": 3}, "policies": ["a/x", "b"], "games": 7,
           "seed": 1, "measured": "2000-01-02", "machine": {"cpus": 2, "torch": "2.13.0+cpu"},
           "win_rate": [[{"value": 0.5, "lo": 0.25, "hi": 0.75}, {"value": 0.1, "lo": 0.0, "hi": 0.2}],
                        [{"value": 0.1, "lo": 0.0, "hi": 0.2}, {"value": 0.9, "lo": 0.8, "hi": 1.0}]]}
    page = results_page.render_results([], [rec])
    assert "## Cross-play: g_v0 (num_players=3)" not in page  # no measurements: the page says so first
    page = "\n".join(results_page.render_crossplay([rec]))
    assert "| `a/x` | 0.500 [0.250, 0.750] | 0.100 [0.000, 0.200] |" in page
    assert "| `b` | 0.100 [0.000, 0.200] | 0.900 [0.800, 1.000] |" in page
    assert "7 games per cell" in page


@pytest.mark.parametrize("name", sorted(results_page.SEARCH_TABLES))
def test_every_search_table_is_measured_with_its_specs(name):
    """The search record of each table holds its shipped checkpoint's specs in the columns'
    order (network, + greedy's look-ahead, + PIMC, + PIMC where unsure, greedy, pimc), at the
    table's config."""
    path = results_page.SEARCH / f"{name}.json"
    assert path.is_file(), f"run python benchmarks/results_page.py --search {name} --games 1000 --workers 2"
    rec = json.loads(path.read_text())
    config, checkpoint = results_page.SEARCH_TABLES[name]
    assert rec["config"] == config and rec["checkpoint"] == checkpoint and checkpoint in results_page.shipped()
    assert [c["spec"] for c in rec["cells"]] == results_page.search_specs(checkpoint)
    assert len(results_page.SEARCH_COLUMNS) == len(rec["cells"])
    for c in rec["cells"]:
        assert 0.0 <= c["win_rate"]["lo"] <= c["win_rate"]["value"] <= c["win_rate"]["hi"] <= 1.0
        assert c["ms_per_decision"] > 0


def test_search_rendering_shows_every_cell_in_the_tables_order():
    def rec(name, value):
        cells = [{"spec": s, "win_rate": {"value": value, "lo": value - 0.1, "hi": value + 0.1}, "seconds": 2.0,
                  "ms_per_decision": 0.5 + i} for i, s in enumerate(results_page.search_specs("the_brain/x"))]
        return {"name": name, "game": "the_brain_v0", "config": {"num_players": 3}, "checkpoint": "the_brain/x",
                "cells": cells, "games": 9, "seed": 4, "workers": 2, "measured": "2000-01-02",
                "machine": {"cpus": 2, "torch": "2.13.0+cpu"}}

    assert results_page.render_search([]) == []
    page = "\n".join(results_page.render_search([rec("the_brain_3p_robber", 0.5), rec("the_brain_2p_robber", 0.25)]))
    assert "| num_players=3 | `the_brain/x` | " + " | ".join(["0.500 [0.400, 0.600]"] * 6) + " |" in page
    assert "| num_players=3 | 0.50 | 1.50 | 2.50 | 3.50 | 4.50 | 5.50 |" in page
    assert "- every table: 9 games per cell" in page and "seed 4, 2 worker processes, measured 2000-01-02" in page
    assert page.index("0.500 [") < page.index("0.250 [")  # the records' order is kept by render_search
    # tables measured apart get a line each, naming them
    later = {**rec("the_brain_2p_robber", 0.25), "config": {"num_players": 2}, "measured": "2000-01-03"}
    page = "\n".join(results_page.render_search([rec("the_brain_3p_robber", 0.5), later]))
    assert "- num_players=3: 9 games per cell" in page and "measured 2000-01-02" in page
    assert "- num_players=2: 9 games per cell" in page and "measured 2000-01-03" in page
    assert "every table" not in page


def test_rendering_is_pure_and_shows_every_row():
    record = {
        "checkpoint": "g/x", "game": "g_v0", "env": {"num_players": 2}, "timesteps": 1234, "games": 10,
        "seed": 3, "measured": "2000-01-02",
        "machine": {"cpus": 2, "python": "3.11", "torch": "2.13.0+cpu", "braincards": "0.1.0"},
        "tables": [{"table": "vs heuristic", "seats": ["learner", "heuristic"],
                    "learner": {"win_rate": {"value": 0.5, "lo": 0.25, "hi": 0.75},
                                "mean_score": {"value": 3.14, "lo": 2.0, "hi": 4.0}},
                    "heuristic": {"win_rate": {"value": 0.4, "lo": 0.2, "hi": 0.6},
                                  "mean_score": {"value": 2.0, "lo": 1.0, "hi": 3.0}}}],
    }
    page = results_page.render_results([record])
    assert page == results_page.render_results([json.loads(json.dumps(record))])
    assert ("| `g/x` | num_players=2 | vs heuristic | 1,234 | 0.500 [0.250, 0.750] | "
            "0.400 [0.200, 0.600] | 3.1 | 2.0 |") in page
    assert "10 games per row, seed 3, measured 2000-01-02 on 2 CPU cores" in page


def test_the_seeds_section_gives_each_checkpoint_its_recipes_range_or_says_it_is_one_run():
    """'Over training seeds': a checkpoint shipped on seed 1 of a recorded recipe shows that
    recipe's seeds and range and what the rerun of seed 1 gave; an unrecorded recipe is one run."""
    seeds = results_page.seed_ranges

    def seed(n, last, lo, hi, **extra):
        return {"seed": n, "table": "team", "last": {"value": last, "lo": lo, "hi": hi}, **extra}

    entry = {"seeds": [seed(0, 0.5, 0.45, 0.55), seed(1, 0.6, 0.55, 0.66, shipped={"g/x_s1": "best"}),
                       seed(2, 0.4, 0.35, 0.46, shipped={"g/x_s2": "other weights"})]}
    rows = [{"checkpoint": "g/x_s1", "config": "configs/g/x_s1.yaml", "seed": 1, "recipe": "g/x", "entry": entry,
             "created": "2026-12-07T03:40:15+00:00"},
            {"checkpoint": "g/x_s2", "config": "configs/g/x_s2.yaml", "seed": 2, "recipe": "g/x", "entry": entry,
             "created": "2026-12-06T14:32:59+00:00"},
            {"checkpoint": "g/x_s3", "config": "configs/g/x_s3.yaml", "seed": 3, "recipe": "g/x", "entry": entry},
            {"checkpoint": "g/y", "config": "configs/g/y.yaml", "seed": 0, "recipe": None, "entry": None}]
    text = "\n".join(seeds.render(rows))
    assert ("| `g/x_s1` | `configs/g/x_s1.yaml` | 1 | 0.500 (seed 0), 0.600 (seed 1), 0.400 (seed 2) | 0.350-0.660 | "
            "the same weights (its best) |") in text
    assert "| 0.350-0.660 | other weights |" in text
    assert "| seed 3 not among the recorded |" in text
    assert "| `g/y` | `configs/g/y.yaml` | 0 | one run | - | - |" in text
    assert "3 of 4 checkpoints have a recorded range; 1 is a single run." in text
    assert ("1 gave its weights (1 of them trained after the pin) and 1 gave other weights "
            "(0 of them trained after the pin).") in text
    assert "*Not compared*" not in text
    entry["seeds"][1].pop("shipped")
    text = "\n".join(seeds.render(rows))
    assert "| 0.350-0.660 | not compared |" in text and "*Not compared*: recorded before" in text
    assert "0 gave" not in text and "1 gave other weights" in text
    assert seeds.render([]) == []
    # the shipped page: every checkpoint has its row, each recorded recipe's range is found
    shipped = seeds.load()
    assert len(shipped) == len(results_page.shipped())
    assert {r["recipe"] for r in shipped if r["recipe"]} == set(seeds.ranges.load_ranges()) - {"the_brain/train_3p_quick"}


def test_reruns_give_the_shipped_weights_exactly_when_the_checkpoint_was_trained_with_pinned_kernels():
    """What training.md says of the kernel pin, on the recorded reruns: a checkpoint trained
    after the pin gave its weights again bit for bit, one trained before it other weights."""
    seeds = results_page.seed_ranges
    compared = [(seeds.rerun(r), r) for r in seeds.load() if r["entry"] is not None]
    assert len(compared) >= 30
    for found, row in compared:
        assert found != "not compared", row["checkpoint"]
        pinned = row["created"] >= seeds.KERNELS_PINNED
        assert found.startswith("the same weights") == pinned, (row["checkpoint"], row["created"], found)


def _fields(model: type[BaseModel], seen: set) -> list[tuple[str, str]]:
    out = []
    for key, field in model.model_fields.items():
        out.append((model.__name__, key))
        for sub in (field.annotation, *getattr(field.annotation, "__args__", ())):
            for inner in (sub, *getattr(sub, "__args__", ())):
                if isinstance(inner, type) and issubclass(inner, BaseModel) and inner not in seen:
                    seen.add(inner)
                    out += _fields(inner, seen)
    return out


def test_config_page_lists_every_key_with_a_description():
    from braincards.training.learning.config import TrainConfig

    page = results_page.render_config()
    sections = page.split("\n## ")
    for model, key in _fields(TrainConfig, {TrainConfig}):
        section = next((s for s in sections if s.startswith(f"{model} ")), None)
        assert section is not None, f"no section for {model}"
        row = next((line for line in section.split("\n") if line.startswith(f"| `{key}` |")), None)
        assert row is not None, f"{model}.{key} is not on the config page"
        assert not row.rstrip().endswith("|  |"), f"{model}.{key} has no description"
