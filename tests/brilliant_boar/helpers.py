"""Scripted Brilliant Boar tables for the rule tests."""

from __future__ import annotations

from braincards.envs.brilliant_boar import rules
from braincards.envs.brilliant_boar.cards import COPIES, MOTIF_OF, MOTIFS, NUM_CARDS
from braincards.envs.brilliant_boar.env import raw_env


class Cards:
    """Hands out distinct card ids by motif name: ``k("wolf")`` -> the next unused wolf."""

    def __init__(self):
        self.used: set[int] = set()

    def __call__(self, motif: str) -> int:
        m = MOTIFS.index(motif)
        for c in range(m * COPIES, (m + 1) * COPIES):
            if c not in self.used:
                self.used.add(c)
                return c
        raise AssertionError(f"all six {motif} cards are already used")

    def many(self, motifs) -> list[int]:
        return [self(m) for m in motifs]

    def rest(self, motifs: list[int]) -> list[int]:
        """Every not yet used card of the given motif indices."""
        out = [c for c in range(NUM_CARDS) if MOTIF_OF[c] in motifs and c not in self.used]
        self.used.update(out)
        return out


def table(
    num_players: int = 2,
    *,
    pile=(),
    hands=None,
    middle=(),
    won=None,
    errors=(),
    seat: int = 0,
    level: int = 4,
    name_card: bool = False,
    motifs=None,
    fill_won: tuple[int, ...] | None = None,
) -> rules.State:
    """A State with the given piles (motif names; ``pile[0]`` is the face-up top), with
    ``seat`` to start its turn (skipped on by R-W4 if it has no legal action).

    ``fill_won=(a, b, ...)``: after the named cards, seat i's won pile gets ``a``, ``b``,
    ... of the remaining cards of the motifs in play (for end-of-game tables).
    """
    k = Cards()
    hands = hands or [[] for _ in range(num_players)]
    won = won or [[] for _ in range(num_players)]
    if motifs is None:
        motifs = list(range(rules.LEVELS[level])) if level < 4 else list(range(9))
    data = {
        "num_players": num_players,
        "level": level,
        "name_card": name_card,
        "motifs": sorted(MOTIFS.index(m) if isinstance(m, str) else m for m in motifs),
        "pile": k.many(pile),
        "hands": [k.many(h) for h in hands],
        "middle": k.many(middle),
        "won": [k.many(w) for w in won],
        "errors": k.many(errors),
        "seat": seat,
        "phase": rules.TURN,
        "pending": -1,
        "turn": 0,
    }
    if fill_won:
        rest = k.rest(data["motifs"])
        for i, count in enumerate(fill_won):
            data["won"][i] += rest[:count]
            rest = rest[count:]
    state = rules.State.__new__(rules.State)
    for key, value in data.items():
        setattr(state, key, value)
    if not rules._check_end(state):
        rules._start_turn(state)
    return rules.State.from_dict(state.to_dict())  # validates the table


def env_with(state: rules.State, **config) -> raw_env:
    """A raw env reset to ``state`` (config must match its player count, level, variant)."""
    config.setdefault("num_players", state.num_players)
    config.setdefault("level", state.level)
    config.setdefault("name_card", state.name_card)
    env = raw_env(**config)
    env.reset(options={"state": state.to_dict()})
    return env


def motifs_of(cards) -> list[str]:
    return [MOTIFS[MOTIF_OF[c]] for c in cards]


def play(position: int, motif: str | None = None) -> int:
    return rules.play_action(position, None if motif is None else MOTIFS.index(motif))
