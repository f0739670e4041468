"""The partner suite the_brain-partners-v1: its population, its held-out split, its best
responses, and the diversity measures of ``braincards partners``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from braincards.training.agents.locations import resolve_checkpoint
from braincards.training.evaluation.benchmark.scenarios import play_scenario
from braincards.training.evaluation.benchmark.suites import SuiteError, load_suite, parse_suite
from braincards.training.evaluation.partners import (
    best_responses,
    br_matrix,
    br_prox,
    cross_play_diversity,
    format_partner_report,
    partner_report,
    population_table,
)
from braincards.training.learning.config import stored_train_config

ROOT = Path(__file__).resolve().parents[2]
SUITE = load_suite("the_brain-partners-v1")
BEST_RESPONSE_CONFIGS = sorted((ROOT / "configs").glob("*/best_response_*.yaml"))


def _strings(node) -> set[str]:
    """Every string value (and key) anywhere in a parsed YAML/JSON document."""
    if isinstance(node, dict):
        return set().union(*(_strings(k) | _strings(v) for k, v in node.items())) if node else set()
    if isinstance(node, list):
        return set().union(*(_strings(v) for v in node)) if node else set()
    return {node} if isinstance(node, str) else set()


def _training_documents():
    """(where, parsed) of every shipped training config and every shipped checkpoint's stored
    training config, best responses left out (they measure a held-out partner)."""
    for path in sorted((ROOT / "configs").glob("*/*.yaml")):  # the games' folders (xp/: reports)
        if path.parent.name != "xp" and not path.name.startswith("best_response_"):
            yield str(path.relative_to(ROOT)), yaml.safe_load(path.read_text())
    for path in sorted((ROOT / "checkpoints").glob("*/*.json")):
        if not path.stem.startswith("br_"):
            yield str(path.relative_to(ROOT)), json.loads(path.read_text()).get("training") or {}


def _root_teacher(spec: str) -> str | None:
    """The teacher a network's recipe started from: its own pretraining teacher, else that of
    the checkpoint it was warm-started from (None: trained from scratch)."""
    meta = json.loads(resolve_checkpoint(spec).with_suffix(".json").read_text())
    cfg = stored_train_config(meta, spec)
    if cfg.pretrain is not None:
        return cfg.pretrain.teacher
    init = getattr(cfg.backend, "init_from", None)
    return _root_teacher(init) if init else None


# ---------------------------------------------------------------- the shipped population
def test_every_table_has_eight_partners_of_every_kind_two_networks_without_greedy():
    """Issue 45.2: at 2p, 3p and 4p robber and 3p cat_burglar, at least 8 partners: rule
    players, search players and networks, two or more of them taught without greedy."""
    assert [t.name for t in SUITE.population] == ["3p_robber", "2p_robber", "4p_robber", "3p_cat_burglar"]
    for table in SUITE.population:
        assert len(table.members) >= 8, table.name
        assert {m.kind for m in table.members} == {"rule", "search", "network"}
        no_greedy = [m for m in table.members if m.kind == "network" and m.teacher != "greedy"]
        assert len(no_greedy) >= 2, table.name
        assert len({m.spec for m in table.members if m.kind == "rule"}) >= 3


@pytest.mark.parametrize("table", [t.name for t in SUITE.population])
def test_each_networks_teacher_is_the_one_its_checkpoint_was_trained_from(table):
    """A network's ``teacher`` is read back from its checkpoint's stored training config
    (through its warm starts): a member said to be taught without greedy really was."""
    for m in population_table(SUITE, table).members:
        if m.kind == "network":
            assert _root_teacher(m.spec) == m.teacher, m.spec


def test_held_out_partners_are_never_named_by_a_shipped_training_config():
    """Issue 45.2: no shipped training config (teacher, opponent pool, evaluation partner or
    warm start), and no shipped checkpoint's stored training config, names a held-out
    member; nor any best response, which is seated only as a scenario's reference."""
    held_out = {s for t in SUITE.population for s in t.split("eval")}
    responses = set(best_responses(SUITE, population_table(SUITE, "3p_robber")).values())
    checked = 0
    for where, doc in _training_documents():
        named = _strings(doc)
        assert not named & held_out, (where, named & held_out)
        assert not named & responses, (where, named & responses)
        assert not any("/br_" in s for s in named), where
        checked += 1
    assert checked > 60


def test_every_held_out_partner_at_3p_robber_has_a_1m_step_best_response():
    """Issue 45.4: each held-out partner's scenario at 3p robber is normalised by a best
    response trained with that partner alone for at least 1M steps, from its config."""
    table = population_table(SUITE, "3p_robber")
    responses = best_responses(SUITE, table)
    assert sorted(responses) == sorted(table.split("eval"))
    configs = {yaml.safe_load(p.read_text())["opponents"]["pool"][0]["source"]: p for p in BEST_RESPONSE_CONFIGS
               if "the_brain" in p.parent.name}
    for partner, response in responses.items():
        cfg = stored_train_config(json.loads(resolve_checkpoint(response).with_suffix(".json").read_text()))
        assert [s.source for s in cfg.opponents.pool] == [partner] and cfg.mode == "seat"
        assert cfg.total_timesteps >= 1_000_000 and cfg.table.config == table.config
        assert yaml.safe_load(configs[partner].read_text())["total_timesteps"] == cfg.total_timesteps


def test_the_partner_suite_scores_like_any_suite_and_keeps_older_hashes():
    """The population is part of the partner suite's hash; a suite without one keeps its
    published hash (the_brain-v2's scorecards stay valid)."""
    assert load_suite("the_brain-v2").sha256().startswith("3a87147728e4")
    raw = yaml.safe_load((ROOT / "training/evaluation/benchmark/suite_files/the_brain-partners-v1.yaml").read_text())
    raw["population"]["3p_robber"]["members"][0]["split"] = "eval"  # heuristic held out, in no scenario
    with pytest.raises(SuiteError, match="held-out member 'heuristic' of population.3p_robber is in no scenario"):
        parse_suite(raw)


# ---------------------------------------------------------------- population errors
def _suite(members, background=("heuristic:style=scoring",), config=None):
    config = config or {"num_players": 2, "difficulty": "robber"}
    return {"suite": "test-partners-v1", "game": "the_brain", "blocks": 1,
            "population": {"t": {"config": {"num_players": 2, "difficulty": "robber"}, "members": members}},
            "scenarios": [{"id": "s", "config": config, "focal": [0], "background": list(background),
                           "games": 4, "quick_games": 2, "seed": 1, "metric": "win", "high": "oracle"}]}


RULES = [{"spec": "heuristic", "kind": "rule", "split": "train"},
         {"spec": "heuristic:style=scoring", "kind": "rule", "split": "eval"}]


@pytest.mark.parametrize("members, background, config, message", [
    (RULES, ["heuristic"], None, "scenario s seats 'heuristic', which is not a held-out"),
    (RULES, None, {"num_players": 3, "difficulty": "robber"}, "which no population table has"),
    ([{**RULES[0], "kind": "bot"}, RULES[1]], None, None, r"kind 'bot'; allowed: \['rule', 'search', 'network'\]"),
    ([{**RULES[0], "split": "test"}, RULES[1]], None, None, r"split 'test'; allowed: \['train', 'eval'\]"),
    ([{"spec": "the_brain/ppo_2p", "kind": "network", "split": "train"}, RULES[1]], None, None,
     "a network names its recipe's teacher"),
    ([{**RULES[0], "teacher": "greedy"}, RULES[1]], None, None, "a network names its recipe's teacher"),
    ([RULES[0], RULES[0], RULES[1]], None, None, "'heuristic' is a member twice"),
    ([RULES[0]], ["heuristic"], None, r"no member is held out \(split: eval\)"),
    ([{**RULES[0], "color": 1}, RULES[1]], None, None, "allowed keys"),
])
def test_bad_populations_are_refused_naming_what_is_wrong(members, background, config, message):
    with pytest.raises(SuiteError, match=message):
        parse_suite(_suite(members, background or ("heuristic:style=scoring",), config))


def test_an_unknown_population_table_names_the_ones_there_are():
    with pytest.raises(ValueError, match=r"no population table 'x'; it has \['3p_robber', '2p_robber'"):
        population_table(SUITE, "x")
    with pytest.raises(ValueError, match="it names no population"):
        population_table(load_suite("the_brain-v2"), "3p_robber")


# ---------------------------------------------------------------- the diversity measures
def _cell(v):
    return {"value": v, "lo": v, "hi": v}


def test_cross_play_gap_and_best_partners_from_a_known_matrix():
    """Two conventions: a and b play well together (0.8) and alone (0.9, 0.7); c only with
    itself. The gap is the mean of the three pairs' (SP mean - XP)."""
    table = parse_suite(_suite([{"spec": "a", "kind": "rule", "split": "train"},
                                {"spec": "b", "kind": "rule", "split": "eval"},
                                {"spec": "c", "kind": "rule", "split": "eval"}], ["b", "c"])).population[0]
    rates = [[0.9, 0.8, 0.1], [0.8, 0.7, 0.2], [0.1, 0.2, 0.6]]
    result = {"policies": ["a", "b", "c"], "win_rate": [[_cell(v) for v in row] for row in rates]}
    div = cross_play_diversity(result, table)
    assert div["gap"] == pytest.approx(((0.8 - 0.8) + (0.75 - 0.1) + (0.65 - 0.2)) / 3)
    assert div["best_partner"] == {"b": {"partner": "a", "win_rate": 0.8}, "c": {"partner": "b", "win_rate": 0.2}}
    assert div["distinct_best_partners"] == 2
    assert div["members"]["c"] == {"self_play": 0.6, "cross_play": pytest.approx(0.15)}


def test_partner_report_plays_the_population_and_its_best_responses(tmp_path):
    """A two-player population of rule players with a policy reference as a best response:
    the report's matrix, diversity and best-response matrix are consistent with each other."""
    raw = _suite([{"spec": "heuristic", "kind": "rule", "split": "train"},
                  {"spec": "heuristic:style=cautious", "kind": "rule", "split": "train"},
                  {"spec": "heuristic:style=scoring", "kind": "rule", "split": "eval"},
                  {"spec": "heuristic:style=bold", "kind": "rule", "split": "eval"}],
                 ["heuristic:style=scoring"])
    raw["scenarios"][0]["high"] = "greedy"
    raw["scenarios"].append({**raw["scenarios"][0], "id": "s2", "background": ["heuristic:style=bold"],
                             "high": "heuristic"})
    suite = parse_suite(raw)
    report = partner_report(suite, "t", games=10, seed=3, out_dir=tmp_path, progress=False)
    assert report["crossplay"]["policies"] == [m.spec for m in suite.population[0].members]
    assert all(g == 10 for row in report["crossplay"]["games"] for g in row)
    br = report["best_responses"]
    assert br["rows"] == ["greedy", "heuristic"] and br["columns"] == ["heuristic:style=scoring", "heuristic:style=bold"]
    assert br == br_matrix(suite.game, suite.population[0], best_responses(suite, suite.population[0]), 10, 3)
    text = (tmp_path / "partners.md").read_text()
    assert text.strip() == format_partner_report(report) and "| `heuristic:style=bold` | rule | eval |" in text
    assert {p.name for p in tmp_path.iterdir()} == {"partners.json", "partners.md", "crossplay.csv", "crossplay.png"}


def test_br_prox_is_the_rate_over_the_best_responses_on_the_same_games():
    raw = _suite([{"spec": "heuristic", "kind": "rule", "split": "train"},
                  {"spec": "heuristic:style=scoring", "kind": "rule", "split": "eval"},
                  {"spec": "heuristic:style=bold", "kind": "rule", "split": "eval"}],
                 ["heuristic:style=scoring"])
    raw["scenarios"][0]["high"] = "greedy"
    raw["scenarios"].append({**raw["scenarios"][0], "id": "s2", "background": ["heuristic:style=bold"],
                             "high": "oracle"})
    suite = parse_suite(raw)
    prox = br_prox(suite, "t", ["heuristic", "random"], games=20)
    assert set(prox) == {"heuristic", "random"} and set(prox["heuristic"]) == {"heuristic:style=scoring"}
    cell = prox["heuristic"]["heuristic:style=scoring"]
    greedy = sum(play_scenario(suite.scenarios[0], "greedy", 20)["values"]) / 20
    mine = sum(play_scenario(suite.scenarios[0], "heuristic", 20)["values"]) / 20
    assert cell == {"rate": mine, "best_response": greedy, "games": 20, "br_prox": mine / greedy}
    assert prox["random"]["heuristic:style=scoring"]["br_prox"] == 0.0
    raw["scenarios"] = raw["scenarios"][1:] + [{**raw["scenarios"][1], "id": "s3",
                                                "background": ["heuristic:style=scoring"]}]
    with pytest.raises(ValueError, match="population table 't' of test-partners-v1 has no best responses"):
        br_prox(parse_suite(raw), "t", ["heuristic"])


def test_the_partners_command_writes_the_report_and_refuses_an_unknown_table(tmp_path, capsys):
    from braincards.training.cli.main import main

    raw = _suite([{"spec": "heuristic", "kind": "rule", "split": "train"},
                  {"spec": "heuristic:style=scoring", "kind": "rule", "split": "eval"}])
    path = tmp_path / "mini-partners-v1.yaml"
    path.write_text(yaml.safe_dump(raw))
    assert main(["partners", str(path), "--table", "t", "--games", "2", "--out", str(tmp_path / "o"), "--quiet"]) == 0
    assert "| `heuristic:style=scoring` | rule | eval | - |" in capsys.readouterr().out
    assert json.loads((tmp_path / "o" / "partners.json").read_text())["table"] == "t"
    assert main(["partners", str(path), "--table", "u", "--out", str(tmp_path / "o")]) == 2
    assert "no population table 'u'; it has ['t']" in capsys.readouterr().err
