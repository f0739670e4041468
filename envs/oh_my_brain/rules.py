"""Oh My Brain: pure rules engine (rulings R-O1..R-O11, see docs/rulings.md).

Plain Python over small ints and lists: no PettingZoo, gymnasium or numpy. A game is a
:class:`State`; :func:`legal_actions` lists what the seat to move may do and
:func:`apply_action` carries one decision out (validating it on its own, so the two can
be checked against each other), then runs the game forward to the next decision: the
die, the reshuffles, refills without a choice and round ends are resolved on the way.

Copies of a value are identical, so a card *is* its value (0..19). Hands, graveyards and
the discard pile are counts per value; the reserve and the horde are lists of values
(``reserve[0]`` is drawn next, ``horde[-1]`` is the top).

Actions (one space for every decision; the decision kind says what they mean).
``maxc`` is the largest number of copies of one value in the deck (3 by default):

=================  ====================================================================
0                  pass (PLAY only)
1..20              value v = action - 1: the card to put in the graveyard (DRAFT), to
                   keep in hand (KEEP), to take from the graveyard (REFILL), to give
                   (GIVE_CARD)
21..24             the opponent k = action - 20 seats after the acting seat: receives an
                   extra card (EXTRA_TARGET), a given card (GIVE_TARGET), is robbed of a
                   brain (STEAL)
25..28             exchange hands with the opponent k = action - 24 seats after (EXCHANGE)
29..32             exchange graveyards with the opponent k = action - 28 seats after
33..               play k copies of value v: 33 + v * maxc + (k - 1)   (PLAY, RESTART)
=================  ====================================================================
"""

from __future__ import annotations

import numbers
import random
from dataclasses import dataclass

from ..core.config import check_int, check_sequence
from ..core.errors import IllegalActionError
from ..core.state import RulesState
from .cards import (
    DEFAULT_DECK,
    DEFAULT_MARSHMALLOWS,
    MOUSE,
    NUM_VALUES,
    SPECIAL_VALUES,
    SPIDER,
    expand,
)

MIN_PLAYERS, MAX_PLAYERS = 2, 5
MAX_CARDS = 255  # deck size bound (the env encodes counts and sizes as bytes)
MAX_STARTING_BRAINS = 100
HAND_TARGET = 3  # refill up to 3 cards (R-O8)
DRAFT_PASSES = 3  # three batches of three cards per seat (R-O3)
BATCH = 3

# Decision kinds (state.phase); OVER once the game has ended.
(DRAFT, PLAY, RESTART, EXTRA_TARGET, KEEP, REFILL, GIVE_CARD, GIVE_TARGET, STEAL,
 EXCHANGE, OVER) = range(11)
DECISIONS = (
    "draft",  # choose which of the 3 dealt cards goes to the graveyard (R-O3)
    "play",  # play k cards of one value, or pass (R-O4, R-O5)
    "restart",  # after a pass: play to the new, empty horde; passing is not allowed (R-O5)
    "extra_target",  # the opponent whose graveyard receives the next extra copy (R-O4)
    "keep",  # after a pass: which drawn card stays in hand (R-O5)
    "refill",  # which graveyard card goes to the hand (R-O8)
    "give_card",  # die face 1: which hand card is given (R-O7)
    "give_target",  # die face 1: which opponent receives it (R-O7)
    "steal",  # die face 3: which opponent loses a brain to you (R-O7)
    "exchange",  # die face 5: opponent and hand/graveyard (R-O7)
)

PASS = 0
VALUE_ACTION = 1  # 1..20
OPPONENT_ACTION = 1 + NUM_VALUES  # 21..24
EXCHANGE_HAND = OPPONENT_ACTION + MAX_PLAYERS - 1  # 25..28
EXCHANGE_GRAVE = EXCHANGE_HAND + MAX_PLAYERS - 1  # 29..32
PLAY_ACTION = EXCHANGE_GRAVE + MAX_PLAYERS - 1  # 33..


def play_action(value: int, count: int, maxc: int) -> int:
    """The action that plays ``count`` copies of ``value``."""
    return PLAY_ACTION + value * maxc + count - 1


def num_actions(maxc: int) -> int:
    """Size of the action space for a deck holding at most ``maxc`` copies of a value."""
    return PLAY_ACTION + NUM_VALUES * maxc


def max_copies_of(actions: int) -> int:
    """``maxc`` from the size of the action space (:func:`num_actions` read backwards)."""
    return max(1, (actions - PLAY_ACTION) // NUM_VALUES)


def played(action: int, maxc: int) -> tuple[int, int]:
    """A play action (``>= PLAY_ACTION``) -> ``(value, count)``, :func:`play_action` read backwards."""
    return (action - PLAY_ACTION) // maxc, (action - PLAY_ACTION) % maxc + 1


def chosen_value(action: int) -> int:
    """A value action (draft, keep, refill, give card) -> the card value it chooses."""
    return action - VALUE_ACTION


def opponent_of(action: int) -> int:
    """An opponent, exchange-hand or exchange-graveyard action -> the opponent k = 1..n-1 seats
    after the deciding one."""
    for base in (EXCHANGE_GRAVE, EXCHANGE_HAND, OPPONENT_ACTION):
        if action >= base:
            return action - base + 1
    raise ValueError(f"action {action} names no opponent")


# ------------------------------------------------------------------------ config
def _normalize_deck(deck) -> tuple[int, ...]:
    """``{value: copies}`` -> copies per value (a tuple of 20 counts), validated (R-O2)."""
    if not isinstance(deck, dict) or not deck:
        raise ValueError(
            f"deck={deck!r} must be a non-empty dict {{value: copies}} with values 0..19 "
            "and positive integer copies"
        )
    copies = [0] * NUM_VALUES
    for v, c in deck.items():
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 0 <= v < NUM_VALUES:
            raise ValueError(f"deck has the value {v!r}; allowed values: integers 0..19")
        if isinstance(c, bool) or not isinstance(c, numbers.Integral) or c < 1:
            raise ValueError(f"deck[{v}]={c!r} copies; allowed: positive integers")
        copies[int(v)] = int(c)
    return tuple(copies)


def _normalize_marshmallows(values, copies) -> tuple[int, ...]:
    values = check_sequence("marshmallow_values", values, "card values 0..19", ordered=False)
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 0 <= v < NUM_VALUES:
            raise ValueError(f"marshmallow_values holds {v!r}; allowed: integers 0..19")
        if v in SPECIAL_VALUES:
            raise ValueError(
                f"marshmallow_values holds {v}; the special values {list(SPECIAL_VALUES)} "
                "(mosquito, spider, mouse) cannot be marshmallows (R-O7)"
            )
        if not copies[int(v)]:
            raise ValueError(f"marshmallow_values holds {v}, which has no copies in the deck")
        if int(v) in out:
            raise ValueError(f"marshmallow_values holds {v} twice")
        out.append(int(v))
    return tuple(sorted(out))


@dataclass(frozen=True)
class Config:
    """Rule options of one game (validated: every bad value raises a clear ValueError).

    ``deck`` is ``{value: copies}`` (None = the R-O2 table) and is stored normalized as a
    tuple of 20 counts; ``marshmallow_values`` likewise (None = 1, 2, 18, 19).
    """

    num_players: int = 3
    starting_brains: int = 9
    deck: object = None
    marshmallow_values: object = None

    def __post_init__(self):
        check_int("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        check_int("starting_brains", self.starting_brains, 1, MAX_STARTING_BRAINS)
        copies = _normalize_deck(DEFAULT_DECK if self.deck is None else self.deck)
        need = DRAFT_PASSES * BATCH * self.num_players
        if sum(copies) < need:
            raise ValueError(
                f"deck has {sum(copies)} cards; the draft of {self.num_players} players needs "
                f"at least {need} (R-O3)"
            )
        if sum(copies) > MAX_CARDS:
            raise ValueError(f"deck has {sum(copies)} cards; allowed: at most {MAX_CARDS}")
        marsh = DEFAULT_MARSHMALLOWS if self.marshmallow_values is None else self.marshmallow_values
        object.__setattr__(self, "deck", copies)
        object.__setattr__(self, "marshmallow_values", _normalize_marshmallows(marsh, copies))

    @property
    def max_copies(self) -> int:
        return max(self.deck)

    @property
    def num_cards(self) -> int:
        return sum(self.deck)

    @property
    def num_actions(self) -> int:
        return num_actions(self.max_copies)


# ------------------------------------------------------------------------ state
class State(RulesState):
    """The whole table. Seats are absolute (0..num_players-1).

    ``phase`` is the pending decision of ``seat``. ``pending`` holds the dealt batch
    (DRAFT) or the two drawn cards (KEEP); ``extras`` the extra copies still to send
    (EXTRA_TARGET, their value is the horde's top); ``give`` the value chosen on face 1.
    """

    __slots__ = (
        "num_players", "starting_brains", "copies", "marshmallows", "maxc", "is_marsh",
        "brains", "hands", "graves", "reserve", "discard", "horde", "spider",
        "seat", "phase", "passed", "mouse", "extras", "pending", "give",
        "start_seat", "draft_count", "round", "turn", "die", "dice",
        "face_counts", "reshuffles", "rng_key", "hsize", "gsize",
    )

    _INTS = ("num_players", "starting_brains", "seat", "phase", "extras", "give",
             "start_seat", "draft_count", "round", "turn", "die", "reshuffles", "rng_key")
    _BOOLS = ("spider", "passed", "mouse")
    _LISTS = ("copies", "marshmallows", "brains", "reserve", "discard", "horde", "pending",
              "dice", "face_counts")
    _NESTED = ("hands", "graves")

    def _derive(self) -> None:
        self.maxc = max(self.copies)
        marsh = [False] * NUM_VALUES
        for v in self.marshmallows:
            marsh[v] = True
        self.is_marsh = tuple(marsh)

    def cards(self) -> list[int]:
        """Every card in the game (its value), wherever it lies (for conservation checks)."""
        total = [sum(col) for col in zip(self.discard, *self.hands, *self.graves, strict=True)]
        out = expand(total) + self.reserve + self.horde + self.pending
        if self.extras:  # extra copies on their way to opponents' graveyards (R-O4)
            out += [self.horde[-1]] * self.extras
        return out

    def counts(self) -> list[int]:
        """Count per value of :meth:`cards`."""
        total = [0] * NUM_VALUES
        for v in self.cards():
            total[v] += 1
        return total

    def _count_sizes(self) -> None:
        """``hsize`` / ``gsize``: cards per seat in hand / graveyard (derived, kept up to
        date by every move, not serialized)."""
        self.hsize = [sum(p) for p in self.hands]
        self.gsize = [sum(p) for p in self.graves]

    # ---------------------------------------------------------------- serialization
    GAME = "Oh My Brain"

    # fields holding a count per card value, and the largest count allowed: a deck holds
    # at most MAX_CARDS cards (checked before anything is allocated from a count)
    _COUNTS = ("hands", "graves", "discard", "copies")
    # fields listing card values (0..19) or die faces (1..6)
    _VALUES = {"reserve": (0, NUM_VALUES - 1), "horde": (0, NUM_VALUES - 1),
               "pending": (0, NUM_VALUES - 1), "marshmallows": (0, NUM_VALUES - 1),
               "dice": (1, 6)}

    @classmethod
    def _read_list(cls, key: str, value) -> list[int]:
        if key in cls._COUNTS:
            return _int_list(key, value, NUM_VALUES, hi=MAX_CARDS)
        if key in cls._VALUES:
            lo, hi = cls._VALUES[key]
            return _int_list(key, value, lo=lo, hi=hi)
        return _int_list(key, value, 6 if key == "face_counts" else None)

    @classmethod
    def from_dict(cls, data: dict) -> State:
        """Rebuild a state from :meth:`to_dict` output, checking that it is a real table."""
        s = cls._read_fields(data)
        cfg = Config(
            num_players=s.num_players,
            starting_brains=s.starting_brains,
            deck={v: c for v, c in enumerate(s.copies) if c},
            marshmallow_values=s.marshmallows,
        )
        s.copies = list(cfg.deck)
        s.marshmallows = list(cfg.marshmallow_values)
        s._derive()
        n = s.num_players
        if len(s.hands) != n or len(s.graves) != n or len(s.brains) != n:
            raise ValueError(f"bad Oh My Brain state: hands/graves/brains must list {n} seats")
        s._count_sizes()
        for k in ("seat", "phase", "extras", "start_seat", "draft_count", "turn", "die",
                  "reshuffles"):
            if getattr(s, k) < 0:  # only ``give`` may be -1 (no card chosen)
                raise ValueError(f"bad Oh My Brain state: {k} must be >= 0, got {getattr(s, k)}")
        if s.round < 1:
            raise ValueError(f"bad Oh My Brain state: round must be >= 1, got {s.round}")
        if s.extras and not s.horde:  # R-O4: the extra copies are copies of the horde's top
            raise ValueError("bad Oh My Brain state: extras need a horde (they copy its top)")
        # before counting the cards (extras copies of the horde's top are on their way)
        if s.extras >= s.maxc:
            raise ValueError(
                f"bad Oh My Brain state: extras={s.extras}; at most {s.maxc - 1} extra copies "
                "of one value can be on their way (R-O4)"
            )
        if s.die > 6:
            raise ValueError(f"bad Oh My Brain state: die={s.die}; allowed: 0 (none yet) or 1..6")
        if s.give >= NUM_VALUES:
            raise ValueError(f"bad Oh My Brain state: give={s.give}; allowed: -1 or a value 0..19")
        if s.counts() != s.copies:
            raise ValueError(
                f"bad Oh My Brain state: the cards on the table {s.counts()} do not match the "
                f"deck {s.copies}"
            )
        if not 0 <= s.seat < n or not 0 <= s.phase <= OVER or not 0 <= s.start_seat < n:
            raise ValueError(f"bad Oh My Brain state: seat {s.seat} / phase {s.phase} out of range")
        if not 0 <= s.rng_key <= _MASK64:
            raise ValueError("bad Oh My Brain state: rng_key must be a 64-bit integer >= 0")
        want = {DRAFT: BATCH, KEEP: 2}.get(s.phase, 0)
        if len(s.pending) != want:
            raise ValueError(
                f"bad Oh My Brain state: phase {s.phase} needs {want} pending cards, "
                f"got {len(s.pending)}"
            )
        if (s.phase == EXTRA_TARGET) != (s.extras > 0) or (s.extras and not s.horde):
            raise ValueError("bad Oh My Brain state: extras only while choosing their target")
        if (s.phase == GIVE_TARGET) != (s.give >= 0) or (
            s.give >= 0 and not s.hands[s.seat][s.give]
        ):
            raise ValueError("bad Oh My Brain state: give only while choosing its target")
        draft_done = DRAFT_PASSES * n
        if s.phase == DRAFT:  # R-O3: batch number draft_count goes to start_seat + draft_count - 1
            seat = (s.start_seat + s.draft_count - 1) % n
            if not 1 <= s.draft_count <= draft_done or s.seat != seat:
                raise ValueError(
                    f"bad Oh My Brain state: draft_count {s.draft_count} / seat {s.seat} do not "
                    f"fit a draft of {draft_done} batches from seat {s.start_seat}"
                )
            _check_draft(s)
        elif s.draft_count != draft_done:
            raise ValueError(
                f"bad Oh My Brain state: draft_count must be {draft_done} once the draft is over, "
                f"got {s.draft_count}"
            )
        if s.phase in (KEEP, RESTART) and s.horde:
            raise ValueError(
                f"bad Oh My Brain state: decision {DECISIONS[s.phase]} follows a pass, which "
                "discarded the horde; the horde must be empty (R-O5)"
            )
        if s.spider and (not s.horde or s.horde[-1] != SPIDER):
            raise ValueError(
                "bad Oh My Brain state: the spider restriction needs a spider on top (R-O4)"
            )
        if s.mouse and (s.phase not in (REFILL, OVER) or s.horde):
            raise ValueError(
                "bad Oh My Brain state: mouse is set only during the mouse's own refill (or at the "
                "game end it caused), with the horde discarded (R-O6)"
            )
        if s.phase != OVER and not all(s.brains):
            raise ValueError(
                "bad Oh My Brain state: a seat has 0 brains but the game goes on (R-O10)"
            )
        if s.phase != OVER and not legal_actions(s):
            raise ValueError(
                f"bad Oh My Brain state: the seat to move has no legal action in decision "
                f"{DECISIONS[s.phase]}"
            )
        return s

    def copy(self) -> State:
        s = State.__new__(State)
        s.num_players = self.num_players
        s.starting_brains = self.starting_brains
        s.copies = self.copies  # never mutated
        s.marshmallows = self.marshmallows  # never mutated
        s.maxc = self.maxc
        s.is_marsh = self.is_marsh
        s.brains = self.brains[:]
        s.hands = [p[:] for p in self.hands]
        s.graves = [p[:] for p in self.graves]
        s.hsize = self.hsize[:]
        s.gsize = self.gsize[:]
        s.reserve = self.reserve[:]
        s.discard = self.discard[:]
        s.horde = self.horde[:]
        s.spider = self.spider
        s.seat = self.seat
        s.phase = self.phase
        s.passed = self.passed
        s.mouse = self.mouse
        s.extras = self.extras
        s.pending = self.pending[:]
        s.give = self.give
        s.start_seat = self.start_seat
        s.draft_count = self.draft_count
        s.round = self.round
        s.turn = self.turn
        s.die = self.die
        s.dice = self.dice[:]
        s.face_counts = self.face_counts[:]
        s.reshuffles = self.reshuffles
        s.rng_key = self.rng_key
        return s


def _check_draft(s: State) -> None:
    """R-O3: mid-draft, the reserve still feeds every batch to come, nothing has been
    played yet, and each seat holds exactly what its batches so far gave it."""
    n = s.num_players
    left = DRAFT_PASSES * n - s.draft_count  # batches still to deal after the pending one
    if len(s.reserve) < BATCH * left:
        raise ValueError(
            f"bad Oh My Brain state: the reserve holds {len(s.reserve)} cards but the rest of "
            f"the draft deals {left} more batches of {BATCH} (R-O3)"
        )
    if s.horde or any(s.discard) or s.spider or s.mouse:
        raise ValueError(
            "bad Oh My Brain state: during the draft nothing has been played yet: the horde "
            "and the discard pile are empty, no spider or mouse is in effect (R-O3)"
        )
    for seat in range(n):
        batches = sum((s.start_seat + k) % n == seat for k in range(s.draft_count - 1))
        if s.gsize[seat] != batches or s.hsize[seat] != 2 * batches:
            raise ValueError(
                f"bad Oh My Brain state: during the draft seat {seat} holds {s.hsize[seat]} "
                f"hand and {s.gsize[seat]} graveyard cards; its {batches} batch(es) so far gave "
                f"it {2 * batches} and {batches} (R-O3)"
            )


def _int_list(
    name: str, value, length: int | None = None, *, lo: int = 0, hi: int | None = None
) -> list[int]:
    """``value``, a list of ints in ``lo..hi`` (of ``length`` entries), or a ValueError
    naming the field."""
    if not isinstance(value, list) or any(
        isinstance(x, bool) or not isinstance(x, numbers.Integral) or x < lo or (hi is not None and x > hi)
        for x in value
    ):
        allowed = f">= {lo}" if hi is None else f"in {lo}..{hi}"
        raise ValueError(f"bad Oh My Brain state: {name} must be a list of integers {allowed}")
    if length is not None and len(value) != length:
        raise ValueError(f"bad Oh My Brain state: {name} must hold {length} entries")
    return [int(x) for x in value]


# ------------------------------------------------------------------------ setup
def check_scripted_deck(deck, copies) -> list[int]:
    """A scripted deck (values in draw order, at most the deck's copies of each)."""
    deck = check_sequence("deck", deck, "card values 0..19 in draw order")
    left = list(copies)
    out = []
    for v in deck:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 0 <= v < NUM_VALUES:
            raise ValueError(f"deck holds {v!r}, which is not a card value; allowed: integers 0..19")
        v = int(v)
        if left[v] <= 0:
            raise ValueError(
                f"deck holds more copies of {v} than the game's deck has ({copies[v]})"
            )
        left[v] -= 1
        out.append(v)
    return out + expand(left)


def check_dice(dice) -> list[int]:
    dice = check_sequence("dice", dice, "die faces 1..6 in rolling order")
    out = []
    for f in dice:
        if isinstance(f, bool) or not isinstance(f, numbers.Integral) or not 1 <= f <= 6:
            raise ValueError(f"dice holds {f!r}; allowed die faces: integers 1..6")
        out.append(int(f))
    return out


def new_game(
    config: Config,
    rng: random.Random,
    deck: list[int] | None = None,
    first_player: int | None = None,
    dice: list[int] | None = None,
) -> State:
    """Set up the first round and run it to the first draft decision.

    ``rng`` picks the starting seat (R-O3, unless ``first_player`` is given) and seeds the
    state's own 64-bit chance key (see :func:`_chance`), which makes every later shuffle,
    die roll and tie-break. A scripted ``deck``
    lists card values in draw order for the first round; it may list only the top of
    the deck (the cards it leaves out follow in ascending order). Scripted ``dice`` are
    rolled first, then the RNG takes over.
    """
    n = config.num_players
    if deck is not None:
        deck = check_scripted_deck(deck, config.deck)
    dice = [] if dice is None else check_dice(dice)
    if first_player is None:
        first_player = rng.randrange(n)
    else:
        first_player = check_int("first_player", first_player, 0, n - 1)
    s = State.__new__(State)
    s.num_players = n
    s.starting_brains = config.starting_brains
    s.copies = list(config.deck)
    s.marshmallows = list(config.marshmallow_values)
    s._derive()
    s.rng_key = rng.getrandbits(64)
    s.brains = [config.starting_brains] * n  # R-O1
    s.dice = dice
    s.face_counts = [0] * 6
    s.reshuffles = 0
    s.round = 0
    s.turn = 0
    s.die = 0
    s.reserve = []
    s.discard = [0] * NUM_VALUES
    s.horde = []
    s.pending = []
    _start_round(s, first_player, deck)
    return s


def _start_round(s: State, start: int, deck: list[int] | None = None) -> None:
    """R-O3 / R-O9: every card is shuffled and re-drafted; ``start`` begins."""
    if deck is None:
        deck = expand(s.copies)
        _shuffle(s, deck)
    n = s.num_players
    s.hands = [[0] * NUM_VALUES for _ in range(n)]
    s.graves = [[0] * NUM_VALUES for _ in range(n)]
    s.hsize = [0] * n
    s.gsize = [0] * n
    s.reserve = deck
    s.discard = [0] * NUM_VALUES
    s.horde = []
    s.pending = []
    s.spider = False
    s.passed = False
    s.mouse = False
    s.extras = 0
    s.give = -1
    s.start_seat = start
    s.draft_count = 0
    s.round += 1
    _next_draft(s)


def _next_draft(s: State) -> None:
    n = s.num_players
    if s.draft_count == DRAFT_PASSES * n:
        _start_turn(s, s.start_seat)
        return
    s.seat = (s.start_seat + s.draft_count) % n
    s.pending = s.reserve[:BATCH]
    del s.reserve[:BATCH]
    s.draft_count += 1
    s.phase = DRAFT


# ------------------------------------------------------------------------ queries
def current_seat(state: State) -> int:
    """The seat that decides now (-1 once the game is over)."""
    return -1 if state.phase == OVER else state.seat


def is_terminal(state: State) -> bool:
    return state.phase == OVER


def returns(state: State) -> list[float]:
    """R-O10: the seats with the most brains share +1, the others share -1 (zero-sum);
    all tied (or the game not over) = 0 for all."""
    n = state.num_players
    if state.phase != OVER:
        return [0.0] * n
    best = max(state.brains)
    winners = [b == best for b in state.brains]
    k = sum(winners)
    if k == n:
        return [0.0] * n
    return [1.0 / k if w else -1.0 / (n - k) for w in winners]


def scores(state: State) -> list[float]:
    """Brains per player (R-O10: the most brains wins)."""
    return [float(b) for b in state.brains[: state.num_players]]


def playable(state: State, value: int) -> bool:
    """R-O4: may ``value`` go on the horde now (ignoring whether the hand holds it)?"""
    if state.spider:
        return value < SPIDER
    horde = state.horde
    return not horde or value == 0 or value > horde[-1]


def legal_actions(state: State) -> list[int]:
    """Every legal action of the seat to move, ascending (empty when the game is over)."""
    phase = state.phase
    seat = state.seat
    if phase in (PLAY, RESTART):
        out = [PASS] if phase == PLAY else []
        hand = state.hands[seat]
        maxc = state.maxc
        if state.spider:
            lo, hi = 0, SPIDER
        elif state.horde:
            lo, hi = state.horde[-1] + 1, NUM_VALUES
            if hand[0]:
                out.extend(range(PLAY_ACTION, PLAY_ACTION + hand[0]))
        else:
            lo, hi = 0, NUM_VALUES
        for v in range(lo, hi):
            c = hand[v]
            if c:
                base = PLAY_ACTION + v * maxc
                out.extend(range(base, base + c))
        return out
    if phase in (DRAFT, KEEP):
        return sorted({VALUE_ACTION + v for v in state.pending})
    if phase == REFILL:
        return [VALUE_ACTION + v for v, c in enumerate(state.graves[seat]) if c]
    if phase == GIVE_CARD:
        return [VALUE_ACTION + v for v, c in enumerate(state.hands[seat]) if c]
    n = state.num_players
    if phase in (EXTRA_TARGET, GIVE_TARGET):
        return list(range(OPPONENT_ACTION, OPPONENT_ACTION + n - 1))
    if phase == STEAL:
        return [OPPONENT_ACTION + k - 1 for k in range(1, n) if state.brains[(seat + k) % n]]
    if phase == EXCHANGE:
        out = [EXCHANGE_HAND + k - 1 for k in range(1, n) if state.hsize[(seat + k) % n]]
        out += [EXCHANGE_GRAVE + k - 1 for k in range(1, n) if state.gsize[(seat + k) % n]]
        return out
    return []


# ------------------------------------------------------------------------ transition
def _illegal(state: State, action, why: str):
    kind = "game over" if state.phase == OVER else DECISIONS[state.phase]
    raise IllegalActionError(f"{why} (decision: {kind})", action)


def _value_of(state: State, action: int) -> int:
    v = action - VALUE_ACTION
    if not 0 <= v < NUM_VALUES:
        _illegal(state, action, f"choose a card value with actions {VALUE_ACTION}..{VALUE_ACTION + 19}")
    return v


def _opponent_of(state: State, action: int, base: int) -> int:
    k = action - base + 1
    n = state.num_players
    if not 1 <= k < n:
        _illegal(state, action, f"choose an opponent with actions {base}..{base + n - 2}")
    return (state.seat + k) % n


def apply_action(state: State, action: int) -> None:
    """Carry out ``action`` for the seat to move, then run on to the next decision.

    Raises IllegalActionError (before changing anything) when the rules do not accept it.
    """
    phase = state.phase
    seat = state.seat
    if phase == OVER:
        _illegal(state, action, "the game is over")
    if type(action) is not int or not 0 <= action < PLAY_ACTION + NUM_VALUES * state.maxc:
        _illegal(state, action, f"actions are integers 0..{PLAY_ACTION + NUM_VALUES * state.maxc - 1}")
    if phase in (PLAY, RESTART):
        if action == PASS:
            if phase == RESTART:
                _illegal(state, action, "after a pass the seat must play to the new horde (R-O5)")
            _pass(state)
            return
        if action < PLAY_ACTION:
            _illegal(state, action, "play cards or pass")
        v, k = divmod(action - PLAY_ACTION, state.maxc)
        k += 1
        hand = state.hands[seat]
        if hand[v] < k:
            _illegal(state, action, f"the hand holds {hand[v]} card(s) of value {v}, not {k}")
        if not playable(state, v):
            why = "after a spider the play must be lower than 8" if state.spider else (
                f"{v} is not higher than the horde's top {state.horde[-1]} and not a 0"
            )
            _illegal(state, action, why + " (R-O4)")
        hand[v] -= k
        state.hsize[seat] -= k
        state.horde.append(v)
        state.spider = False
        if k > 1:
            state.extras = k - 1
            state.phase = EXTRA_TARGET
            return
        _power(state, v)
    elif phase == EXTRA_TARGET:
        target = _opponent_of(state, action, OPPONENT_ACTION)
        state.graves[target][state.horde[-1]] += 1
        state.gsize[target] += 1
        state.extras -= 1
        if not state.extras:
            _power(state, state.horde[-1])
    elif phase in (DRAFT, KEEP):
        v = _value_of(state, action)
        if v not in state.pending:
            _illegal(state, action, f"value {v} is not among the cards {state.pending}")
        rest = list(state.pending)
        rest.remove(v)
        state.pending = []
        if phase == DRAFT:  # the chosen card goes to the graveyard, the others to the hand
            state.graves[seat][v] += 1
            for x in rest:
                state.hands[seat][x] += 1
            state.gsize[seat] += 1
            state.hsize[seat] += len(rest)
            _next_draft(state)
        else:  # the chosen card stays in hand, the other goes to the graveyard
            state.hands[seat][v] += 1
            state.graves[seat][rest[0]] += 1
            state.hsize[seat] += 1
            state.gsize[seat] += 1
            _restart(state)
    elif phase == REFILL:
        v = _value_of(state, action)
        grave = state.graves[seat]
        if not grave[v]:
            _illegal(state, action, f"the graveyard holds no card of value {v}")
        grave[v] -= 1
        state.hands[seat][v] += 1
        state.gsize[seat] -= 1
        state.hsize[seat] += 1
        _refill(state)
    elif phase == GIVE_CARD:
        v = _value_of(state, action)
        if not state.hands[seat][v]:
            _illegal(state, action, f"the hand holds no card of value {v}")
        state.give = v
        state.phase = GIVE_TARGET
    elif phase == GIVE_TARGET:
        target = _opponent_of(state, action, OPPONENT_ACTION)
        state.hands[seat][state.give] -= 1
        state.graves[target][state.give] += 1
        state.hsize[seat] -= 1
        state.gsize[target] += 1
        state.give = -1
        _refill(state)
    elif phase == STEAL:
        target = _opponent_of(state, action, OPPONENT_ACTION)
        if not state.brains[target]:
            _illegal(state, action, f"seat {target} has no brain to steal")
        state.brains[target] -= 1
        state.brains[seat] += 1
        if not state.brains[target]:  # R-O7 face 3 / R-O10: a last brain ends the game
            state.phase = OVER
            return
        _refill(state)
    elif phase == EXCHANGE:
        if action >= PLAY_ACTION or action < EXCHANGE_HAND:
            _illegal(state, action, "choose an exchange")
        hands = action < EXCHANGE_GRAVE
        piles, sizes = (state.hands, state.hsize) if hands else (state.graves, state.gsize)
        target = _opponent_of(state, action, EXCHANGE_HAND if hands else EXCHANGE_GRAVE)
        if not sizes[target]:
            _illegal(state, action, f"seat {target}'s pile is empty; it cannot be exchanged (R-O7)")
        piles[seat], piles[target] = piles[target], piles[seat]
        sizes[seat], sizes[target] = sizes[target], sizes[seat]
        _refill(state)


_MASK64 = (1 << 64) - 1


def _chance(s: State) -> int:
    """A 64-bit random number for one chance event (a die roll, a shuffle, a tie-break).

    The state keeps only a 64-bit key (seeded from the env's RNG) and draws from it with
    SplitMix64, so a state copies and serializes as plain ints and a restored state
    continues exactly like the original.
    """
    z = s.rng_key = (s.rng_key + 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _below(s: State, k: int) -> int:
    """A uniform integer in 0..k-1 (k small: the bias is below 2**-58)."""
    return (_chance(s) * k) >> 64


def _shuffle(s: State, cards: list[int]) -> None:
    random.Random(_chance(s)).shuffle(cards)


def _draw(s: State) -> int:
    """The top reserve card (reshuffling the discard pile when the reserve is empty),
    or -1 when no card exists in either."""
    if not s.reserve:
        if not any(s.discard):
            return -1
        s.reserve = expand(s.discard)
        _shuffle(s, s.reserve)
        s.discard = [0] * NUM_VALUES
        s.reshuffles += 1
    return s.reserve.pop(0)


def _discard_horde(s: State) -> None:
    for v in s.horde:
        s.discard[v] += 1
    s.horde = []
    s.spider = False


def _pass(s: State) -> None:
    """R-O5: discard the horde, lose a brain, draw two, keep one, then play."""
    seat = s.seat
    _discard_horde(s)
    s.brains[seat] -= 1
    if not s.brains[seat]:
        s.phase = OVER
        return
    s.passed = True
    first = _draw(s)
    second = _draw(s) if first >= 0 else -1
    if second >= 0:
        s.pending = [first, second]
        s.phase = KEEP
        return
    if first >= 0:
        s.hands[seat][first] += 1
        s.hsize[seat] += 1
    _restart(s)


def _restart(s: State) -> None:
    """After a pass: play to the new horde; skipped with an empty hand (R-O5)."""
    if s.hsize[s.seat]:
        s.phase = RESTART
    else:
        _refill(s)


def _power(s: State, v: int) -> None:
    """The played value's power, once however many copies were played (R-O4)."""
    if v == SPIDER:
        s.spider = True
        _refill(s)
    elif v == MOUSE:  # R-O6
        _discard_horde(s)
        s.mouse = True
        _refill(s)
    elif s.is_marsh[v]:
        _roll(s)
    else:
        _refill(s)


def _roll(s: State) -> None:
    """R-O7: roll the die and apply the face (then refill and end the turn)."""
    face = s.dice.pop(0) if s.dice else 1 + _below(s, 6)
    s.die = face
    s.face_counts[face - 1] += 1
    seat = s.seat
    n = s.num_players
    if face == 1:
        if s.hsize[seat]:
            s.phase = GIVE_CARD
            return
    elif face == 2:
        for i in range(n):
            card = _draw(s)
            if card < 0:
                break
            s.graves[(seat + i) % n][card] += 1
            s.gsize[(seat + i) % n] += 1
    elif face == 3:
        if any(s.brains[(seat + k) % n] for k in range(1, n)):
            s.phase = STEAL
            return
    elif face == 4:
        s.brains[seat] += 1
    elif face == 5:
        for k in range(1, n):
            o = (seat + k) % n
            if s.hsize[o] or s.gsize[o]:
                s.phase = EXCHANGE
                return
    else:  # face 6: the extra turn starts at once, before the refill (R-O7)
        _start_turn(s, seat)
        return
    _refill(s)


def _refill(s: State) -> None:
    """R-O8: top the hand up to 3 from the graveyard (a decision when there is a choice),
    then end the turn."""
    seat = s.seat
    need = HAND_TARGET - s.hsize[seat]
    if need > 0:
        g = s.gsize[seat]
        if g:
            if g > need:
                s.phase = REFILL
                return
            hand = s.hands[seat]
            grave = s.graves[seat]
            for v in range(NUM_VALUES):
                hand[v] += grave[v]
            s.graves[seat] = [0] * NUM_VALUES
            s.hsize[seat] += g
            s.gsize[seat] = 0
    _end_turn(s)


def _end_turn(s: State) -> None:
    """R-O9: the round-end check for the active seat, then the next turn."""
    seat = s.seat
    if not s.hsize[seat] and not s.gsize[seat]:
        _end_round(s)
    elif s.mouse:  # R-O6: a whole new turn for the same seat
        s.mouse = False
        _start_turn(s, seat)
    else:
        _start_turn(s, (seat + 1) % s.num_players)


def _end_round(s: State) -> None:
    """R-O9: the others lose a brain per card they hold; game over or a new round."""
    seat = s.seat
    n = s.num_players
    for o in range(n):
        if o != seat:
            s.brains[o] = max(0, s.brains[o] - s.hsize[o] - s.gsize[o])
    if not all(s.brains):
        s.phase = OVER
        return
    fewest = min(s.brains)
    tied = [i for i in range(n) if s.brains[i] == fewest]
    _start_round(s, tied[0] if len(tied) == 1 else tied[_below(s, len(tied))])


def _start_turn(s: State, seat: int) -> None:
    s.seat = seat
    s.passed = False
    s.mouse = False
    s.phase = PLAY
    s.turn += 1


def describe_action(state: State, action: int) -> str:
    """A human-readable meaning of ``action`` in the current decision."""
    from .cards import value_name

    n = state.num_players
    seat = state.seat
    phase = state.phase
    if not 0 <= action < PLAY_ACTION + NUM_VALUES * state.maxc:
        return f"action {action} does not exist"
    if action == PASS:
        return "pass: discard the horde, lose a brain, draw 2 and keep 1, then play (R-O5)"
    if action >= PLAY_ACTION:
        v, k = divmod(action - PLAY_ACTION, state.maxc)
        name = value_name(v, state.marshmallows)
        extra = f", send {k} extra cop{'y' if k == 1 else 'ies'} to opponents" if k else ""
        return f"play {k + 1} x {name}{extra}"
    if action < OPPONENT_ACTION:
        v = action - VALUE_ACTION
        name = value_name(v, state.marshmallows)
        return {
            DRAFT: f"put {name} in the graveyard, keep the other two in hand",
            KEEP: f"keep {name} in hand, the other drawn card goes to the graveyard",
            REFILL: f"take {name} from the graveyard into the hand",
            GIVE_CARD: f"give {name} from the hand to an opponent's graveyard",
        }.get(phase, f"card value {name}")
    base, what = OPPONENT_ACTION, {
        EXTRA_TARGET: "send the extra card to",
        GIVE_TARGET: "give the card to",
        STEAL: "steal a brain from",
    }.get(phase, "opponent")
    if action >= EXCHANGE_GRAVE:
        base, what = EXCHANGE_GRAVE, "exchange graveyards with"
    elif action >= EXCHANGE_HAND:
        base, what = EXCHANGE_HAND, "exchange hands with"
    k = action - base + 1
    if k >= n:
        return f"{what} opponent +{k} (no such seat with {n} players)"
    return f"{what} the opponent {k} seat(s) after (player_{(seat + k) % n})"

