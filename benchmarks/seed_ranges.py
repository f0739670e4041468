"""The results page's "Over training seeds" section: each shipped checkpoint next to its
recipe's recorded seeds (``configs/ranges.yaml``, written by ``python benchmarks/reproduce.py
record``), or marked as the single run it is.

A shipped checkpoint is one seed's run of its training config. Its recipe is that config
without the seed (:func:`braincards.training.learning.ranges.recipe_sha256`), so a checkpoint
shipped on several seeds (``the_brain/ppo_3p_careful_s0``, ``_s1``, ``_s2``) shares one range.
``record`` also compares a seed's rerun with the shipped checkpoints of exactly that config
and keeps what it found (``shipped`` in the seed's record): whether the rerun gave their
weights bit for bit on the recording machine.

    python benchmarks/seed_ranges.py     # print the section
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from braincards.training.learning import ranges
from braincards.training.learning.config import load_train_config

if __package__ in (None, ""):  # run as `python benchmarks/seed_ranges.py`: the package is importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import experiments  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# When `braincards train` began to pin the CPU kernels (training/kernels.py): a checkpoint
# created before it was trained with the native kernels of an AVX-512 machine.
KERNELS_PINNED = "2026-12-06T14:33:00+00:00"


def load() -> list[dict]:
    """Per shipped checkpoint: its config, its seed and its recipe's recorded entry (or None)."""
    by_recipe = {entry["config_sha256"]: (name, entry) for name, entry in ranges.load_ranges().items()}
    rows = []
    for name, config in sorted(experiments.load()["shipped"].items()):
        cfg = load_train_config(ROOT / config)
        recipe, entry = by_recipe.get(ranges.recipe_sha256(cfg), (None, None))
        created = json.loads((ROOT / "checkpoints" / f"{name}.json").read_text())["created"]
        rows.append({"checkpoint": name, "config": config, "seed": cfg.seed, "recipe": recipe, "entry": entry,
                     "created": created})
    return rows


def rerun(row: dict) -> str:
    """What rerunning the checkpoint's own seed gave, as its recipe's record says."""
    seed = next((s for s in row["entry"]["seeds"] if s["seed"] == row["seed"]), None)
    if seed is None:
        return f"seed {row['seed']} not among the recorded"
    found = seed.get("shipped", {}).get(row["checkpoint"])
    if found is None:
        return "not compared"
    return "other weights" if found == "other weights" else f"the same weights (its {found})"


def pin_lines(rows: list[dict]) -> list[str]:
    """A paragraph on what the reruns say about the kernel pin: how many gave their checkpoint's
    weights and how many other weights, each with how many of those checkpoints were trained
    after the pin (the rows' ``created``, the checkpoints' own dates)."""
    outcomes = [(rerun(row), row.get("created") or "") for row in rows if row["entry"] is not None]
    parts = []
    for outcome, says in (("the same weights", "its weights"), ("other weights", "other weights")):
        dates = [created for found, created in outcomes if found.startswith(outcome)]
        if dates:
            after = sum(created >= KERNELS_PINNED for created in dates)
            parts.append(f"{len(dates)} gave {says} ({after} of them trained after the pin)")
    if not parts:
        return []
    return ["", f"`braincards train` has pinned the CPU kernels since {KERNELS_PINNED[:10]} {KERNELS_PINNED[11:16]} UTC ([what",
            "reproduces](training.md#what-reproduces)). Of the reruns of a checkpoint's own seed,",
            " and ".join(parts) + "."]


def render(rows: list[dict]) -> list[str]:
    """The section's Markdown lines (pure: the rows alone)."""
    if not rows:
        return []
    lines = [
        "## Over training seeds", "",
        "Each checkpoint above is one run of its training config on one seed. Where the recipe",
        "(the config without its seed) was trained on three seeds (`python benchmarks/reproduce.py",
        "record`), the table gives where each seed's run ended (its last evaluation on the first",
        "table, 300 games: the win rate, or the mean score for a solo game that is never won or lost)",
        "and the *expected range*, the span of their 95% intervals: a run of the",
        "recipe on another seed or machine should end inside it ([what",
        "reproduces](training.md#what-reproduces)). A shipped checkpoint is its run's best",
        "evaluation, so its row above can lie above its recipe's last evaluations. *Rerun of its",
        "seed*: whether training the checkpoint's own seed again gave its weights bit for bit, on",
        "the machine that recorded the range.",
    ]
    table = []
    single = 0
    for row in rows:
        entry = row["entry"]
        if entry is None:
            single += 1
            table.append(f"| `{row['checkpoint']}` | `{row['config']}` | {row['seed']} | one run | - | - |")
            continue
        seeds = ", ".join(f"{ranges.shown(entry, s['last']['value'])} (seed {s['seed']})" for s in entry["seeds"])
        metric = ranges.metric_name(entry)
        if metric:
            seeds = f"{metric}: {seeds}"
        lo, hi = ranges.expected_range(entry)
        table.append(f"| `{row['checkpoint']}` | `{row['config']}` | {row['seed']} | {seeds} | "
                     f"{ranges.shown(entry, lo)}-{ranges.shown(entry, hi)} | {rerun(row)} |")
    if any(rerun(row) == "not compared" for row in rows if row["entry"] is not None):
        lines[-1] += " *Not compared*: recorded before that comparison existed."
    lines += ["A recipe without recorded seeds is a single run: its numbers are one seed's.", *pin_lines(rows), "",
              "| checkpoint | config | its seed | recorded seeds: last evaluation | expected range | rerun of its seed |",
              "|---|---|---:|---|---|---|", *table]
    verb = "is a single run" if single == 1 else "are single runs"
    lines += ["", f"{len(rows) - single} of {len(rows)} checkpoints have a recorded range; {single} {verb}.", ""]
    return lines


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    print("\n".join(render(load())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
