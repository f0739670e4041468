"""Scripted The Brain tables for the rule tests."""

from __future__ import annotations

from braincards.envs.the_brain import rules
from braincards.envs.the_brain.cards import card_id
from braincards.envs.the_brain.env import raw_env


def C(name: str) -> int:
    """``C("blue brain")`` -> that card's id."""
    color, obj = name.split(" ", 1)
    return card_id(obj.replace(" ", "_"), color)


def table(
    num_players: int = 2,
    *,
    hands=None,
    domains=None,
    display=(),
    deck=(),
    discard=(),
    seat: int = 0,
    limit: int = 7,
    draw_rule: str = "mandatory",
    discard_peek: bool = False,
) -> rules.State:
    """A State with the given piles (cards by name), ready for ``seat`` to start its turn."""
    n = 2 if num_players == 1 else num_players
    hands = hands or [[] for _ in range(n)]
    domains = domains or [[] for _ in range(n)]
    data = {
        "num_players": num_players,
        "limit": limit,
        "draw_optional": draw_rule == "optional",
        "peek_allowed": discard_peek,
        "deck": [C(c) for c in deck],
        "discard": [C(c) for c in discard],
        "peeked": [],
        "hands": [[C(c) for c in h] for h in hands],
        "domains": [[C(c) for c in d] for d in domains],
        "display": [[C(c) for c in stack] for stack in display],
        "seat": seat,
        "phase": rules.PLAY,
        "resolving": -1,
        "donating": -1,
        "peek_seat": -1,
        "outcome": 0,
        "turn": 0,
        "last_player": -1,
    }
    state = rules.State._read_fields(data)  # the table before its turn begins ...
    rules._start_turn(state)  # ... a peek or play decision, or an automatic draw
    return rules.State.from_dict(state.to_dict())  # validates the table


def env_with(state: rules.State, **config) -> raw_env:
    """A raw env reset to ``state`` (config must match its player count and limit)."""
    config.setdefault("num_players", state.num_players)
    config.setdefault("difficulty", state.limit)
    env = raw_env(**config)
    env.reset(options={"state": state.to_dict()})
    return env


def names(cards) -> list[str]:
    from braincards.envs.the_brain.cards import card_name

    return sorted(card_name(c) for c in cards)
