"""Scripted Oh My Brain tables for the rule tests (cards are their values 0..19)."""

from __future__ import annotations

from braincards.envs.oh_my_brain import rules
from braincards.envs.oh_my_brain.cards import DEFAULT_DECK, DEFAULT_MARSHMALLOWS, expand
from braincards.envs.oh_my_brain.env import raw_env

NV = 20


def counts(values) -> list[int]:
    out = [0] * NV
    for v in values:
        out[v] += 1
    return out


def table(
    num_players: int = 3,
    *,
    hands=None,
    graves=None,
    horde=(),
    reserve=(),
    discard=(),
    brains=None,
    seat: int = 0,
    spider: bool = False,
    dice=(),
    rest: str = "reserve",
    starting_brains: int = 9,
    rng_seed: int = 0,
) -> rules.State:
    """A State (default deck) where ``seat`` is to play; the cards the arguments do not
    place go after ``reserve`` in ascending order (``rest="reserve"``), into the
    discard pile (``rest="discard"``) or into the graveyard of seat ``rest`` (an int)."""
    n = num_players
    hands = [list(h) for h in (hands or [[] for _ in range(n)])]
    graves = [list(g) for g in (graves or [[] for _ in range(n)])]
    left = [DEFAULT_DECK[v] for v in range(NV)]
    for pile in hands + graves + [list(horde), list(reserve), list(discard)]:
        for v in pile:
            left[v] -= 1
            assert left[v] >= 0, f"more copies of {v} than the deck has"
    extra = expand(left)
    reserve = list(reserve) + (extra if rest == "reserve" else [])
    discard = list(discard) + (extra if rest == "discard" else [])
    if isinstance(rest, int):  # into that seat's graveyard
        graves[rest] += extra
    data = {
        "num_players": n,
        "starting_brains": starting_brains,
        "copies": [DEFAULT_DECK[v] for v in range(NV)],
        "marshmallows": list(DEFAULT_MARSHMALLOWS),
        "brains": list(brains or [starting_brains] * n),
        "hands": [counts(h) for h in hands],
        "graves": [counts(g) for g in graves],
        "reserve": reserve,
        "discard": counts(discard),
        "horde": list(horde),
        "spider": spider,
        "seat": seat,
        "phase": rules.PLAY,
        "passed": False,
        "mouse": False,
        "extras": 0,
        "pending": [],
        "give": -1,
        "start_seat": 0,
        "draft_count": 3 * n,
        "round": 1,
        "turn": 1,
        "die": 0,
        "dice": list(dice),
        "face_counts": [0] * 6,
        "reshuffles": 0,
        "rng_key": rng_seed,
    }
    return rules.State.from_dict(data)


def env_with(state: rules.State, **config) -> raw_env:
    """A raw env reset to ``state``."""
    config.setdefault("num_players", state.num_players)
    config.setdefault("starting_brains", state.starting_brains)
    env = raw_env(**config)
    env.reset(options={"state": state.to_dict()})
    return env


def P(value: int, count: int = 1) -> int:
    """The action playing ``count`` copies of ``value`` (default deck: maxc = 3)."""
    return rules.play_action(value, count, 3)


def V(value: int) -> int:
    """The action naming a card value (draft / keep / refill / give_card)."""
    return rules.VALUE_ACTION + value


def OPP(k: int) -> int:
    """The action naming the opponent ``k`` seats after the acting seat."""
    return rules.OPPONENT_ACTION + k - 1


def XH(k: int) -> int:
    return rules.EXCHANGE_HAND + k - 1


def XG(k: int) -> int:
    return rules.EXCHANGE_GRAVE + k - 1


def hand(state, seat) -> list[int]:
    return expand(state.hands[seat])


def grave(state, seat) -> list[int]:
    return expand(state.graves[seat])
