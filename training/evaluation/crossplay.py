"""``crossplay``: the cross-play matrix of cooperative policies (zero-shot coordination).

Every pair of policies sits at one table in every mixed seat assignment; the diagonal is
self-play. Every cell plays the same deals. Written as CSV and as a heatmap PNG.
"""

from __future__ import annotations

import csv
import itertools
from collections.abc import Sequence
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

from braincards.envs import SPECS, TableConfig, derive_seed, table_config
from braincards.training import files

from .harness import check_config, check_games, labels_of, run_tasks, validate_specs
from .stats import fmt_interval, interval_dict, t_interval, wilson_interval

matplotlib.use("Agg")


def _mixed_assignments(a: str, b: str, n: int) -> list[tuple[str, ...]]:
    if a == b:
        return [(a,) * n]
    return [t for t in itertools.product((a, b), repeat=n) if a in t and b in t]


def _cooperative() -> list[str]:
    return [s.id for s in SPECS.values() if s.cooperative]


def _matrices(records: list[dict], cells: list[tuple[int, int]], k: int, games: int):
    """(win rate, mean score, games) matrices of the cells: task key // games is the cell;
    each cell's value is seat 0's (the team's) over its games."""
    win = [[None] * k for _ in range(k)]
    score = [[None] * k for _ in range(k)]
    counts = [[0] * k for _ in range(k)]
    for c, (i, j) in enumerate(cells):
        recs = [r for r in records if r["key"] // games == c]
        w = interval_dict(wilson_interval(sum(bool(r["wins"][0]) for r in recs), len(recs)))
        sc = interval_dict(t_interval([r["scores"][0] for r in recs]))
        win[i][j] = win[j][i] = w
        score[i][j] = score[j][i] = sc
        counts[i][j] = counts[j][i] = len(recs)
    return win, score, counts


def _check(table: TableConfig, policies: Sequence) -> tuple[TableConfig, int, list, dict]:
    """(table, players, labels, specs) of a cross-play run, every argument checked."""
    spec = table.spec
    if not spec.cooperative:
        raise ValueError(f"cross-play is for cooperative games ({_cooperative()}); "
                         f"for {spec.id} use league()")
    policies = list(policies)
    if len(policies) < 2:
        raise ValueError("cross-play needs at least two policies")
    config = table.config
    n = int(config.setdefault("num_players", 2))
    if n < 2:
        raise ValueError("cross-play needs num_players >= 2 (a solo game has no partner)")
    if len(spec.variants(config)) > 1:
        option = spec.variant_option
        raise ValueError(f"cross-play takes one {option}; run it once per {option}")
    table = check_config(spec, config, None)
    labels, specs = labels_of(policies)
    if len(set(labels)) != len(labels):
        raise ValueError(f"policies must be distinct, got {labels}")
    validate_specs(table, specs)
    return table, n, labels, specs


def crossplay(
    game: str | TableConfig,
    config: dict | None = None,
    policies: Sequence = (),
    games: int = 100,
    seed: int = 0,
    workers: int = 1,
    *,
    out_dir: str | Path | None = None,
    deterministic: bool = True,
    progress: bool | None = None,
) -> dict:
    """Cross-play matrix of cooperative policies (zero-shot coordination).

    Cell (A, B) plays ``games`` games in which both A and B sit at the table: with 2 players
    A|B and B|A, with 3-4 players every assignment of A and B to the seats that uses both,
    cycling over them. The diagonal is self-play. Game g of every cell is dealt from the same
    seed, so every cell sees the same deals. Returns ``{"policies", "win_rate", "mean_score",
    "games", ...}`` where the matrices are lists of lists of ``{value, lo, hi}``; with
    ``out_dir`` also writes ``crossplay.csv`` and ``crossplay.png`` (heatmap).
    """
    table, n, labels, specs = _check(table_config(game, config), policies)
    game = table.id
    games = check_games(games)
    derive_seed(seed)
    cells = [(i, j) for i in range(len(labels)) for j in range(i, len(labels))]
    tasks = []
    for c, (i, j) in enumerate(cells):
        assigns = _mixed_assignments(labels[i], labels[j], n)
        # key c*games+g names the cell; the deal is g in every cell (same deals)
        tasks += [(c * games + g, g, 0, assigns[g % len(assigns)]) for g in range(games)]
    records = run_tasks(table, specs, tasks, seed=seed, workers=workers,
                        deterministic=deterministic, progress=progress, desc=f"crossplay {game}")
    win, score, counts = _matrices(records, cells, len(labels), games)
    result = {"game": game, "config": table.config, "seed": seed, "policies": labels,
              "games": counts, "win_rate": win, "mean_score": score}
    if out_dir is not None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        write_crossplay_csv(result, out / "crossplay.csv")
        plot_crossplay(result, out / "crossplay.png")
        result["files"] = [str(out / "crossplay.csv"), str(out / "crossplay.png")]
    return result


def write_report(out_dir: str | Path, stem: str, report: dict, markdown: str, result: dict) -> list[str]:
    """A report built on a cross-play ``result``, written to ``out_dir``: ``STEM.json`` (the
    report), ``STEM.md`` (``markdown``) and the matrix (``crossplay.csv``, ``crossplay.png``).
    Returns the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files.write_json(out / f"{stem}.json", report)
    (out / f"{stem}.md").write_text(markdown + "\n")
    write_crossplay_csv(result, out / "crossplay.csv")
    plot_crossplay(result, out / "crossplay.png")
    return [str(out / n) for n in (f"{stem}.json", f"{stem}.md", "crossplay.csv", "crossplay.png")]


def write_crossplay_csv(result: dict, path: Path) -> None:
    labels = result["policies"]
    with files.atomic_open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["policy_a", "policy_b", "games", "win_rate", "win_lo", "win_hi",
                    "mean_score", "score_lo", "score_hi"])
        for i, a in enumerate(labels):
            for j, b in enumerate(labels):
                wr, sc = result["win_rate"][i][j], result["mean_score"][i][j]
                w.writerow([a, b, result["games"][i][j], f"{wr['value']:.4f}", f"{wr['lo']:.4f}",
                            f"{wr['hi']:.4f}", f"{sc['value']:.3f}", f"{sc['lo']:.3f}",
                            f"{sc['hi']:.3f}"])


def crossplay_figure(result: dict):
    """The cross-play heatmap of :func:`crossplay`'s result as a matplotlib figure: team win
    rate per pair, on a colour scale fixed to [0, 1] so that heatmaps compare by colour."""
    labels = result["policies"]
    k = len(labels)
    m = np.array([[result["win_rate"][i][j]["value"] for j in range(k)] for i in range(k)])
    fig, ax = plt.subplots(figsize=(1.6 * k + 2.5, 1.4 * k + 1.8))
    im = ax.imshow(m, vmin=0.0, vmax=1.0, cmap="viridis")
    ax.set_xticks(range(k), labels, rotation=30, ha="right")
    ax.set_yticks(range(k), labels)
    ax.set_xlabel("policy B (its partner)")
    ax.set_ylabel("policy A")
    for i in range(k):
        for j in range(k):
            d = result["win_rate"][i][j]
            ax.text(j, i, f"{d['value']:.3f}\n[{d['lo']:.3f}, {d['hi']:.3f}]", ha="center",
                    va="center", fontsize=8, color="white" if m[i, j] < 0.6 else "black")
    cfg = result["config"]
    ax.set_title(f"{result['game']} cross-play team win rate\n"
                 f"{cfg.get('num_players')} players, {cfg.get('difficulty', 'amateur')}, "
                 f"{result['games'][0][0]} games per cell")
    fig.colorbar(im, ax=ax, label="team win rate (A and B at one table)")
    fig.tight_layout()
    return fig


def plot_crossplay(result: dict, path: Path) -> None:
    """Write :func:`crossplay_figure` as a PNG."""
    fig = crossplay_figure(result)
    try:
        files.save_figure(fig, path, dpi=120)
    finally:
        plt.close(fig)


def format_crossplay(result: dict) -> str:
    labels = result["policies"]
    lines = ["| team win rate | " + " | ".join(labels) + " |", "|---" * (len(labels) + 1) + "|"]
    for i, a in enumerate(labels):
        cells = [fmt_interval(result["win_rate"][i][j]) for j in range(len(labels))]
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
