"""How diverse a partner population is (``braincards partners SUITE``).

A partner suite (``the_brain-partners-v1``) names, per table, a population of partners and
which of them are held out (:mod:`.benchmark.population`). Two measures of its diversity:

* **cross-play** - every pair of members at one table (:func:`~.crossplay.crossplay`, the
  same deals in every cell). A population of one convention plays as well across pairs as
  each member with itself; the **cross-play gap** is the mean over pairs of
  ``(SP_a + SP_b) / 2 - XP_ab`` (self-play minus cross-play, team win rates). For each
  held-out member, its **best partner** is the member (other than itself) with the highest
  cross-play rate: partners whose best partners differ ask for different play.
* **best responses (BR-Div style)** - at a table whose scenarios normalise a held-out
  partner by a best response (a policy trained for that partner alone), each best response
  plays with every held-out partner. The population is diverse in the ZSC-Eval sense when
  each partner's own best response is the best of them with it: what is best with one
  partner is not best with the others.
"""

from __future__ import annotations

from pathlib import Path

from braincards.envs import table_config

from .benchmark.population import PopulationTable
from .benchmark.scenarios import play_scenario
from .benchmark.suites import Suite, load_suite
from .crossplay import crossplay, write_report
from .evaluate import evaluate
from .stats import fmt_interval


def population_table(suite: Suite, name: str) -> PopulationTable:
    """The population table ``name`` of ``suite`` (a ValueError names the tables it has)."""
    for t in suite.population:
        if t.name == name:
            return t
    raise ValueError(f"suite {suite.name} has no population table {name!r}; it has "
                     f"{[t.name for t in suite.population] or 'none (it names no population)'}")


def best_responses(suite: Suite, table: PopulationTable) -> dict[str, str]:
    """``{held-out partner: its best response's spec}`` from the table's scenarios whose only
    background is that partner and whose ``high`` is a policy (empty when none has one)."""
    out = {}
    for s in suite.scenarios:
        if s.config == table.config and len(s.background) == 1 and s.high.kind == "policy":
            out[s.background[0][0]] = s.high.spec
    return out


def cross_play_diversity(result: dict, table: PopulationTable) -> dict:
    """The cross-play gap, each member's self-play and mean cross-play, and each held-out
    member's best partner, from a :func:`crossplay` ``result`` over the table's members."""
    names = result["policies"]
    rate = [[c["value"] for c in row] for row in result["win_rate"]]
    k = len(names)
    gaps = [(rate[i][i] + rate[j][j]) / 2 - rate[i][j] for i in range(k) for j in range(i + 1, k)]
    members = {m: {"self_play": rate[i][i], "cross_play": sum(rate[i][j] for j in range(k) if j != i) / (k - 1)}
               for i, m in enumerate(names)}
    best = {}
    for spec in table.split("eval"):
        j = names.index(spec)
        i = max((i for i in range(k) if i != j), key=lambda i: rate[i][j])
        best[spec] = {"partner": names[i], "win_rate": rate[i][j]}
    return {"gap": sum(gaps) / len(gaps), "members": members, "best_partner": best,
            "distinct_best_partners": len({b["partner"] for b in best.values()})}


def br_matrix(game: str, table: PopulationTable, responses: dict[str, str], games: int, seed: int,
              workers: int = 1) -> dict:
    """Each best response in one seat with each held-out partner in the others: ``rows`` the
    best responses, ``columns`` the partners, ``win_rate`` the team's (value, lo, hi), and
    ``own_best``: the partners with which their own best response is the best of them."""
    partners = list(responses)
    tc = table_config(game, table.config)
    n = tc.num_players
    win = [[evaluate(tc, None, seats=[br] + [p] * (n - 1), games=games, seed=seed, workers=workers,
                     progress=False)["team"]["win_rate"] for p in partners] for br in responses.values()]
    own = [p for j, p in enumerate(partners)
           if max(range(len(partners)), key=lambda i: win[i][j]["value"]) == j]
    return {"rows": list(responses.values()), "columns": partners, "win_rate": win, "games": games,
            "seed": seed, "own_best": own}


def br_prox(suite: Suite, name: str, focal: list[str], *, games: int | None = None, workers: int = 1) -> dict:
    """``{focal spec: {partner: {"rate", "best_response", "br_prox"}}}``: each focal policy in
    the focal seat of every scenario of table ``name`` whose ``high`` is a best response, and
    that best response, on the scenario's first ``games`` games (default: all of them)."""
    table = population_table(suite, name)
    responses = best_responses(suite, table)
    scenarios = [s for s in suite.scenarios if s.config == table.config and len(s.background) == 1
                 and s.background[0][0] in responses]
    if not scenarios:
        raise ValueError(f"population table {name!r} of {suite.name} has no best responses")
    out: dict = {spec: {} for spec in focal}
    for s in scenarios:
        n = games or s.games
        best = sum(play_scenario(s, s.high.spec, n, workers=workers, progress=False)["values"]) / n
        for spec in focal:
            rate = sum(play_scenario(s, spec, n, workers=workers, progress=False)["values"]) / n
            out[spec][s.background[0][0]] = {"rate": rate, "best_response": best, "games": n,
                                             "br_prox": rate / best if best else None}
    return out


def partner_report(suite: str | Suite, name: str, *, games: int = 100, seed: int = 0, workers: int = 1,
                   out_dir: str | Path | None = None, progress: bool | None = None) -> dict:
    """The diversity of population table ``name`` of ``suite``: the members' cross-play
    matrix and :func:`cross_play_diversity`, and, where the suite has best responses for the
    table, :func:`br_matrix`. With ``out_dir`` also writes ``partners.json``, ``partners.md``
    and the cross-play matrix (``crossplay.csv``, ``crossplay.png``)."""
    suite = suite if isinstance(suite, Suite) else load_suite(suite)
    table = population_table(suite, name)
    members = [m.spec for m in table.members]
    result = crossplay(suite.game, table.config, members, games=games, seed=seed, workers=workers,
                       progress=progress)
    report = {"suite": suite.name, "table": table.name, "config": table.config,
              "population": table.as_dict()["members"], "games": games, "seed": seed,
              "crossplay": {k: result[k] for k in ("policies", "games", "win_rate")},
              "diversity": cross_play_diversity(result, table)}
    responses = best_responses(suite, table)
    if responses:
        report["best_responses"] = br_matrix(suite.game, table, responses, games, seed, workers)
    if out_dir is not None:
        write_report(out_dir, "partners", report, format_partner_report(report), result)
    return report


def format_partner_report(report: dict) -> str:
    """The report as Markdown: the population, its diversity and the best-response matrix."""
    div = report["diversity"]
    lines = ["| member | kind | split | teacher | self-play | mean cross-play |", "|---|---|---|---|---:|---:|"]
    for m in report["population"]:
        d = div["members"][m["spec"]]
        lines.append(f"| `{m['spec']}` | {m['kind']} | {m['split']} | {m.get('teacher', '-')} | "
                     f"{d['self_play']:.3f} | {d['cross_play']:.3f} |")
    lines += ["", f"Cross-play gap (mean self-play of a pair minus its cross-play): {div['gap']:.3f}; "
              f"held-out members with distinct best partners: {div['distinct_best_partners']} of "
              f"{len(div['best_partner'])}.", "",
              "| held-out member | its best partner in the population | team win rate |", "|---|---|---:|"]
    lines += [f"| `{p}` | `{b['partner']}` | {b['win_rate']:.3f} |" for p, b in div["best_partner"].items()]
    br = report.get("best_responses")
    if br:
        lines += ["", "| best response \\ partner | " + " | ".join(f"`{c}`" for c in br["columns"]) + " |",
                  "|---|" + "---|" * len(br["columns"])]
        for r, row in zip(br["rows"], br["win_rate"], strict=True):
            lines.append(f"| `{r}` | " + " | ".join(fmt_interval(c) for c in row) + " |")
        lines += ["", f"Partners whose own best response is the best of them with it: {len(br['own_best'])} "
                  f"of {len(br['columns'])}."]
    return "\n".join(lines)
