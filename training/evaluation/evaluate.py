"""``evaluate``: N games with one policy per seat, summarised with 95% intervals.

Per policy: win rate (Wilson), mean reward and mean score (t); mean game length; for a
cooperative game the team's win rate and score, per variant (The Brain: per difficulty).
Seats rotate across games (:func:`~.harness.rotation`) so that every policy plays every
position equally often. ``record=DIR`` writes every game as a replay file (:mod:`.replay`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from braincards.envs import TableConfig, derive_seed, get_spec

from .harness import check_config, check_games, labels_of, rotation, run_tasks, validate_specs
from .replay import REPLAY_SUFFIX, replay_of_record, write_replay
from .stats import fmt_interval, interval_dict, t_interval, wilson_interval


def by_variant_key(spec) -> str:
    """The team result's key of its per-variant figures: ``by_difficulty`` for The Brain."""
    return f"by_{spec.variant_option or 'variant'}"


def _summary(records: list[dict], labels_all: list[str], table: TableConfig) -> dict:
    spec = table.spec
    per: dict[str, dict[str, list]] = {}
    for label in labels_all:
        per.setdefault(label, {"wins": [], "rewards": [], "scores": []})
    for r in records:
        for label, w, rew, sc in zip(r["labels"], r["wins"], r["rewards"], r["scores"], strict=True):
            per[label]["wins"].append(bool(w))
            per[label]["rewards"].append(rew)
            per[label]["scores"].append(sc)
    policies = {}
    for label, d in per.items():
        n = len(d["wins"])
        policies[label] = {
            "seat_games": n,
            "wins": int(sum(d["wins"])),
            "win_rate": interval_dict(wilson_interval(int(sum(d["wins"])), n)),
            "mean_reward": interval_dict(t_interval(d["rewards"])),
            "mean_score": interval_dict(t_interval(d["scores"])),
        }
    out = {
        "games": len(records),
        "policies": policies,
        "mean_length": interval_dict(t_interval([r["length"] for r in records])),
        "truncated": sum(1 for r in records if r["truncated"]),
    }
    if spec.cooperative:
        team_wins = [bool(r["wins"][0]) for r in records]
        out["team"] = {
            "win_rate": interval_dict(wilson_interval(sum(team_wins), len(records))),
            "mean_score": interval_dict(t_interval([r["scores"][0] for r in records])),
        }
        by = {}
        option = spec.variant_option
        for v, variant in enumerate(table.variants):
            cfg = variant.config
            recs = [r for r in records if r["variant"] == v]
            key = str(cfg.get(option, spec.default(option))) if option else "all"
            by[key] = {
                "games": len(recs),
                "win_rate": interval_dict(wilson_interval(sum(bool(r["wins"][0]) for r in recs), len(recs))),
                "mean_score": interval_dict(t_interval([r["scores"][0] for r in recs])),
            }
        out["team"][by_variant_key(spec)] = by
    return out


def evaluate(
    game: str | TableConfig,
    config: dict | None = None,
    seats: Sequence = ("random", "random"),
    games: int = 100,
    seed: int = 0,
    workers: int = 1,
    *,
    deterministic: bool = True,
    progress: bool | None = None,
    return_records: bool = False,
    record: str | None = None,
) -> dict:
    """Play ``games`` games with one policy (or spec) per seat and summarise them. ``game``
    is an env id or name with its ``config``, or a :class:`TableConfig`.

    Seats rotate across games (game g puts ``seats[j]`` at player ``(j - g) mod n``; see the
    module docstring for a difficulty list), so each policy plays every position equally
    often when ``games`` is a multiple of n. For The Brain ``config["difficulty"]`` may be a
    list (the spec's ``variant_option``): game g has difficulty ``g mod V`` (``by_difficulty``,
    :func:`by_variant_key`, in the result).
    Returns a JSON-safe dict: ``policies[label]`` with ``win_rate`` (Wilson 95% CI),
    ``mean_reward`` and ``mean_score`` (t 95% CI) over the seat-games it played;
    ``mean_length`` (decisions per game), ``truncated``; ``team`` for cooperative games.
    ``record``: a folder where every game is written as a replay (``gameNNNNN.jsonl``).
    """
    seats = list(seats)
    if not seats:
        raise ValueError("give at least one seat")
    games = check_games(games)
    derive_seed(seed)
    table = check_config(game, config, len(seats))
    game = table.id
    labels, specs = labels_of(seats)
    validate_specs(table, specs)
    variants = table.variants
    n = len(seats)
    tasks = []
    for g in range(games):
        v = g % len(variants)
        r = rotation(g, n, len(variants))
        assignment = tuple(labels[(i + r) % n] for i in range(n))
        tasks.append((g, g, v, assignment))
    records = run_tasks(table, specs, tasks, seed=seed, workers=workers,
                        deterministic=deterministic, progress=progress, desc=f"evaluate {game}",
                        record=record is not None)
    if record is not None:
        _write_replays(record, table, seed, records)
    result = {
        "game": game,
        "config": table.config,
        "seats": labels,
        "seed": seed,
        "deterministic": deterministic,
        **_summary(records, labels, table),
    }
    if return_records:
        result["records"] = records
    return result


def _write_replays(folder: str, table: TableConfig, seed: int, records: list[dict]) -> None:
    """Every evaluated game as ``folder/gameNNNNN.jsonl`` (each written atomically)."""
    for rec in records:
        variant = table.variants[rec["variant"]]
        parts = replay_of_record(variant.id, variant.config, seed, derive_seed(seed, rec["deal"]), rec)
        write_replay(Path(folder) / f"game{rec['deal']:05d}{REPLAY_SUFFIX}", *parts)
        del rec["actions"]


def format_evaluation(result: dict) -> str:
    """A readable text report of :func:`evaluate`'s result."""
    cfg = ", ".join(f"{k}={v}" for k, v in result["config"].items())
    lines = [
        f"{result['game']} ({cfg}): {result['games']} games, seed {result['seed']}, "
        f"seats {' | '.join(result['seats'])}",
        "",
        "| policy | seat-games | win rate (95% CI) | mean reward (95% CI) | mean score (95% CI) |",
        "|---|---|---|---|---|",
    ]
    for label, d in result["policies"].items():
        lines.append(
            f"| {label} | {d['seat_games']} | {fmt_interval(d['win_rate'])} | "
            f"{fmt_interval(d['mean_reward'])} | {fmt_interval(d['mean_score'], 2)} |"
        )
    if "team" in result:
        t = result["team"]
        spec = get_spec(result["game"])
        lines += ["", f"team win rate: {fmt_interval(t['win_rate'])}  mean {spec.score_label}: "
                  f"{fmt_interval(t['mean_score'], 2)}"]
        if len(t[by_variant_key(spec)]) > 1:
            for d, v in t[by_variant_key(spec)].items():
                lines.append(f"  {d}: {fmt_interval(v['win_rate'])} ({v['games']} games)")
    lines.append(
        f"mean game length: {fmt_interval(result['mean_length'], 1)} decisions; "
        f"truncated games: {result['truncated']}"
    )
    return "\n".join(lines)
