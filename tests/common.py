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


# ----------------------------------------------------------------------------- state-restore fuzzing
HUGE = 10**8  # a count that must be refused before anything of that size is allocated


def real_states(make_env: Callable[[], object], games: int, seed: int, every: int = 3) -> list[dict]:
    """State dicts met in real random games (every ``every``-th decision, and the end)."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        env = make_env()
        env.reset(seed=rng.randrange(2**31))
        n = 0
        while env.agents:
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                out.append(env.unwrapped.state.to_dict())
                break
            if n % every == 0:
                out.append(env.unwrapped.state.to_dict())
            env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
            n += 1
    return out


def _odd_value(rng: random.Random, like):
    """A value of the wrong type or size for a field holding ``like``."""
    return rng.choice([HUGE, -HUGE, 2**70, -1, 1.0, 0.5, "1", None, True, [like], {"x": 1}, (1,)])


def _int_for(rng: random.Random, v: int):
    return rng.choice([v + 1, v - 1, rng.randint(-2, 12), rng.randint(0, 60), 0, HUGE])


class StateMutator:
    """Random edits of a state dict: field values changed (in range, out of range, of the
    wrong type, huge), list entries removed, added, duplicated, replaced or swapped, seats
    dropped or added, and cards *moved* from one pile to another (which keeps every card in
    the game, so the result looks real to a conservation check).

    ``counts`` names the fields that hold a count per card value (Oh My Brain's hands,
    graveyards and discard pile) rather than a list of cards; a card moves out of them
    by decrementing a count.
    """

    def __init__(self, rng: random.Random, counts: tuple[str, ...] = ()):
        self.rng = rng
        self.counts = counts

    def _piles(self, d: dict) -> list[tuple[str, list]]:
        """Every list of ints in ``d``: (name, the list itself)."""
        out = []
        for k, v in d.items():
            if isinstance(v, list) and v and all(isinstance(p, list) for p in v):
                out += [(k, p) for p in v]
            elif isinstance(v, list):
                out.append((k, v))
        return out

    def _move(self, d: dict) -> str:
        rng = self.rng
        piles = self._piles(d)
        (sk, src), (dk, dst) = rng.choice(piles), rng.choice(piles)
        if sk in self.counts:
            held = [v for v, c in enumerate(src) if isinstance(c, int) and c > 0]
            if not held:
                return "move: nothing to move"
            card = rng.choice(held)
            src[card] -= 1
        else:
            if not src:
                return "move: nothing to move"
            card = src.pop(rng.randrange(len(src)))
        if dk in self.counts:
            if isinstance(card, int) and 0 <= card < len(dst) and isinstance(dst[card], int):
                dst[card] += 1
        else:
            dst.insert(rng.randrange(len(dst) + 1), card)
        return f"move {card!r} from {sk} to {dk}"

    def _edit_list(self, name: str, lst: list) -> str:
        rng = self.rng
        op = rng.randrange(8)
        if op == 0 and lst:
            del lst[rng.randrange(len(lst))]
            return f"{name}: drop an entry"
        if op == 1:
            lst.insert(rng.randrange(len(lst) + 1), rng.choice([rng.randint(-1, 60), HUGE, 0]))
            return f"{name}: add an entry"
        if op == 2 and lst:
            lst.append(lst[rng.randrange(len(lst))])
            return f"{name}: duplicate an entry"
        if op == 3 and lst:
            i = rng.randrange(len(lst))
            lst[i] = _int_for(rng, lst[i]) if isinstance(lst[i], int) else 0
            return f"{name}[{i}] = {lst[i]!r}"
        if op == 4 and lst:
            i = rng.randrange(len(lst))
            lst[i] = _odd_value(rng, lst[i])
            return f"{name}[{i}] = {lst[i]!r}"
        if op == 5 and len(lst) > 1:
            i, j = rng.randrange(len(lst)), rng.randrange(len(lst))
            lst[i], lst[j] = lst[j], lst[i]
            return f"{name}: swap {i} and {j}"
        if op == 6:
            lst.clear()
            return f"{name}: empty"
        rng.shuffle(lst)
        return f"{name}: shuffle"

    def _edit_field(self, d: dict) -> str:
        rng = self.rng
        key = rng.choice(sorted(d))
        v = d[key]
        if isinstance(v, bool):
            d[key] = rng.choice([not v, not v, int(v), None])
        elif isinstance(v, int):
            d[key] = _int_for(rng, v) if rng.random() < 0.8 else _odd_value(rng, v)
        elif isinstance(v, list) and v and all(isinstance(p, list) for p in v):
            r = rng.random()
            if r < 0.7:
                i = rng.randrange(len(v))
                return self._edit_list(f"{key}[{i}]", v[i])
            if r < 0.8:
                v.pop(rng.randrange(len(v)))
            elif r < 0.9:
                v.append(list(v[0]))
            else:
                v[rng.randrange(len(v))] = _odd_value(rng, v[0])
        elif isinstance(v, list):
            if rng.random() < 0.9:
                return self._edit_list(key, v)
            d[key] = _odd_value(rng, v)
        else:
            d[key] = _odd_value(rng, v)
        return f"{key} = {d[key]!r}"

    def __call__(self, data: dict) -> tuple[dict, list[str]]:
        d = json.loads(json.dumps(data))
        edits = []
        for _ in range(self.rng.choice([1, 1, 1, 2, 3])):
            r = self.rng.random()
            if r < 0.03:
                k = self.rng.choice(sorted(d))
                del d[k]
                edits.append(f"drop key {k}")
            elif r < 0.4:
                edits.append(self._move(d))
            else:
                edits.append(self._edit_field(d))
        return d, edits


@dataclass
class FuzzStats:
    refused: int = 0
    accepted: int = 0
    decisions: int = 0


def fuzz_state_restore(
    make_env: Callable[[], object],
    states: list[dict],
    mutations: int,
    seed: int,
    counts: tuple[str, ...] = (),
) -> FuzzStats:
    """Mutate real state dicts ``mutations`` times and restore each into a fresh raw env
    (``reset(options={"state": ...})``). Each mutant must be refused with a ValueError or
    TypeError, or the restored game must be a playable one: its state round-trips, every
    observation lies in the observation space, the mask is not empty while the game is
    live, random play keeps every card (conservation) and the game ends (terminated or
    truncated by ``max_cycles``) within ``max_cycles`` decisions per agent."""
    rng = random.Random(seed)
    mutate = StateMutator(rng, counts)
    stats = FuzzStats()
    for _ in range(mutations):
        data, edits = mutate(rng.choice(states))
        env = make_env()
        try:
            env.reset(options={"state": data})
        except (ValueError, TypeError) as err:
            assert str(err), f"an empty error message for {edits}"
            stats.refused += 1
            continue
        except Exception as err:  # pragma: no cover - reported as a failure
            raise AssertionError(f"{edits}: {type(err).__name__}: {err}") from err
        stats.accepted += 1
        try:
            stats.decisions += _play_restored(env, rng)
        except Exception as err:
            raise AssertionError(f"restored after {edits}: {type(err).__name__}: {err}") from err
    return stats


def _play_restored(env, rng: random.Random) -> int:
    state = env.state
    assert type(state).from_dict(state.to_dict()) == state
    cards = sorted(state.cards())
    space = env.observation_space(env.possible_agents[0])["observation"]
    for agent in env.possible_agents:
        assert space.contains(env.observe(agent)["observation"]), f"{agent}'s observation is out of bounds"
    bound = env.max_cycles * len(env.possible_agents) + 1
    n = 0
    while env.agents:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert space.contains(obs["observation"]), "observation out of bounds"
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        assert legal, "empty action mask while the game is live"
        env.step(rng.choice(legal))
        n += 1
        assert sorted(env.state.cards()) == cards, "a card appeared or vanished"
        assert n <= bound, "the game does not end"
    return n
