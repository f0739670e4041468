"""The benchmark protocol (``braincards benchmark``): the shipped suites pinned by seed, the
normalisation, the paired comparison, the resume, and clear errors for bad suites and specs.
Game counts are tiny (5 games per scenario, the minimum of 5 blocks)."""

from __future__ import annotations

import json
import math
import warnings

import pytest
import yaml

from braincards.training.agents.policy import PolicySpecError
from braincards.training.cli.main import main
from braincards.training.evaluation.benchmark import scoring
from braincards.training.evaluation.benchmark.report import format_scorecard, write_scorecard
from braincards.training.evaluation.benchmark.runner import run_policy
from braincards.training.evaluation.benchmark.scenarios import FOCAL, scenario_tasks
from braincards.training.evaluation.benchmark.scorecard import benchmark
from braincards.training.evaluation.benchmark.suites import (
    SuiteError,
    available_suites,
    load_suite,
    parse_suite,
)

# heuristic in the focal seats, first 5 games of every scenario: (focal metric, low, high).
# the_brain-v1 seats the first The Brain heuristic, now heuristic:style=scoring, wherever it
# seated `heuristic`: its numbers are the ones pinned before the careful player took the name.
FOCAL_SPEC = {"the_brain-v1": "heuristic:style=scoring"}
PINNED = {
    "the_brain-v1": {
        "selfplay-2p-amateur": (0.4, 0.0, 1.0),
        "selfplay-2p-robber": (0.2, 0.0, 1.0),
        "selfplay-2p-cat_burglar": (0.0, 0.0, 1.0),
        "selfplay-3p-amateur": (0.6, 0.0, 1.0),
        "selfplay-3p-robber": (0.4, 0.0, 1.0),
        "selfplay-3p-cat_burglar": (0.0, 0.0, 1.0),
        "selfplay-4p-amateur": (0.4, 0.0, 1.0),
        "selfplay-4p-robber": (0.0, 0.0, 1.0),
        "selfplay-4p-cat_burglar": (0.0, 0.0, 1.0),
        "adhoc-3p-robber-greedy": (0.4, 0.0, 1.0),
        "adhoc-3p-robber-heuristic": (0.4, 0.0, 1.0),
        "adhoc-3p-robber-pimc": (0.6, 0.0, 1.0),
        "adhoc-3p-robber-checkpoint": (0.4, 0.0, 1.0),
        "adhoc-3p-robber-mixed": (0.4, 0.2, 1.0),
        "pair-3p-robber-greedy": (0.0, 0.0, 1.0),
        "pair-3p-robber-pimc": (0.0, 0.0, 1.0),
    },
    "the_brain-v2": {
        "selfplay-2p-amateur": (1.0, 0.0, 1.0),
        "selfplay-2p-robber": (0.4, 0.0, 1.0),
        "selfplay-2p-cat_burglar": (0.0, 0.0, 1.0),
        "selfplay-3p-amateur": (1.0, 0.0, 1.0),
        "selfplay-3p-robber": (0.2, 0.0, 1.0),
        "selfplay-3p-cat_burglar": (0.0, 0.0, 1.0),
        "selfplay-4p-amateur": (1.0, 0.0, 1.0),
        "selfplay-4p-robber": (0.6, 0.0, 1.0),
        "selfplay-4p-cat_burglar": (0.0, 0.0, 1.0),
        "adhoc-3p-robber-greedy": (0.8, 0.0, 1.0),
        "adhoc-3p-robber-heuristic": (0.6, 0.0, 1.0),
        "adhoc-3p-robber-cautious": (1.0, 0.0, 1.0),
        "adhoc-3p-robber-pimc": (0.8, 0.0, 1.0),
        "adhoc-3p-robber-checkpoint": (0.8, 0.0, 1.0),
        "adhoc-3p-robber-mixed": (0.8, 0.0, 1.0),
        "pair-3p-robber-greedy": (0.8, 0.0, 1.0),
        "pair-3p-robber-pimc": (0.6, 0.0, 1.0),
    },
    "the_brain-partners-v1": {
        "3p-robber-scoring": (0.2, 0.0, 0.2),
        "3p-robber-bold": (0.6, 0.0, 1.0),
        "3p-robber-ppo-3p-pimc": (0.8, 0.0, 0.8),
        "3p-robber-ppo-3p-big-clone-long": (1.0, 0.0, 0.8),
        "3p-robber-mixed": (0.4, 0.0, 1.0),
        "2p-robber-scoring": (0.0, 0.0, 1.0),
        "2p-robber-bold": (0.2, 0.0, 1.0),
        "2p-robber-ppo-2p-longer": (0.4, 0.0, 1.0),
        "2p-robber-mixed": (0.4, 0.0, 1.0),
        "4p-robber-scoring": (0.4, 0.0, 1.0),
        "4p-robber-bold": (0.4, 0.2, 1.0),
        "4p-robber-ppo-4p-13m": (0.4, 0.2, 1.0),
        "4p-robber-mixed": (0.4, 0.0, 1.0),
        "3p-cat_burglar-scoring": (0.0, 0.0, 1.0),
        "3p-cat_burglar-bold": (0.0, 0.0, 1.0),
        "3p-cat_burglar-ppo-3p-cat-burglar-longer": (0.2, 0.0, 1.0),
        "3p-cat_burglar-mixed": (0.2, 0.0, 1.0),
    },
    "oh_my_brain-v1": {
        "2p-heuristic": (0.8, 0.0, 0.8),
        "2p-random": (0.8, 0.4, 0.8),
        "2p-checkpoint": (0.0, 0.0, 0.0),
        "3p-heuristic": (0.2, 0.0, 0.2),
        "3p-mixed": (0.4, 0.2, 0.4),
        "4p-heuristic": (0.2, 0.0, 0.2),
        "4p-mixed": (0.8, 0.2, 0.8),
        "5p-heuristic": (0.2, 0.0, 0.2),
        "5p-mixed": (0.6, 0.2, 0.6),
    },
    "brilliant_boar-v1": {
        "solo-level1": (36.0, -24.8, 36.0),
        "solo-level2": (42.0, -35.6, 42.0),
        "solo-level3": (48.0, -36.0, 48.0),
        "solo-level4": (54.0, -44.4, 54.0),
        "2p-heuristic": (25.2, 4.2, 25.2),
        "2p-window4": (30.4, 10.4, 30.4),
        "2p-window16": (28.0, 8.8, 28.0),
        "2p-checkpoint": (25.8, 5.4, 25.8),
        "3p-mixed": (18.8, 5.6, 18.8),
        "4p-mixed": (15.2, 3.2, 15.2),
    },
}

SOLO = {  # a one-scenario suite: Brilliant Boar solo, level 1 (a game takes about 1 ms)
    "suite": "tiny-v1",
    "game": "brilliant_boar",
    "blocks": 5,
    "scenarios": [{"id": "solo", "config": {"num_players": 1, "level": 1, "memory": "none"},
                   "focal": [0], "games": 40, "quick_games": 20, "seed": 7, "metric": "score",
                   "low": "random", "high": "heuristic"}],
}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # checkpoints seated at other tables than their own
        yield


def test_the_shipped_suites_are_the_pinned_ones():
    assert available_suites() == sorted(PINNED)
    for name, pins in PINNED.items():
        suite = load_suite(name)
        assert suite.name == name and suite.version == int(name.rsplit("-v", 1)[1])
        assert [s.id for s in suite.scenarios] == list(pins)


@pytest.mark.parametrize("name", sorted(PINNED))
def test_suite_numbers_are_pinned_by_seed(name, tmp_path):
    """A versioned suite never changes its numbers: heuristic's first 5 games of every
    scenario, and both references on them, are exactly these (a change needs a new version)."""
    suite = load_suite(name)
    results = run_policy(suite, FOCAL_SPEC.get(name, "heuristic"), tmp_path, games=5, progress=False)
    got = {sid: (round(sum(r["played"]["values"]) / 5, 6), r["low"]["value"], r["high"]["value"])
           for sid, r in results.items()}
    assert got == PINNED[name]


def test_background_draws_follow_weights_and_rotate_the_focal_seat():
    suite = load_suite("oh_my_brain-v1")
    mixed = suite.scenario("3p-mixed")
    tasks = scenario_tasks(mixed, 600)
    assert [t[3].index(FOCAL) for t in tasks[:6]] == [0, 2, 1, 0, 2, 1]  # every position
    drawn = [label for t in tasks for label in t[3] if label != FOCAL]
    for spec, _ in mixed.background:
        assert abs(drawn.count(spec) / len(drawn) - 1 / 3) < 0.05
    assert scenario_tasks(mixed, 600) == tasks  # fixed by the seed
    assert scenario_tasks(mixed, 60) == tasks[:60]  # the quick games are the first games


def test_normalisation():
    assert scoring.normalise(0.5, 0.0, 1.0) == 0.5
    assert scoring.normalise(30.0, -20.0, 30.0) == 1.0
    assert scoring.normalise(-20.0, -20.0, 30.0) == 0.0
    assert scoring.normalise(40.0, -20.0, 30.0) == pytest.approx(1.2)
    assert math.isnan(scoring.normalise(0.3, 0.2, 0.2))  # references that coincide
    iv = scoring.normalised_interval({"value": 0.5, "lo": 0.25, "hi": 0.75}, 0.25, 0.75)
    assert iv == {"value": 0.5, "lo": 0.0, "hi": 1.0}
    assert scoring.block_scores([1, 0, 1, 1, 0, 0], 3, 0.0, 1.0) == [0.5, 1.0, 0.0]


def test_scorecard_normalises_between_its_references(tmp_path):
    card = benchmark("heuristic", parse_suite(SOLO), tmp_path, quick=True, progress=False)
    (row,) = card["scenarios"]
    assert row["games"] == 20 and row["seed"] == 7
    assert row["high"]["value"] == row["raw"]["value"]  # heuristic is its own high reference
    assert row["normalised"]["value"] == 1.0
    low = benchmark("random", parse_suite(SOLO), tmp_path, quick=True, progress=False)
    assert low["scenarios"][0]["normalised"]["value"] == 0.0
    assert card["aggregate"]["iqm"]["value"] == pytest.approx(1.0)
    assert card["aggregate"]["mean"]["lo"] <= 1.0 <= card["aggregate"]["mean"]["hi"]
    assert card["suite"] == "tiny-v1" and card["setting"] == "quick"
    assert card["policy"]["spec"] == "heuristic" and card["versions"]["rliable"]
    files = write_scorecard(card, tmp_path / "card")
    assert sorted(p.rsplit("/", 1)[1] for p in files) == [
        "profile.png",
        "scenarios.png",
        "scorecard.json",
        "scorecard.md",
    ]
    assert json.loads((tmp_path / "card" / "scorecard.json").read_text())["suite"] == "tiny-v1"
    assert "| `solo` | 20 | 7 | score |" in format_scorecard(card)


def test_paired_comparison_detects_a_planted_difference(tmp_path):
    card = benchmark("heuristic", parse_suite(SOLO), tmp_path, against="random", quick=True,
                     progress=False, reps=200)
    (row,) = card["against"]["scenarios"]
    assert row["significant"] and row["difference"]["lo"] > 0
    assert row["probability_of_improvement"] == 1.0
    assert card["against"]["probability_of_improvement"]["value"] == 1.0
    assert "## `heuristic` against `random`" in format_scorecard(card)


def test_paired_comparison_of_a_policy_with_itself_finds_nothing(tmp_path):
    card = benchmark(
        "heuristic:window=4",
        parse_suite(SOLO),
        tmp_path,
        against="heuristic:window=4",
        quick=True,
        progress=False,
        reps=200,
    )
    (row,) = card["against"]["scenarios"]
    assert row["difference"] == {"value": 0.0, "lo": 0.0, "hi": 0.0} and not row["significant"]
    assert row["probability_of_improvement"] == 0.5
    assert card["against"]["probability_of_improvement"]["value"] == 0.5


def test_resume_gives_the_same_numbers(tmp_path):
    suite = load_suite("oh_my_brain-v1")
    calls = []

    def dying_runner(*args, **kwargs):  # the run is killed while playing its 4th table
        from braincards.training.evaluation.harness import run_tasks

        calls.append(kwargs["desc"])
        if len(calls) == 4:
            raise KeyboardInterrupt
        return run_tasks(*args, **kwargs)

    with pytest.raises(KeyboardInterrupt):
        benchmark("heuristic", suite, tmp_path / "a", games=5, progress=False, runner=dying_runner)
    played = len(calls) - 1
    calls.clear()
    resumed = benchmark("heuristic", suite, tmp_path / "a", games=5, progress=False,
                        runner=_counting(calls))
    fresh = benchmark("heuristic", suite, tmp_path / "b", games=5, progress=False)
    assert len(calls) == 3 * len(suite.scenarios) - played  # only what was missing
    for key in ("scenarios", "aggregate", "profile"):
        assert _numbers(resumed[key]) == _numbers(fresh[key])


def _counting(calls):
    from braincards.training.evaluation.harness import run_tasks

    def runner(*args, **kwargs):
        calls.append(kwargs["desc"])
        return run_tasks(*args, **kwargs)

    return runner


def _numbers(obj):
    """``obj`` without its timings (which differ between runs)."""
    if isinstance(obj, dict):
        return {k: _numbers(v) for k, v in obj.items() if k not in ("seconds", "key")}
    if isinstance(obj, list):
        return [_numbers(v) for v in obj]
    return obj


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d.update(suite="tiny"), "versioned name"),
    (lambda d: d.update(game="chess"), "chess"),
    (lambda d: d.update(extra=1), "unknown keys"),
    (lambda d: d["scenarios"][0].update(focal=[1]), "seat numbers in 0..0"),
    (lambda d: d["scenarios"][0].update(games=42), "multiple of blocks"),
    (lambda d: d["scenarios"][0].update(metric="elo"), "'metric' must be one of"),
    (lambda d: d["scenarios"][0].update(high="oracle"), "oracle"),
    (lambda d: d["scenarios"][0].update(config={"num_players": 1, "colour": "red"}), "colour"),
    (lambda d: d["scenarios"][0].update(background={"heuristic": 1}), "background population"),
    (lambda d: d["scenarios"].append(dict(d["scenarios"][0])), "duplicate scenario ids"),
])
def test_bad_suite_files_say_what_is_wrong(edit, message):
    data = json.loads(json.dumps(SOLO))
    edit(data)
    with pytest.raises(SuiteError, match=message):
        parse_suite(data)


def test_unknown_suite_names_bad_files_and_bad_specs(tmp_path):
    with pytest.raises(SuiteError, match="unknown suite 'the_brain-v9'; shipped suites: brilliant"):
        load_suite("the_brain-v9")
    bad = tmp_path / "bad.yaml"
    bad.write_text("suite: [unclosed")
    with pytest.raises(SuiteError, match="not valid YAML"):
        load_suite(bad)
    good = tmp_path / "tiny.yaml"
    good.write_text(yaml.safe_dump(SOLO))
    assert load_suite(good).name == "tiny-v1"
    with pytest.raises(PolicySpecError, match="unknown policy spec 'nonsense'"):
        benchmark("nonsense", load_suite(good), tmp_path, quick=True, progress=False)
    with pytest.raises(ValueError, match="multiple of the suite's blocks"):
        benchmark("heuristic", load_suite(good), tmp_path, games=7, progress=False)


def test_cli_writes_the_scorecard(tmp_path, capsys):
    suite = tmp_path / "tiny.yaml"
    suite.write_text(yaml.safe_dump(SOLO))
    assert main(["benchmark", "heuristic", "--suite", str(suite), "--quick", "--quiet",
                 "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "# Benchmark scorecard: `heuristic` on `tiny-v1`" in out
    assert (tmp_path / "out" / "scorecard.json").is_file()
    assert main(["benchmark", "heuristic", "--suite", "nope-v1"]) == 2
    assert "unknown suite 'nope-v1'" in capsys.readouterr().err
    assert main(["benchmark", "--list"]) == 0
    assert "the_brain-v1: 16 scenarios" in capsys.readouterr().out


def test_workers_give_the_serial_numbers(tmp_path):
    suite = parse_suite(SOLO)
    serial = run_policy(suite, "heuristic:window=4", tmp_path / "a", games=10, progress=False)
    parallel = run_policy(suite, "heuristic:window=4", tmp_path / "b", games=10, workers=2,
                          progress=False)
    assert _numbers(parallel) == _numbers(serial)
