"""The scorecard as Markdown and JSON, and its PNG plots (per-scenario bars with 95%
intervals; rliable's performance profile)."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

from braincards.training.files import save_figure, write_json, write_text

from ..stats import fmt_interval

matplotlib.use("Agg")


def json_safe(value):
    """``value`` with every NaN or infinite float replaced by None (strict JSON)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def _num(x: float, digits: int = 3) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _header(card: dict) -> list[str]:
    v = card["versions"]
    pol = card["policy"]
    ck = pol.get("checkpoint")
    extra = (
        f" ({ck.get('algo')}, {ck.get('timesteps'):,} timesteps)"
        if ck and ck.get("timesteps") is not None
        else ""
    )
    return [
        f"# Benchmark scorecard: `{pol['spec']}` on `{card['suite']}`",
        "",
        f"- suite `{card['suite']}` (version {card['suite_version']}, game `{card['game']}`), "
        f"setting **{card['setting']}**, {card['blocks']} blocks per scenario",
        f"- policy `{pol['spec']}`{extra}",
        f"- braincards {v.get('braincards')}, torch {v.get('torch')}, rliable {v.get('rliable')}, "
        f"Python {v.get('python')}; wall time {card['wall_seconds']:.0f} s "
        f"(games {card['played_seconds']:.0f} s)",
        "",
        f"**IQM {fmt_interval(card['aggregate']['iqm'])}**, mean "
        f"{fmt_interval(card['aggregate']['mean'])} of the normalised scores over "
        f"{card['aggregate']['scenarios']} scenarios (rliable, stratified bootstrap 95%).",
        "",
    ]


def format_scorecard(card: dict) -> str:
    """The scorecard as Markdown."""
    lines = _header(card) + [
        "| scenario | games | seed | metric | raw (95% CI) | 0 = | 1 = | normalised (95% CI) |",
        "|---|---:|---:|---|---|---|---|---|",
    ]
    for r in card["scenarios"]:
        lines.append(
            f"| `{r['id']}` | {r['games']} | {r['seed']} | {r['metric']} | "
            f"{fmt_interval(r['raw'], 3 if r['metric'] == 'win' else 2)} | "
            f"{_num(r['low']['value'])} ({r['low']['how']}) | "
            f"{_num(r['high']['value'])} ({r['high']['how']}) | {fmt_interval(r['normalised'])} |"
        )
    if "against" in card:
        lines += [""] + format_comparison(card)
    return "\n".join(lines) + "\n"


def format_comparison(card: dict) -> list[str]:
    """The paired comparison of a scorecard made with ``against`` (Markdown lines)."""
    a, b = card["policy"]["spec"], card["against"]["policy"]["spec"]
    poi = card["against"]["probability_of_improvement"]
    lines = [
        f"## `{a}` against `{b}` (paired: the same games)",
        "",
        f"Probability of improvement P(`{a}` > `{b}`): {fmt_interval(poi)} (rliable). "
        f"`{b}`: IQM {fmt_interval(card['against']['card']['aggregate']['iqm'])}.",
        "",
        "| scenario | difference A - B (95% CI) | normalised | P(A > B) | significant |",
        "|---|---|---|---:|---|",
    ]
    for r in card["against"]["scenarios"]:
        lines.append(
            f"| `{r['id']}` | {fmt_interval(r['difference'])} | "
            f"{fmt_interval(r['normalised_difference'])} | "
            f"{r['probability_of_improvement']:.2f} | {'yes' if r['significant'] else 'no'} |"
        )
    return lines


def bar_figure(card: dict):
    """Normalised score per scenario, with 95% intervals."""
    rows = card["scenarios"]
    fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(rows) + 2), 4.5))
    x = np.arange(len(rows))
    vals = np.array([r["normalised"]["value"] for r in rows], dtype=float)
    lo = np.array([r["normalised"]["lo"] for r in rows], dtype=float)
    hi = np.array([r["normalised"]["hi"] for r in rows], dtype=float)
    err = np.nan_to_num(np.vstack([vals - lo, hi - vals]), nan=0.0)
    ax.bar(x, np.nan_to_num(vals), yerr=err, capsize=3, color="#4c72b0")
    ax.axhline(0, color="grey", lw=0.8)
    ax.axhline(1, color="grey", lw=0.8, ls="--")
    ax.set_xticks(x, [r["id"] for r in rows], rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("normalised score")
    ax.set_title(f"{card['policy']['spec']} on {card['suite']} ({card['setting']})")
    fig.tight_layout()
    return fig


def profile_figure(card: dict):
    """rliable's performance profile: the fraction of (block, scenario) scores above tau."""
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(
        card["profile"]["taus"], card["profile"]["fraction_above"], label=card["policy"]["spec"]
    )
    if "against" in card:
        other = card["against"]["card"]
        ax.plot(other["profile"]["taus"], other["profile"]["fraction_above"],
                label=other["policy"]["spec"])
    ax.set_xlabel(r"normalised score $\tau$")
    ax.set_ylabel(r"fraction of runs with score $> \tau$")
    ax.set_ylim(-0.02, 1.02)
    ax.legend()
    ax.set_title(f"performance profile, {card['suite']}")
    fig.tight_layout()
    return fig


def write_scorecard(card: dict, out: str | Path) -> list[str]:
    """``scorecard.json``, ``scorecard.md``, ``scenarios.png`` and ``profile.png`` in ``out``."""
    out = Path(out)
    paths = [write_json(out / "scorecard.json", json_safe(card)),
             write_text(out / "scorecard.md", format_scorecard(card))]
    for name, make in (("scenarios.png", bar_figure), ("profile.png", profile_figure)):
        fig = make(card)
        try:
            paths.append(save_figure(fig, out / name, dpi=110))
        finally:
            plt.close(fig)
    return [str(p) for p in paths]
