"""docs/leaderboard.md is what benchmarks/leaderboard_page.py renders from the committed
scorecards in benchmarks/results/benchmark/ (a hand edit fails), and every scorecard was
measured on the suite as it is shipped (a changed scenario fails: it needs a new version)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from braincards.training.evaluation.benchmark.provenance import check_scorecard

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "leaderboard_page", ROOT / "benchmarks" / "leaderboard_page.py"
)
leaderboard_page = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(leaderboard_page)

REGENERATE = "python benchmarks/leaderboard_page.py"


def test_leaderboard_is_the_rendering_of_the_scorecards():
    rendered = leaderboard_page.render(leaderboard_page.load_cards())
    assert (ROOT / "docs" / "leaderboard.md").read_text() == rendered, (
        f"docs/leaderboard.md differs from its rendering: do not edit it by hand; run `{REGENERATE}`"
    )


@pytest.mark.parametrize("suite", leaderboard_page.SUITES)
def test_every_policy_is_measured_on_the_shipped_suite(suite):
    from braincards.training.evaluation.benchmark.suites import load_suite

    shipped = load_suite(suite)
    for policy in leaderboard_page.policies(shipped.game):
        path = leaderboard_page.result_path(suite, policy)
        assert path.is_file(), (
            f"{policy} is not on {suite}: run `{REGENERATE} --regenerate --only {suite}`"
        )
        card = json.loads(path.read_text())
        assert card["suite"] == suite and card["policy"]["spec"] == policy
        assert [(r["id"], r["fingerprint"]) for r in card["scenarios"]] == [
            (s.id, s.fingerprint()) for s in shipped.scenarios
        ], f"{suite} changed since {policy} was measured"


def test_rendering_shows_every_policy_and_scenario():
    cards = leaderboard_page.load_cards()
    page = leaderboard_page.render(cards)
    for found in cards.values():
        for card in found:
            assert (
                f"| `{card['policy']['spec']}` | {leaderboard_page.fmt(card['aggregate']['iqm'])} |"
                in page
            )
            for row in card["scenarios"]:
                assert f"| `{row['id']}` |" in page


@pytest.mark.parametrize("suite", leaderboard_page.SUITES)
def test_every_committed_scorecard_holds_together(suite):
    """The checks an outside scorecard must pass hold for the repository's own: provenance,
    suite hash, every scenario, intervals, normalised scores and recomputed aggregates."""
    for path in sorted((leaderboard_page.RESULTS / suite).glob("*.json")):
        card = json.loads(path.read_text())
        assert check_scorecard(card) == [], path.name
        assert card["provenance"]["policy_spec"] == card["policy"]["spec"]
