"""The compiled solver and the faster PIMC against brute force and against the search code as
it was before the search-speed work: what that code answered on these tests' inputs is recorded
in ``data/search_before.json`` (the code itself is at the git ref
``benchmarks/search_speed.BEFORE_REF``). Speed is measured by benchmarks/search_speed.py, never
asserted here."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from braincards.envs import derive_seed, make
from braincards.envs.the_brain import rules
from braincards.training.agents.search.greedy import TheBrainGreedy
from braincards.training.agents.search.pimc import PIMCPolicy
from braincards.training.agents.search.solver import LOSS, UNKNOWN, WIN, Solver, solve
from braincards.training.evaluation.evaluate import evaluate

BEFORE = json.loads((Path(__file__).resolve().parent / "data" / "search_before.json").read_text())


def brute_force(state: rules.State, memo: dict) -> bool:
    """Can the team win? Every legal action through the rules engine, no bound, no ordering;
    memoized on the whole table (the turn counter and the last player aside, which the rules
    never read)."""
    if state.phase == rules.OVER:
        return state.outcome == rules.WIN
    d = state.to_dict()
    del d["turn"], d["last_player"]
    key = repr(sorted(d.items()))
    if key not in memo:
        memo[key] = False
        for a in rules.legal_actions(state):
            child = state.copy()
            rules.apply_action(child, a)
            if brute_force(child, memo):
                memo[key] = True
                break
    return memo[key]


def deals(count: int, hand: int, seed: int):
    """Random scripted deals with hand ``hand``, a short deck, low limits, both draw rules,
    solo to 4 players (hand 2) or solo and 2 players (hand 3)."""
    rng = random.Random(seed)
    for _ in range(count):
        n = rng.choice([1, 2, 3, 4] if hand == 2 else [1, 2])  # hand 3 at 3 seats: too many tables
        seats = 2 if n == 1 else n
        deck = rng.sample(range(36), seats * hand + rng.randint(0, 3 if hand == 2 else 1))
        cfg = rules.Config(num_players=n, limit=rng.choice([3, 4, 5, 6]), hand_size=hand,
                           draw_rule=rng.choice(["mandatory", "optional"]))
        yield rules.new_game(cfg, rng, deck=deck)


@pytest.mark.parametrize("hand,count", [(2, 80), (3, 40)])
def test_solver_equals_brute_force_on_small_deals(hand, count):
    """Hand 2 and 3: the compiled solver (with and without restarts, with a table far too
    small to hold the search, with and without the bound) = memoized brute force."""
    truths = []
    for state in deals(count, hand, seed=hand):
        truth = brute_force(state, {})
        for kw in ({}, {"restarts": False}, {"table_bits": 3}, {"bound": False, "table_bits": 5}):
            assert (Solver.for_state(state, **kw).solve(state) == WIN) == truth, (kw, state.to_dict())
        truths.append(truth)
    assert 0.1 < sum(truths) / len(truths) < 0.9  # both outcomes are exercised


def _states(players: int, difficulty: str, games: int, every: int = 6):
    """Start-of-turn states along greedy games (the deal itself, then every ``every``-th
    play decision)."""
    raw = make("the_brain_v0", raw=True, num_players=players, difficulty=difficulty)
    greedy = TheBrainGreedy(raw.observation_layout(), {"num_players": players, "difficulty": difficulty})
    for g in range(games):
        raw.reset(seed=derive_seed(21, g))
        i = 0
        while not raw.terminations[raw.agent_selection]:
            if raw.state.phase == rules.PLAY and i % every == 0:
                yield raw.state.copy()
            i += raw.state.phase == rules.PLAY
            raw.step(greedy.act(raw.observe(raw.agent_selection), raw.agent_selection))


@pytest.mark.parametrize("players,difficulty", [(2, "robber"), (3, "cat_burglar"), (4, "robber")])
def test_same_answers_as_the_solver_before(players, difficulty):
    """Without restarts the compiled search is the Python search node for node: the same
    answer and the same node count under the same budget, unknowns included. With restarts
    (the default) it answers the same wherever both decide, and every action of a play
    decision (solve_play, PIMC's path) agrees with the rules-engine path of before. The
    states are those of greedy games (``_states``), recorded with the answers of before."""
    rows = BEFORE["solver"][f"{players},{difficulty}"]
    assert [r["state"] for r in rows] == [s.to_dict() for s in _states(players, difficulty, games=3)]
    both = differ = 0
    for row in rows:
        state = rules.State.from_dict(row["state"])
        plain = Solver.for_state(state, nodes=3000, restarts=False)
        assert [plain.solve(state), plain.total_nodes] == row["plain"]
        new = Solver.for_state(state, nodes=3000)
        a, b = new.solve(state), row["again"]
        if UNKNOWN not in (a, b):
            assert a == b
            both += 1
        seat, hold, disp, rem = new.boundary_key(state)
        assert [card for card, _ in row["children"]] == rules.legal_actions(state)
        for card, b in row["children"]:
            a = new.solve_play(seat, hold, disp, rem, card)
            if UNKNOWN not in (a, b):
                assert a == b
                both += 1
            differ += a != b
    assert both >= 30


def _rewind(state: rules.State) -> tuple:
    """(seat, holdings, display, cards left, the turn's actions so far) of a decision inside
    a turn, the turn rewound to its start."""
    hold = [0] * state.num_seats
    for k in range(state.num_seats):
        for c in state.hands[k] + state.domains[k]:
            hold[k] |= 1 << c
    display = [st for st in state.display if st != [state.resolving]]
    hold[state.seat] |= 1 << state.resolving
    done = (state.resolving,)
    if state.phase == rules.DONATE_TARGET:
        hold[state.seat] |= 1 << state.donating
        done += (state.donating,)
    disp = tuple(sorted((st[-1] << 36) | sum(1 << c for c in st) for st in display))
    return state.seat, tuple(hold), disp, len(state.deck), done


@pytest.mark.parametrize("players,draw_rule", [(2, "mandatory"), (3, "optional"), (4, "mandatory")])
def test_decisions_inside_a_turn_as_before(players, draw_rule):
    """Cover / take back targets, extra cards, donated cards and donation seats: solve_turn
    from the turn's start answers as the solver of before did through the rules engine (on
    the decisions of random games, recorded with its answers)."""
    kinds, both = set(), 0
    for row in BEFORE["inside_turn"][f"{players},{draw_rule}"]:
        state = rules.State.from_dict(row["state"])
        seat, hold, disp, rem, done = _rewind(state)
        new = Solver.for_state(state, nodes=2000)
        assert [a for a, _ in row["answers"]] == rules.legal_actions(state)
        for a, y in row["answers"]:
            x = new.solve_turn(seat, hold, disp, rem, done + (a,))
            if UNKNOWN not in (x, y):
                assert x == y, (row["state"], a)
                both += 1
        kinds.add(state.phase)
    assert both >= 40 and {rules.COVER_TARGET, rules.EXTRA, rules.DONATE_CARD} <= kinds


def test_restarts_decide_what_the_plain_order_leaves_unknown():
    """Deal 14 of the 2-player robber oracle (seed 0): a win the plain move order finds only
    after 383,100 nodes. Restarts find it within a budget of 20,000, and the proof replays
    through the env."""
    raw = make("the_brain_v0", raw=True, num_players=2, difficulty="robber")
    raw.reset(seed=derive_seed(0, 14))
    assert Solver.for_state(raw.state, nodes=20_000, restarts=False).solve(raw.state) == UNKNOWN
    solver = Solver.for_state(raw.state, nodes=20_000)
    line = solver.winning_line(raw.state)
    assert line is not None and solver.total_nodes < 20_000 * 4
    for action in line:
        raw.step(action)
    assert raw.state.phase == rules.OVER and raw.state.outcome == rules.WIN


def test_the_table_stays_bounded_under_a_tiny_budget():
    """A table of 2**6 slots: the search overwrites entries (it re-searches them) and never
    holds more than 64, and answers as a large table does."""
    raw = make("the_brain_v0", raw=True, num_players=3, difficulty="cat_burglar")
    answers = []
    for g in range(6):
        raw.reset(seed=derive_seed(0, g))
        tiny = Solver.for_state(raw.state, nodes=50_000, table_bits=6)
        big = Solver.for_state(raw.state, nodes=50_000)
        a, b = tiny.solve(raw.state), big.solve(raw.state)
        assert tiny.table_entries <= 64 and tiny.table_bytes == 64 * 17
        if UNKNOWN not in (a, b):
            assert a == b
        answers.append((a, tiny.table_overwrites))
    assert sum(w for _, w in answers) > 0 and any(a == WIN for a, _ in answers)
    with pytest.raises(ValueError):
        Solver.for_state(raw.state, table_bits=0)


def test_a_proven_loss_and_the_budget_still_work():
    from tests.the_brain.helpers import table

    lost = table(2, hands=[["blue fingerprint"], ["purple brain"]], limit=2)
    assert solve(lost) == LOSS
    raw = make("the_brain_v0", raw=True, num_players=3, difficulty="cat_burglar")
    raw.reset(seed=derive_seed(0, 0))
    assert solve(raw.state, nodes=1) == UNKNOWN
    with pytest.raises(ValueError, match="does not hold"):
        s = Solver.for_state(raw.state)
        seat, hold, disp, rem = s.boundary_key(raw.state)
        s.solve_play(seat, hold, disp, rem, next(c for c in range(36) if not hold[seat] >> c & 1))


def test_pimc_decides_as_before():
    """Same seed, same observations: the PIMC of before (every action through the rules
    engine; its moves and votes recorded) and the new one (play decisions straight in the
    compiled search) deal the same samples and vote the same, but where a budget-exhausted
    solve differs."""
    config = {"num_players": 3, "difficulty": "robber"}
    raw = make("the_brain_v0", raw=True, **config)
    new = PIMCPolicy(raw.observation_layout(), config, seed=3)
    recorded = iter(BEFORE["pimc"])
    same = votes = total = 0
    for g in range(3):
        raw.reset(seed=derive_seed(4, g))
        while not raw.terminations[raw.agent_selection]:
            before = next(recorded)
            a = new.act(raw.observe(raw.agent_selection))
            if new.last_votes:
                total += 1
                same += a == before["before"]
                votes += new.last_votes == {int(k): v for k, v in (before["votes"] or {}).items()}
            raw.step(before["played"])  # the recorded game
    assert next(recorded, None) is None
    assert total >= 30 and same / total >= 0.9 and votes / total >= 0.6


def test_pimc_strength_is_within_its_interval():
    """A short check of the team win rate at 3 players, robber (the benchmark plays 300
    games): its interval overlaps the one measured before, 0.860 [0.779, 0.915] over 100
    games (docs/notebook.md)."""
    config = {"num_players": 3, "difficulty": "robber"}
    res = evaluate("the_brain_v0", config, seats=["pimc"] * 3, games=24, seed=0, progress=False)
    rate = res["team"]["win_rate"]
    assert rate["hi"] >= 0.779 and rate["lo"] <= 0.915, rate


@pytest.mark.parametrize("config", [
    {"num_players": 3, "difficulty": "robber"},
    {"num_players": 2, "difficulty": "cat_burglar", "memory": "none", "draw_rule": "optional"},
    {"num_players": 4, "difficulty": "amateur", "open_hands": True},
    {"num_players": 1, "difficulty": "robber"},
    {"num_players": 3, "difficulty": "amateur", "discard_peek": True},
], ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_greedy_decides_as_before(config):
    """The greedy's best turn, now found by the compiled search over the same turns with the
    same values and tie-break, is the one of before at every decision (the games stray
    from the greedy's own line a fifth of the time, to reach other tables)."""
    raw = make("the_brain_v0", raw=True, **config)
    new = TheBrainGreedy(raw.observation_layout(), config)
    before = BEFORE["greedy"][",".join(f"{k}={v}" for k, v in config.items())]
    rng = random.Random(7)
    decisions = 0
    for g in range(8):
        raw.reset(seed=derive_seed(2, g))
        while not raw.terminations[raw.agent_selection]:
            a = new.act(raw.observe(raw.agent_selection))
            assert a == before[decisions]
            decisions += 1
            raw.step(a if rng.random() < 0.8 else rng.choice(rules.legal_actions(raw.state)))
    assert decisions == len(before) > 100
