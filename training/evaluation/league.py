"""``league``: round-robin between competitive policies, rated with openskill.

Every group of ``num_players`` distinct policies plays the same number of games, seats
rotating; the games are rated in a fixed order (Plackett-Luce), so the table is reproducible
and the same with worker processes. Written as Markdown and CSV.
"""

from __future__ import annotations

import csv
import itertools
from collections.abc import Sequence
from pathlib import Path

from openskill.models import PlackettLuce

from braincards.envs import SPECS, TableConfig, derive_seed, table_config
from braincards.training import files

from .harness import check_config, check_games, labels_of, run_tasks, validate_specs
from .stats import fmt_interval, interval_dict, wilson_interval


def _check(table: TableConfig, policies: Sequence) -> tuple[TableConfig, int, list, dict]:
    """(table, players, labels, specs) of a league, every argument checked."""
    if table.cooperative:
        competitive = [s.id for s in SPECS.values() if s.competitive]
        raise ValueError(f"a league rates competitive games ({competitive}); "
                         f"{table.id} is cooperative: use crossplay()")
    config = table.config
    n = int(config.setdefault("num_players", 2))
    if n < 2:
        raise ValueError("a league needs num_players >= 2")
    labels, specs = labels_of(list(policies))
    if len(set(labels)) != len(labels):
        raise ValueError(f"policies must be distinct, got {labels}")
    if len(labels) < n:
        raise ValueError(f"a {n}-player league needs at least {n} distinct policies, got {len(labels)}")
    table = check_config(table.spec, config, None)
    validate_specs(table, specs)
    return table, n, labels, specs


def _rate(records: list[dict], labels: list[str]) -> list[dict]:
    """The rating table: every game rated in record order, seats ranked by reward, then score."""
    model = PlackettLuce()
    ratings = {label: model.rating(name=label) for label in labels}
    played = dict.fromkeys(labels, 0)
    wins = dict.fromkeys(labels, 0)
    for r in records:
        keys = [(rew, sc) for rew, sc in zip(r["rewards"], r["scores"], strict=True)]
        order = sorted(set(keys), reverse=True)
        ranks = [order.index(k) for k in keys]
        teams = [[ratings[label]] for label in r["labels"]]
        new = model.rate(teams, ranks=ranks)
        for label, team, w in zip(r["labels"], new, r["wins"], strict=True):
            ratings[label] = team[0]
            played[label] += 1
            wins[label] += bool(w)
    table = []
    for label in labels:
        rt = ratings[label]
        table.append({
            "policy": label, "mu": rt.mu, "sigma": rt.sigma, "ordinal": rt.mu - 3 * rt.sigma,
            "mu_lo": rt.mu - 1.96 * rt.sigma, "mu_hi": rt.mu + 1.96 * rt.sigma,
            "games": played[label], "wins": wins[label],
            "win_rate": interval_dict(wilson_interval(wins[label], played[label])),
        })
    return table


def league(
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
    """Round-robin between competitive policies with openskill (Plackett-Luce) ratings.

    With ``num_players`` n (default 2), every group of n distinct policies plays ``games``
    games, seats rotating. Games are rated in a fixed order (so the table is reproducible
    and identical with workers), ranking seats by reward then score. Returns ``{"table":
    [rows], ...}``; each row has the policy, mu, sigma, ordinal (mu - 3 sigma), a 95%
    interval of mu (mu +- 1.96 sigma), games played, wins. With ``out_dir`` also writes
    ``ratings.md`` and ``ratings.csv``.
    """
    table, n, labels, specs = _check(table_config(game, config), policies)
    game = table.id
    games = check_games(games)
    derive_seed(seed)
    groups = list(itertools.combinations(labels, n))
    tasks = [(gi * games + g, g, 0, tuple(group[(i + g) % n] for i in range(n)))
             for gi, group in enumerate(groups) for g in range(games)]
    records = run_tasks(table, specs, tasks, seed=seed, workers=workers,
                        deterministic=deterministic, progress=progress, desc=f"league {game}")
    ratings = _rate(records, labels)
    ratings.sort(key=lambda row: (-row["ordinal"], row["policy"]))
    result = {"game": game, "config": table.config, "seed": seed, "games_per_group": games,
              "groups": [list(g) for g in groups], "table": ratings}
    if out_dir is not None:
        result["files"] = write_league_files(result, Path(out_dir))
    return result


def write_league_files(result: dict, out: Path) -> list[str]:
    """``ratings.md`` and ``ratings.csv`` of a league's result in ``out``; their paths."""
    out.mkdir(parents=True, exist_ok=True)
    files.write_text(out / "ratings.md", format_league(result) + "\n")
    with files.atomic_open(out / "ratings.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["rank", "policy", "mu", "sigma", "ordinal", "mu_lo", "mu_hi", "games",
                    "wins", "win_rate", "win_lo", "win_hi"])
        for k, row in enumerate(result["table"], 1):
            wr = row["win_rate"]
            w.writerow([k, row["policy"], f"{row['mu']:.3f}", f"{row['sigma']:.3f}",
                        f"{row['ordinal']:.3f}", f"{row['mu_lo']:.3f}", f"{row['mu_hi']:.3f}",
                        row["games"], row["wins"], f"{wr['value']:.4f}", f"{wr['lo']:.4f}",
                        f"{wr['hi']:.4f}"])
    return [str(out / "ratings.md"), str(out / "ratings.csv")]


def format_league(result: dict) -> str:
    cfg = ", ".join(f"{k}={v}" for k, v in result["config"].items())
    lines = [
        f"openskill (Plackett-Luce) ratings, {result['game']} ({cfg}), "
        f"{result['games_per_group']} games per group, seed {result['seed']}",
        "",
        "| rank | policy | mu | sigma | 95% interval of mu | ordinal (mu-3sigma) | games | win rate (95% CI) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for k, row in enumerate(result["table"], 1):
        lines.append(
            f"| {k} | {row['policy']} | {row['mu']:.2f} | {row['sigma']:.2f} | "
            f"[{row['mu_lo']:.2f}, {row['mu_hi']:.2f}] | {row['ordinal']:.2f} | {row['games']} | "
            f"{fmt_interval(row['win_rate'])} |"
        )
    return "\n".join(lines)

