"""The Brain's perfect-information solver, the oracle command and the PIMC search partner."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from braincards.envs import derive_seed, make
from braincards.envs.the_brain import rules
from braincards.training.agents.search.pimc import (
    PIMCPolicy,
    decode_observation,
    make_pimc,
    sample_state,
)
from braincards.training.agents.search.solver import LOSS, UNKNOWN, WIN, Solver, solve, turns
from braincards.training.evaluation.evaluate import evaluate


def exhaustive(state: rules.State) -> bool:
    """Can the team win? Plain search over the rules engine: every legal action, no table,
    no bound, no compact state."""
    if state.phase == rules.OVER:
        return state.outcome == rules.WIN
    for a in rules.legal_actions(state):
        child = state.copy()
        rules.apply_action(child, a)
        if exhaustive(child):
            return True
    return False


def small_deals(count: int, seed: int = 0):
    """Random small scripted deals (hand 2, a short deck, low limits), both draw rules,
    solo to 3 players."""
    rng = random.Random(seed)
    for _ in range(count):
        n = rng.choice([1, 2, 3])
        seats = 2 if n == 1 else n
        deck = rng.sample(range(36), seats * 2 + rng.randint(0, 2))
        cfg = rules.Config(num_players=n, limit=rng.choice([3, 4, 5]), hand_size=2,
                           draw_rule=rng.choice(["mandatory", "optional"]))
        yield rules.new_game(cfg, rng, deck=deck)


def test_solver_agrees_with_exhaustive_search_on_small_deals():
    """R-B4..R-B7 through the compact solver = plain search through rules.apply_action, with
    and without the display lower bound (the bound never prunes a winnable node)."""
    results = []
    for state in small_deals(60):
        truth = exhaustive(state)
        for bound in (True, False):
            assert (solve(state, bound=bound) == WIN) == truth, state.to_dict()
        results.append(truth)
    assert 10 < sum(results) < 50  # both outcomes are exercised


def test_solver_agrees_with_exhaustive_search_inside_a_turn():
    """Mid-turn decisions (cover / take back target, donation, extra card, draw) are solved
    through the rules engine: every legal action's value matches plain search."""
    checked = 0
    for state in small_deals(40, seed=1):
        s = state
        while s.phase != rules.OVER and checked < 200:
            solver = Solver.for_state(state)
            for a in rules.legal_actions(s):
                child = s.copy()
                rules.apply_action(child, a)
                assert (solver.solve(child) == WIN) == exhaustive(child)
                checked += 1
            s = s.copy()
            rules.apply_action(s, rules.legal_actions(s)[-1])
    assert checked >= 100


@pytest.mark.parametrize("players,difficulty,draw_rule", [
    (3, "amateur", "mandatory"), (2, "robber", "mandatory"), (4, "amateur", "optional"),
    (1, "amateur", "mandatory"),
])
def test_winning_lines_replay_to_a_win_through_the_env(players, difficulty, draw_rule):
    raw = make("the_brain_v0", raw=True, num_players=players, difficulty=difficulty,
               draw_rule=draw_rule)
    won = 0
    for g in range(3):
        raw.reset(seed=derive_seed(0, g))
        solver = Solver.for_state(raw.state, nodes=20_000)
        line = solver.winning_line(raw.state)
        if line is None:
            continue
        for action in line:
            assert not raw.terminations[raw.agent_selection]
            raw.step(action)
        assert raw.state.phase == rules.OVER and raw.state.outcome == rules.WIN
        assert all(r == 1 for r in raw._cumulative_rewards.values())
        won += 1
    assert won >= 2


def test_solver_proves_a_loss_and_reports_an_exhausted_budget():
    # two seats, limit 2: a donate card played first makes a stack, the second card another
    from tests.the_brain.helpers import table

    lost = table(2, hands=[["blue fingerprint"], ["purple brain"]], limit=2)
    assert solve(lost) == LOSS
    raw = make("the_brain_v0", raw=True, num_players=3, difficulty="cat_burglar")
    raw.reset(seed=derive_seed(0, 0))
    assert solve(raw.state, nodes=1) == UNKNOWN


def test_display_bound_is_a_lower_bound_on_won_lines():
    """Along every winning line found, the bound at each turn start never exceeds the
    display count the line ends with."""
    for state in small_deals(40, seed=2):
        solver = Solver.for_state(state)
        line = solver.winning_line(state)
        if line is None:
            continue
        s = state.copy()
        bounds = []
        for a in line:
            if s.phase == rules.PLAY:
                _, hold, disp, rem = solver.boundary_key(s)
                bounds.append(solver.display_bound(hold, disp, rem))
            rules.apply_action(s, a)
        assert max(bounds, default=0) <= len(s.display)


def test_turns_match_the_rules_engine():
    """Every whole turn the compact enumeration lists is reachable through the rules engine
    with its actions, and leaves the same holdings and display."""
    from braincards.training.agents.search.masks import mask_of, stack_int

    raw = make("the_brain_v0", raw=True, num_players=3)
    for g in range(4):
        raw.reset(seed=derive_seed(5, g))
        s = raw.state
        for _ in range(12):  # a few turns into the game
            if s.phase != rules.PLAY:
                break
            solver = Solver.for_state(s)
            seat, hold, disp, _ = solver.boundary_key(s)
            for actions, h2, d2 in turns(seat, hold, disp, s.num_seats):
                t = s.copy()
                rules.apply_action(t, actions[0])
                for a in actions[1:]:
                    assert t.phase not in (rules.PLAY, rules.OVER)
                    rules.apply_action(t, a)
                # after the action (before the draw): compare the display, and the holdings
                # up to the card the seat drew
                assert tuple(sorted(stack_int(st) for st in t.display)) == d2
                now = tuple(mask_of(t.hands[k]) | mask_of(t.domains[k]) for k in range(t.num_seats))
                drawn = [now[k] ^ h2[k] for k in range(t.num_seats)]
                assert all(d & h2[k] == 0 for k, d in enumerate(drawn))
                assert sum(bin(d).count("1") for d in drawn) <= 1
            raw.step(raw.legal_actions()[0])
            s = raw.state


# ---------------------------------------------------------------------------- oracle
def test_oracle_command_is_reproducible(tmp_path, capsys):
    from braincards.training.cli.main import main

    out = tmp_path / "o.json"
    args = ["oracle", "the_brain", "--players", "2", "--difficulty", "amateur", "robber",
            "--deals", "4", "--nodes", "3000", "--seed", "3", "--json", str(out)]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "unknown (budget exhausted)" in text and "num_players=2, difficulty=robber" in text
    first = json.loads(out.read_text())
    assert main(args) == 0
    second = json.loads(out.read_text())
    for a, b in zip(first["cells"], second["cells"], strict=True):
        assert a["deals"] == 4
        assert a["winnable"] + a["unwinnable"] + a["unknown"] == 4
        assert (a["winnable"], a["unknown"]) == (b["winnable"], b["unknown"])
    assert main(["oracle", "oh_my_brain"]) == 2
    assert main(["oracle", "the_brain", "--deals", "0"]) == 2


# ---------------------------------------------------------------------------- PIMC
CONFIGS = [
    {"num_players": 3},
    {"num_players": 2, "memory": "none", "difficulty": "robber"},
    {"num_players": 4, "open_hands": True, "draw_rule": "optional"},
    {"num_players": 3, "discard_peek": True, "memory": "none"},
    {"num_players": 1},
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_pimc_samples_are_consistent_with_the_observation(config):
    """A sampled table, seen from the observer's seat, gives exactly the observation it
    was sampled from: the sampler keeps everything the seat sees and only deals the rest."""
    raw = make("the_brain_v0", raw=True, **config)
    layout = raw.observation_layout()
    check = make("the_brain_v0", raw=True, **config)
    greedy = make_pimc("the_brain_v0", config).fallback
    rng = random.Random(0)
    seen_decisions = set()
    for g in range(3):
        raw.reset(seed=derive_seed(1, g))
        while not raw.terminations[raw.agent_selection]:
            agent = raw.agent_selection
            obs = raw.observe(agent)
            seen = decode_observation(obs["observation"], layout)
            seen_decisions.add(seen.decision)
            state = sample_state(seen, rng, config.get("draw_rule") == "optional",
                                 config.get("discard_peek", False))
            check.reset(options={"state": state.to_dict()})
            again = check.observe(check.possible_agents[0])
            np.testing.assert_array_equal(again["observation"], obs["observation"])
            np.testing.assert_array_equal(again["action_mask"], obs["action_mask"])
            raw.step(greedy.act(obs, agent))
    assert {rules.PLAY, rules.COVER_TARGET} <= seen_decisions


def _swap_hidden(deck: list[int], hand_size: int, a: int, b: int) -> list[int]:
    d = list(deck)
    d[a], d[b] = d[b], d[a]
    return d


def test_pimc_reads_only_what_its_seat_may_see():
    """Two tables that differ only in cards seat 0 cannot see (a card of seat 1's hand
    swapped with one deep in the deck, and the deck order below) give seat 0 the same
    observation, and the same decision and votes under the same seed."""
    config = {"num_players": 3, "difficulty": "robber"}
    deck = list(range(36))
    random.Random(4).shuffle(deck)
    other = _swap_hidden(deck, 5, 5, 30)  # seat 1's first card <-> a deep deck card
    other[20:30] = reversed(other[20:30])
    decisions = []
    for d in (deck, other):
        raw = make("the_brain_v0", raw=True, **config)
        raw.reset(options={"deck": d, "first_player": 0})
        obs = raw.observe("player_0")
        pol = PIMCPolicy(raw.observation_layout(), config, samples=3, nodes=200, seed=11)
        pol.reset(seed=11)
        decisions.append((obs, pol.act(obs, "player_0"), dict(pol.last_votes)))
    (o1, a1, v1), (o2, a2, v2) = decisions
    np.testing.assert_array_equal(o1["observation"], o2["observation"])
    assert a1 == a2 and v1 == v2
    assert sum(v1.values()) > 0


def test_pimc_spec_and_parameters():
    from braincards.training.agents.policy import PolicySpecError
    from braincards.training.agents.specs import KINDS, make_policy

    assert KINDS["pimc"].games == KINDS["greedy"].games == ("the_brain_v0",)
    pol = make_policy("pimc", "the_brain_v0", {"num_players": 2})
    assert isinstance(pol, PIMCPolicy)
    assert (pol.samples, pol.nodes) == (PIMCPolicy.DEFAULT_SAMPLES, PIMCPolicy.DEFAULT_NODES)
    spaced = make_policy("pimc:samples=4, nodes=50", "the_brain_v0", {"num_players": 2})
    assert (spaced.samples, spaced.nodes) == (4, 50)
    for bad in ("samples", "depth=3", "samples=x", "nodes=0", "samples=2,samples=3"):
        with pytest.raises(PolicySpecError, match="pimc"):
            make_policy(f"pimc:{bad}", "the_brain_v0", {"num_players": 2})
    with pytest.raises(ValueError, match="The Brain only"):
        make_pimc("oh_my_brain_v0", {})
    # the parameters from a spec string, as --seat pimc:samples=3,nodes=40 gives them
    pol = make_policy("pimc:samples=3,nodes=40", "the_brain_v0", {"num_players": 2})
    assert (pol.samples, pol.nodes, pol.name) == (3, 40, "pimc:samples=3,nodes=40")
    with pytest.raises(PolicySpecError, match="unknown pimc parameter 'depth'"):
        make_policy("pimc:depth=3", "the_brain_v0", {"num_players": 2})
    with pytest.raises(PolicySpecError, match="must be >= 1"):
        make_policy("pimc:nodes=0", "the_brain_v0", {"num_players": 2})
    with pytest.raises(PolicySpecError, match="'greedy' policy takes no parameters"):
        make_policy("greedy:depth=2", "the_brain_v0", {"num_players": 2})
    with pytest.raises(ValueError):
        PIMCPolicy(pol.layout, {}, samples=0)


def test_pimc_partners_in_evaluate_and_reproducible():
    config = {"num_players": 2, "difficulty": "robber"}

    def team():
        pol = make_pimc("the_brain_v0", config, samples=2, nodes=100)
        return [pol, "greedy"]

    a = evaluate("the_brain_v0", config, seats=team(), games=2, seed=5, progress=False,
                 return_records=True)
    b = evaluate("the_brain_v0", config, seats=team(), games=2, seed=5, progress=False,
                 return_records=True)
    assert a["games"] == 2
    assert [r["length"] for r in a["records"]] == [r["length"] for r in b["records"]]
    assert [r["scores"] for r in a["records"]] == [r["scores"] for r in b["records"]]
