"""Brainwaves: The Brilliant Boar: pure rules engine (rulings R-W1..R-W9, see docs/rulings.md).

Plain Python over small ints and lists: no PettingZoo, gymnasium or numpy. A game is a
:class:`State`; :func:`legal_actions` lists what the seat to move may do and
:func:`apply_action` carries one decision out (validating it on its own, so the two can
be checked against each other), then runs the game forward to the next decision.

Actions (one space for every decision; the decision kind says which are legal). The
numbering is the same for every level and player count; only ``name_card`` adds the
named plays at the end:

===============  ================================================================
0                draw the pile's top card (TURN)
1..54            play the card at hand position 0..53 (TURN, ``name_card=False``)
55               take the pile's top card for the pair (CHOOSE)
56               take the matching card from the middle for the pair (CHOOSE)
57..542          play the card at position p naming motif m: 57 + 9 * p + m
                 (TURN, ``name_card=True`` only)
===============  ================================================================

A hand can never hold more than the 54 cards that exist, so 54 positions always suffice.
"""

from __future__ import annotations

import numbers
import random
from dataclasses import dataclass

from ..core.config import check_bool, check_card_list, check_int
from ..core.errors import IllegalActionError
from ..core.state import RulesState
from .cards import LEVELS, MOTIF_OF, MOTIFS, NUM_CARDS, NUM_MOTIFS, cards_of

MAX_PLAYERS = 4
MAX_HAND = NUM_CARDS  # hand positions 0..53

# Decision kinds (state.phase); OVER once the game has ended.
TURN, CHOOSE, OVER = range(3)
DECISIONS = ("turn", "choose")

DRAW = 0
PLAY = 1  # PLAY + p
TAKE_TOP = PLAY + MAX_HAND  # 55
TAKE_MIDDLE = TAKE_TOP + 1  # 56
NAMED = TAKE_MIDDLE + 1  # 57: NAMED + NUM_MOTIFS * p + m
NUM_ACTIONS_PLAIN = NAMED
NUM_ACTIONS_NAMED = NAMED + MAX_HAND * NUM_MOTIFS  # 543

REWARD_MODES = ("rank", "score")


def num_actions(name_card: bool) -> int:
    """Size of the action space: 57, or 543 with the name-a-card variant (R-W6)."""
    return NUM_ACTIONS_NAMED if name_card else NUM_ACTIONS_PLAIN


def play_action(position: int, motif: int | None = None) -> int:
    """The action that plays hand position ``position`` (naming ``motif`` under R-W6)."""
    if motif is None:
        return PLAY + position
    return NAMED + NUM_MOTIFS * position + motif


@dataclass(frozen=True)
class Config:
    """Rule options of one game (validated: every bad value raises a clear ValueError)."""

    num_players: int = 3
    level: int = 4
    name_card: bool = False

    def __post_init__(self):
        check_int("num_players", self.num_players, 1, MAX_PLAYERS)
        check_int("level", self.level, 1, len(LEVELS))
        check_bool("name_card", self.name_card)

    @property
    def num_motifs(self) -> int:
        return LEVELS[self.level]

    @property
    def num_actions(self) -> int:
        return num_actions(self.name_card)


def check_motifs(name: str, motifs, level: int) -> list[int]:
    """Motifs in play given by name (``"wolf"``) or index (1); exactly as many as the
    level uses (R-W1), no repeats. Returns the sorted motif indices."""
    want = LEVELS[level]
    if isinstance(motifs, (str, bytes)) or not isinstance(motifs, (list, tuple)):
        raise ValueError(f"{name} must be a list of {want} motifs, got {motifs!r}")
    out = []
    for m in motifs:
        if isinstance(m, str) and m in MOTIFS:
            out.append(MOTIFS.index(m))
        elif not isinstance(m, bool) and isinstance(m, numbers.Integral) and 0 <= m < NUM_MOTIFS:
            out.append(int(m))
        else:
            raise ValueError(
                f"{name} holds {m!r}, which is not a motif; allowed: {list(MOTIFS)} "
                f"or their indices 0..{NUM_MOTIFS - 1}"
            )
    if len(set(out)) != len(out):
        raise ValueError(f"{name}={list(motifs)!r} names a motif twice")
    if len(out) != want:
        raise ValueError(
            f"{name} must list exactly {want} motifs at level {level} (R-W1), got {len(out)}"
        )
    return sorted(out)


class State(RulesState):
    """The whole table. Seats are absolute (0..num_players-1).

    ``pile[0]`` is the pile's face-up top card (R-W2); hands are ordered, new cards at the
    end (R-W3); ``middle`` lists the face-up cards in the order they were played;
    ``won[s]`` is seat s's pile of won cards; ``errors`` the solo error stack (R-W8);
    ``pending`` the played card waiting for the CHOOSE decision (-1 when none).
    """

    __slots__ = (
        "num_players", "level", "name_card", "motifs",
        "pile", "hands", "middle", "won", "errors",
        "seat", "phase", "pending", "turn",
    )

    def __init__(self, config: Config, motifs: list[int], pile: list[int], first_player: int):
        n = config.num_players
        self.num_players = n
        self.level = config.level
        self.name_card = config.name_card
        self.motifs = list(motifs)
        self.pile = list(pile)
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.middle: list[int] = []
        self.won: list[list[int]] = [[] for _ in range(n)]
        self.errors: list[int] = []
        self.seat = first_player
        self.phase = TURN
        self.pending = -1
        self.turn = 0

    def cards(self) -> list[int]:
        """Every card in the game, wherever it lies (for conservation checks)."""
        out = self.pile + self.middle + self.errors
        for pile in self.hands:
            out = out + pile
        for pile in self.won:
            out = out + pile
        if self.pending >= 0:
            out.append(self.pending)
        return out

    # ---------------------------------------------------------------- serialization
    GAME = "Brilliant Boar"
    _LISTS = ("motifs", "pile", "middle", "errors")
    _NESTED = ("hands", "won")
    _INTS = ("num_players", "level", "seat", "phase", "pending", "turn")
    _BOOLS = ("name_card",)

    @classmethod
    def _read_list(cls, key: str, value) -> list[int]:
        if key == "motifs":  # checked against the level in from_dict
            return value
        return check_card_list(f"state[{key!r}]", value, range(NUM_CARDS), unique=True)

    @classmethod
    def from_dict(cls, data: dict) -> State:
        """Rebuild a state from :meth:`to_dict` output, checking that it is a real table."""
        s = cls._read_fields(data)
        Config(num_players=s.num_players, level=s.level)  # validates both
        s.motifs = check_motifs("state['motifs']", data["motifs"], s.level)
        if s.motifs != list(data["motifs"]):
            raise ValueError("bad Brilliant Boar state: motifs must be sorted motif indices")
        cards = range(NUM_CARDS)
        n = s.num_players
        for k in cls._NESTED:
            if len(getattr(s, k)) != n:
                raise ValueError(f"bad Brilliant Boar state: {k} must list {n} seats")
        if s.pending != -1 and s.pending not in cards:
            raise ValueError(f"bad Brilliant Boar state: pending={s.pending} is not a card id")
        everything = s.cards()
        if len(set(everything)) != len(everything):
            raise ValueError("bad Brilliant Boar state: a card lies in two places")
        stray = sorted({MOTIFS[MOTIF_OF[c]] for c in everything if MOTIF_OF[c] not in s.motifs})
        if stray:
            raise ValueError(f"bad Brilliant Boar state: cards of motifs {stray}, which are set aside")
        # A hand may hold all 54 cards (a solo game that drew the whole pile, R-W8); the
        # game is then over, so a live hand never needs a 55th position.
        if any(len(h) > MAX_HAND for h in s.hands):
            raise ValueError(f"bad Brilliant Boar state: a hand holds more than {MAX_HAND} cards")
        if n == 1 and s.middle:
            raise ValueError("bad Brilliant Boar state: the solo middle is always empty (R-W8)")
        if n > 1 and s.errors:
            raise ValueError(
                "bad Brilliant Boar state: only the solo game has an error stack (R-W8); "
                "with 2+ players a miss stays in the middle (R-W5)"
            )
        if not s.name_card:
            mids = [MOTIF_OF[c] for c in s.middle]
            if len(set(mids)) != len(mids):
                raise ValueError(
                    "bad Brilliant Boar state: the base game's middle never holds two cards of "
                    "one motif (R-W5; only name_card=True allows it, R-W6)"
                )
        if not 0 <= s.seat < n or not 0 <= s.phase <= OVER:
            raise ValueError(f"bad Brilliant Boar state: seat {s.seat} / phase {s.phase} out of range")
        if (s.phase == OVER) != _game_over(s):
            raise ValueError(
                f"bad Brilliant Boar state: phase {s.phase} does not fit the table "
                f"(the game is {'' if _game_over(s) else 'not '}over by R-W7/R-W8)"
            )
        if s.phase == CHOOSE:
            m = -1 if s.pending < 0 else MOTIF_OF[s.pending]
            if m < 0 or not s.pile or MOTIF_OF[s.pile[0]] != m or _middle_index(s, m) < 0:
                raise ValueError(
                    "bad Brilliant Boar state: a CHOOSE decision needs a pending card whose "
                    "motif matches both the pile's top and a middle card (R-W5)"
                )
        elif s.pending != -1:
            raise ValueError("bad Brilliant Boar state: a pending card outside a CHOOSE decision")
        if s.phase == TURN and not (s.pile or s.hands[s.seat]):
            raise ValueError(
                f"bad Brilliant Boar state: seat {s.seat} has no legal action (R-W4 skips it)"
            )
        return s

# ------------------------------------------------------------------------ setup
def new_game(
    config: Config,
    rng: random.Random,
    deck: list[int] | None = None,
    first_player: int | None = None,
    motifs: list | None = None,
) -> State:
    """Set the motifs aside, shuffle (or take the scripted ``deck``), pick the first seat.

    - ``motifs``: the motifs in play (names or indices, as many as the level uses). When
      not given they are drawn from ``rng`` (R-W1); with a scripted ``deck`` the deck's
      own motifs are always in play and any others the level needs are drawn from ``rng``.
    - ``deck``: card ids in draw order (``deck[0]`` is the face-up top). It may hold any
      subset of the cards of the motifs in play (the rest are out of the game), so short
      scripted games are possible.
    - ``first_player``: the starting seat; drawn from ``rng`` when not given (R-W5).
    The RNG is used in that order: motifs, shuffle, first seat.
    """
    k = config.num_motifs
    if deck is not None:
        deck = check_card_list("deck", deck, range(NUM_CARDS), unique=True)
    if motifs is not None:
        motifs = check_motifs("motifs", motifs, config.level)
        if deck is not None:
            stray = sorted({MOTIFS[MOTIF_OF[c]] for c in deck if MOTIF_OF[c] not in motifs})
            if stray:
                raise ValueError(
                    f"deck holds cards of motifs {stray}, which are set aside; motifs in "
                    f"play: {[MOTIFS[m] for m in motifs]}"
                )
    else:
        used = [] if deck is None else sorted({MOTIF_OF[c] for c in deck})
        if len(used) > k:
            raise ValueError(
                f"deck holds cards of {len(used)} motifs {[MOTIFS[m] for m in used]}; level "
                f"{config.level} plays with {k} motifs (R-W1)"
            )
        rest = [m for m in range(NUM_MOTIFS) if m not in used]
        motifs = sorted(used + rng.sample(rest, k - len(used)))
    if deck is None:
        deck = [c for m in motifs for c in cards_of(m)]
        rng.shuffle(deck)
    n = config.num_players
    if first_player is None:
        first_player = 0 if n == 1 else rng.randrange(n)
    else:
        first_player = check_int("first_player", first_player, 0, n - 1)
    state = State(config, motifs, deck, first_player)
    if not _check_end(state):
        _start_turn(state)
    return state


# ------------------------------------------------------------------------ queries
def current_seat(state: State) -> int:
    """The seat that decides now (-1 once the game is over)."""
    return -1 if state.phase == OVER else state.seat


def is_terminal(state: State) -> bool:
    return state.phase == OVER


def legal_actions(state: State) -> list[int]:
    """Every legal action of the seat to move, ascending (empty when the game is over)."""
    phase = state.phase
    if phase == TURN:
        acts = [DRAW] if state.pile else []
        h = len(state.hands[state.seat])
        if state.name_card:
            motifs = state.motifs
            for p in range(h):
                base = NAMED + NUM_MOTIFS * p
                acts.extend([base + m for m in motifs])
        else:
            acts.extend(range(PLAY, PLAY + h))
        return acts
    if phase == CHOOSE:
        return [TAKE_TOP, TAKE_MIDDLE]
    return []


def scores(state: State) -> list[int]:
    """Points per seat: cards won minus cards in hand (R-W7), minus the error stack in
    solo (R-W8). Meaningful at the end; mid-game it is the score if the game ended now."""
    if state.num_players == 1:
        return [len(state.won[0]) - len(state.errors) - len(state.hands[0])]
    return [len(w) - len(h) for w, h in zip(state.won, state.hands, strict=True)]


def returns(state: State, reward: str = "rank", normalize: bool = False) -> list[float]:
    """Final rewards. ``"rank"`` (2+ players, R-W7 as R-O10): the k seats with the most
    points share +1 equally, the others share -1 equally; all tied = 0. ``"score"`` (and
    always in solo, R-W8): the raw scores, divided by the number of cards in the game when
    ``normalize`` (so they lie in [-1, 1])."""
    pts = scores(state)
    n = len(pts)
    if n == 1 or reward == "score":
        if normalize:
            total = len(state.cards())
            return [p / total if total else 0.0 for p in pts]
        return [float(p) for p in pts]
    best = max(pts)
    k = pts.count(best)
    if k == n:
        return [0.0] * n
    win, lose = 1.0 / k, -1.0 / (n - k)
    return [win if p == best else lose for p in pts]


# ------------------------------------------------------------------------ transition
def _illegal(state: State, action, why: str):
    kind = "game over" if state.phase == OVER else DECISIONS[state.phase]
    raise IllegalActionError(f"{why} (decision: {kind})", action)


def _middle_index(state: State, motif: int) -> int:
    """The first (oldest) middle card of ``motif``, or -1."""
    for i, c in enumerate(state.middle):
        if MOTIF_OF[c] == motif:
            return i
    return -1


def apply_action(state: State, action: int) -> None:
    """Carry out ``action`` for the seat to move, then run on to the next decision.

    Raises IllegalActionError (before changing anything) when the rules do not accept it.
    """
    phase = state.phase
    if phase == OVER:
        _illegal(state, action, "the game is over")
    limit = NUM_ACTIONS_NAMED if state.name_card else NUM_ACTIONS_PLAIN
    if type(action) is not int or not 0 <= action < limit:
        _illegal(state, action, f"actions are integers 0..{limit - 1}")
    seat = state.seat
    if phase == TURN:
        hand = state.hands[seat]
        if action == DRAW:
            if not state.pile:
                _illegal(state, action, "the draw pile is empty, so a card must be played (R-W4)")
            hand.append(state.pile.pop(0))  # R-W3: appended at the end
            _end_turn(state)
        elif action < TAKE_TOP:
            if state.name_card:
                _illegal(state, action, "name_card=True: a play must name a motif (R-W6)")
            p = action - PLAY
            if p >= len(hand):
                _illegal(state, action, f"seat {seat} has {len(hand)} card(s), no position {p}")
            _play(state, p, -1)
        elif action >= NAMED:
            p, m = divmod(action - NAMED, NUM_MOTIFS)
            if p >= len(hand):
                _illegal(state, action, f"seat {seat} has {len(hand)} card(s), no position {p}")
            if m not in state.motifs:
                _illegal(state, action, f"{MOTIFS[m]} is not in play; name one of the motifs in play (R-W6)")
            _play(state, p, m)
        else:
            _illegal(state, action, "no choice between pile and middle is pending")
    else:  # CHOOSE
        if action == TAKE_TOP:
            other = state.pile.pop(0)
        elif action == TAKE_MIDDLE:
            other = state.middle.pop(_middle_index(state, MOTIF_OF[state.pending]))
        else:
            _illegal(state, action, "choose the pile's top or the middle card for the pair (R-W5)")
        state.won[seat] += (state.pending, other)
        state.pending = -1
        _after_match(state)


def _play(state: State, position: int, named: int) -> None:
    """R-W5/R-W6/R-W8: the card at ``position`` is played (naming ``named``, or -1)."""
    seat = state.seat
    card = state.hands[seat].pop(position)
    motif = MOTIF_OF[card]
    if named < 0 or named == motif:
        pile = state.pile
        top = bool(pile) and MOTIF_OF[pile[0]] == motif
        mid = _middle_index(state, motif) if state.middle else -1
        if top and mid >= 0:  # R-W5: the seat chooses which one to take
            state.pending = card
            state.phase = CHOOSE
            return
        if top:
            state.won[seat] += (card, pile.pop(0))
            _after_match(state)
            return
        if mid >= 0:
            state.won[seat] += (card, state.middle.pop(mid))
            _after_match(state)
            return
    # a miss
    if state.num_players == 1:  # R-W8: the card and the pile's top go to the error stack
        state.errors.append(card)
        if state.pile:
            state.errors.append(state.pile.pop(0))
    else:
        state.middle.append(card)  # R-W5 / R-W6: it stays face up in the middle
    _end_turn(state)


def _game_over(state: State) -> bool:
    """R-W7 (pile empty and at most one seat holds cards) / R-W8 (solo: pile empty)."""
    if state.pile:
        return False
    if state.num_players == 1:
        return True
    holders = 0
    for h in state.hands:
        if h:
            holders += 1
    return holders <= 1


def _check_end(state: State) -> bool:
    if state.pending < 0 and _game_over(state):
        state.phase = OVER
        return True
    return False


def _after_match(state: State) -> None:
    """R-W5: a match earns another turn, unless the game has just ended (R-W7)."""
    if _check_end(state):
        return
    state.turn += 1
    _start_turn(state)


def _end_turn(state: State) -> None:
    if _check_end(state):
        return
    state.seat = (state.seat + 1) % state.num_players
    state.turn += 1
    _start_turn(state)


def _start_turn(state: State) -> None:
    """R-W4: the first seat from ``state.seat`` on that has a legal action decides."""
    n = state.num_players
    pile = state.pile
    for _ in range(n):
        if pile or state.hands[state.seat]:
            state.phase = TURN
            return
        state.seat = (state.seat + 1) % n
    raise RuntimeError("Brilliant Boar rules found no seat to move; this is a bug")  # pragma: no cover
