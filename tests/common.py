"""Checks every game shares: random-play invariants, mask == rules, API, round trips.

Each game's rules module provides ``apply_action(state, action)`` (raising
IllegalActionError for anything it does not accept, before changing the state) and its
State provides ``copy()``, ``to_dict()``, ``from_dict()`` and ``cards()`` (every card in
the game, wherever it lies).
"""

from __future__ import annotations

import json
import random
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from pettingzoo.test import api_test, seed_test

from braincards.envs.core.errors import IllegalActionError


def accepted_actions(state, rules, num_actions: int, check_unchanged: bool = False) -> list[int]:
    """Every action the rules accept now, found by trying each on a copy of the state."""
    before = state.to_dict() if check_unchanged else None
    ok = []
    for a in range(num_actions):
        s = state.copy()
        try:
            rules.apply_action(s, a)
        except IllegalActionError:
            if check_unchanged:
                assert s.to_dict() == before, f"rejected action {a} changed the state"
            continue
        ok.append(a)
    return ok


def assert_mask_matches_rules(raw, rules, mask, check_unchanged: bool = False) -> None:
    legal = np.flatnonzero(mask).tolist()
    accepted = accepted_actions(raw.state, rules, len(mask), check_unchanged)
    assert legal == accepted, f"mask {legal} != actions the rules accept {accepted}"
    assert legal == sorted(raw.legal_actions()), "mask != env.legal_actions()"


@dataclass
class PlayStats:
    games: int = 0
    decisions: int = 0
    terminated: int = 0
    truncated: int = 0
    returns: list = field(default_factory=list)  # one dict {agent: reward} per game


def play_games(
    make_env: Callable[[random.Random], object],
    rules,
    games: int,
    seed: int,
    *,
    choose: Callable | None = None,
    mask_check_every: int = 1,
    on_step: Callable | None = None,
    on_end: Callable | None = None,
) -> PlayStats:
    """Play ``games`` complete games through the public AEC API, checking after every
    decision: a non-empty mask while the game runs, the mask against the rules (every
    ``mask_check_every``-th decision; rejected actions must leave the state unchanged),
    card conservation. ``make_env(rng)`` returns a fresh (wrapped) env; ``choose(raw,
    legal, rng)`` picks an action (uniform random by default); ``on_step(raw)`` and
    ``on_end(raw, returns)`` add game-specific checks.
    """
    rng = random.Random(seed)
    stats = PlayStats()
    for _ in range(games):
        env = make_env(rng)
        env.reset(seed=rng.randrange(2**31))
        raw = env.unwrapped
        cards = sorted(raw.state.cards())
        n = 0
        while True:
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            mask = obs["action_mask"]
            assert mask.dtype == np.int8
            assert mask.shape == (env.action_space(env.agent_selection).n,)
            legal = np.flatnonzero(mask).tolist()
            assert legal, "empty action mask while the game is not over"
            assert obs["observation"].dtype == np.float32
            assert env.observation_space(env.agent_selection)["observation"].contains(obs["observation"])
            if n % mask_check_every == 0:
                assert_mask_matches_rules(raw, rules, mask, check_unchanged=n % (5 * mask_check_every) == 0)
            action = choose(raw, legal, rng) if choose else rng.choice(legal)
            env.step(action)
            n += 1
            assert sorted(raw.state.cards()) == cards, "a card appeared or vanished"
            if on_step:
                on_step(raw)
        returns = dict(raw._cumulative_rewards)
        assert set(returns) == set(env.possible_agents)
        if term:
            stats.terminated += 1
            assert all(env.terminations.values())
        else:
            stats.truncated += 1
            assert all(env.truncations.values())
            assert max(raw._decisions) == raw.max_cycles
            assert all(r == 0 for r in returns.values()), "a truncated game pays nothing"
        if on_end:
            on_end(raw, returns)
        for _agent in env.agent_iter():  # every finished agent takes its dead step
            env.step(None)
        assert env.agents == []
        stats.games += 1
        stats.decisions += n
        stats.returns.append(returns)
    return stats


def run_api_and_seed_tests(env_fn: Callable[[], object], num_cycles: int = 300) -> None:
    """PettingZoo's api_test and seed_test."""
    with warnings.catch_warnings():
        # api_test passes options={"options": 1} on purpose and warns that the
        # observation is a dict (the classic-games convention with action masks)
        warnings.simplefilter("ignore")
        api_test(env_fn(), num_cycles=num_cycles)
        seed_test(env_fn, num_cycles=num_cycles)


def check_round_trip(make_env: Callable[[], object], seed: int, split: int, rng_seed: int = 0) -> int:
    """Play ``split`` random decisions, save the state as JSON, restore it into a fresh env
    through ``reset(options={"state": ...})`` and check that both games continue
    identically under the same actions. Returns the number of decisions compared."""
    rng = random.Random(rng_seed)
    env = make_env()
    env.reset(seed=seed)
    for _ in range(split):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    data = json.loads(json.dumps(env.unwrapped.state.to_dict()))
    restored_state = type(env.unwrapped.state).from_dict(data)
    assert restored_state == env.unwrapped.state
    assert restored_state.to_dict() == env.unwrapped.state.to_dict()
    other = make_env()
    other.reset(options={"state": data})
    compared = 0
    while True:
        assert env.agent_selection == other.agent_selection
        a, b = env.last(), other.last()
        for agent in env.agents:
            np.testing.assert_array_equal(env.observe(agent)["observation"], other.observe(agent)["observation"])
        np.testing.assert_array_equal(a[0]["action_mask"], b[0]["action_mask"])
        assert a[1:4] == b[1:4]
        if a[2] or a[3]:
            break
        action = rng.choice(np.flatnonzero(a[0]["action_mask"]).tolist())
        env.step(action)
        other.step(action)
        compared += 1
    assert env.unwrapped.state.to_dict() == other.unwrapped.state.to_dict()
    return compared


def observe_after(make_env: Callable[[], object], seed: int, steps: int, rng_seed: int = 0):
    """A wrapped env after ``steps`` random decisions from ``reset(seed)`` (for leak tests)."""
    rng = random.Random(rng_seed)
    env = make_env()
    env.reset(seed=seed)
    for _ in range(steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return env


def transcript(make_env: Callable[[], object], seed: int, rng_seed: int = 0) -> list:
    """A whole random game from ``reset(seed)``: the opening table, then every (agent,
    action, observation bytes, reward) in order."""
    env = make_env()
    env.reset(seed=seed)
    rng = random.Random(rng_seed)
    out = [env.unwrapped.state.to_dict()]
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        action = None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        out.append((agent, action, obs["observation"].tobytes(), reward))
        env.step(action)
    return out


def check_seeded_determinism(make_env: Callable[[], object]) -> None:
    """Same seed + same actions = the same game; another seed = another game; and
    ``reset()`` without a seed continues the env's own RNG (a new game, no global RNG)."""
    assert transcript(make_env, 11) == transcript(make_env, 11)
    assert transcript(make_env, 11) != transcript(make_env, 12)
    env = make_env()
    env.reset(seed=5)
    first = env.unwrapped.state.to_dict()
    env.reset()
    assert env.unwrapped.state.to_dict() != first
    env.reset(seed=5)
    assert env.unwrapped.state.to_dict() == first


def check_max_cycles_truncation(make_env: Callable[..., object], seed: int = 0, max_cycles: int = 3) -> None:
    """PettingZoo's max_cycles_test semantics: the agent with the most decisions makes
    exactly ``max_cycles`` of them, then every agent is truncated (not terminated) with
    reward 0 and takes its dead step. ``make_env(max_cycles=...)`` builds the env."""
    env = make_env(max_cycles=max_cycles)
    env.reset(seed=seed)
    counts = dict.fromkeys(env.possible_agents, 0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            assert trunc and not term and reward == 0
            env.step(None)
            continue
        counts[agent] += 1
        env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    assert max(counts.values()) == max_cycles
    assert env.agents == []
