"""The Brain: pure rules engine (English rules + rulings R-B1..R-B9, see docs/rulings.md).

Plain Python over small ints and lists: no PettingZoo, gymnasium or numpy. A game is a
:class:`State`; :func:`legal_actions` lists what the seat to move may do and
:func:`apply_action` carries one decision out (validating it on its own, so the two can
be checked against each other), then runs the game forward to the next decision.

Actions (one space for every decision; the decision kind says what they mean):

=========  ===================================================================
0..35      a card id: play it / donate it / play it as the extra card
           (PLAY, DONATE_CARD, EXTRA_CARD), or the display stack whose top
           card it is (COVER, TAKE_BACK)
36..38     donate to the seat 1, 2, 3 places after the acting seat
39, 40     draw / do not draw (draw_rule="optional")
41, 42     look through the discard pile / do not (discard_peek)
=========  ===================================================================
"""

from __future__ import annotations

import numbers
import random
from dataclasses import dataclass

from ..core.config import check_bool, check_card_list, check_choice, check_int
from ..core.errors import IllegalActionError
from ..core.state import RulesState
from .cards import (
    COLOR_OF,
    COVER,
    DONATE,
    EXTRA_CARD,
    NUM_CARDS,
    OBJECT_OF,
    REMOVE_OBJECT,
    SYMBOL_OF,
    TAKE_BACK,
    TARGET_OF,
)

MAX_PLAYERS = 4
DIFFICULTIES = {"amateur": 7, "robber": 6, "cat_burglar": 5}
DRAW_RULES = ("mandatory", "optional")

# Decision kinds (state.phase); OVER once the game has ended.
PLAY, DONATE_CARD, DONATE_TARGET, COVER_TARGET, TAKE_BACK_TARGET, EXTRA, DRAW, PEEK, OVER = range(9)
DECISIONS = ("play", "donate_card", "donate_target", "cover", "take_back", "extra_card", "draw", "peek")

SEAT_ACTION = NUM_CARDS  # 36..38: donate to seat +1..+3
DRAW_YES, DRAW_NO, PEEK_YES, PEEK_NO = 39, 40, 41, 42
NUM_ACTIONS = 43

ONGOING, WIN, LOSS = 0, 1, -1


@dataclass(frozen=True)
class Config:
    """Rule options of one game (validated: every bad value raises a clear ValueError)."""

    num_players: int = 3
    limit: int = 7
    hand_size: int = 5
    draw_rule: str = "mandatory"
    discard_peek: bool = False

    def __post_init__(self):
        check_int("num_players", self.num_players, 1, MAX_PLAYERS)
        check_int("limit", self.limit, 1, NUM_CARDS)
        check_int("hand_size", self.hand_size, 2, 7)
        check_choice("draw_rule", self.draw_rule, DRAW_RULES)
        check_bool("discard_peek", self.discard_peek)
        if self.discard_peek and self.limit != DIFFICULTIES["amateur"]:
            raise ValueError(
                f"discard_peek=True is only allowed at the amateur limit (7), got limit "
                f"{self.limit} (R-B8)"
            )

    @property
    def num_seats(self) -> int:
        """Seats at the table: solo adds a virtual seat played by the same agent (R-B3)."""
        return 2 if self.num_players == 1 else self.num_players


def limit_of(difficulty) -> int:
    """``"amateur"|"robber"|"cat_burglar"`` or an int 1..36 -> the loss limit (R-B2)."""
    if isinstance(difficulty, str) and difficulty in DIFFICULTIES:
        return DIFFICULTIES[difficulty]
    if (
        not isinstance(difficulty, bool)
        and isinstance(difficulty, numbers.Integral)
        and 1 <= difficulty <= NUM_CARDS
    ):
        return int(difficulty)
    raise ValueError(
        f"difficulty={difficulty!r} is not allowed; allowed: one of {list(DIFFICULTIES)} "
        f"(limits {list(DIFFICULTIES.values())}) or an integer limit 1..{NUM_CARDS} (R-B2)"
    )


class State(RulesState):
    """The whole table. Seats are absolute (0..num_seats-1); stacks list bottom -> top."""

    __slots__ = (
        "num_players", "limit", "draw_optional", "peek_allowed",
        "deck", "hands", "domains", "display", "discard",
        "seat", "phase", "resolving", "donating", "peek_seat", "peeked",
        "outcome", "turn", "last_player",
    )

    def __init__(self, config: Config, deck: list[int], first_player: int):
        self.num_players = config.num_players
        self.limit = config.limit
        self.draw_optional = config.draw_rule == "optional"
        self.peek_allowed = config.discard_peek
        n = config.num_seats
        h = config.hand_size
        self.deck = list(deck[n * h :])  # draw order: deck[0] is drawn next
        dealt = [list(deck[s * h : (s + 1) * h]) for s in range(n)]
        if self.num_players == 1:  # solo: every card lies face up (R-B3)
            self.hands, self.domains = [[] for _ in range(n)], dealt
        else:
            self.hands, self.domains = dealt, [[] for _ in range(n)]
        self.display: list[list[int]] = []
        self.discard: list[int] = []
        self.seat = first_player
        self.phase = PLAY
        self.resolving = -1  # the played card whose action is being resolved
        self.donating = -1  # the card chosen for a donation, before its target
        self.peek_seat = -1  # the seat that looked through the discard pile
        self.peeked: list[int] = []  # what it saw then
        self.outcome = ONGOING
        self.turn = 0
        self.last_player = -1

    @property
    def num_seats(self) -> int:
        return len(self.hands)

    def holds(self, seat: int) -> bool:
        return bool(self.hands[seat] or self.domains[seat])

    def cards(self) -> list[int]:
        """Every card in the game, wherever it lies (for conservation checks)."""
        out = list(self.deck) + list(self.discard)
        for pile in self.hands + self.domains + self.display:
            out.extend(pile)
        if self.donating >= 0:  # chosen for a donation, on its way to a domain
            out.append(self.donating)
        return out

    # ---------------------------------------------------------------- serialization
    GAME = "The Brain"
    _LISTS = ("deck", "discard", "peeked")
    _NESTED = ("hands", "domains", "display")
    _INTS = ("num_players", "limit", "seat", "phase", "resolving", "donating",
             "peek_seat", "outcome", "turn", "last_player")
    _BOOLS = ("draw_optional", "peek_allowed")

    @classmethod
    def _read_list(cls, key: str, value) -> list[int]:
        return check_card_list(f"state[{key!r}]", value, range(NUM_CARDS), unique=True)

    @classmethod
    def from_dict(cls, data: dict) -> State:
        """Rebuild a state from :meth:`to_dict` output, checking that it is a real table."""
        s = cls._read_fields(data)
        Config(num_players=s.num_players, limit=s.limit)  # validates both
        n = 2 if s.num_players == 1 else s.num_players
        if len(s.hands) != n or len(s.domains) != n:
            raise ValueError(f"bad The Brain state: hands/domains must list {n} seats")
        if any(not stack for stack in s.display):
            raise ValueError("bad The Brain state: a display stack is empty")
        everything = s.cards()
        if len(set(everything)) != len(everything):
            raise ValueError("bad The Brain state: a card lies in two places")
        if not 0 <= s.seat < n or not 0 <= s.phase <= OVER:
            raise ValueError(f"bad The Brain state: seat {s.seat} / phase {s.phase} out of range")
        for key, top in (("resolving", NUM_CARDS), ("donating", NUM_CARDS), ("peek_seat", n),
                         ("last_player", n), ("outcome", 2)):
            if getattr(s, key) >= top:
                raise ValueError(f"bad The Brain state: {key} {getattr(s, key)} out of range")
        if (s.donating >= 0) != (s.phase == DONATE_TARGET):
            raise ValueError("bad The Brain state: donating must name a card exactly while the "
                             "decision is donate_target")
        if (s.outcome != ONGOING) != (s.phase == OVER):
            raise ValueError("bad The Brain state: outcome must be set exactly when the game is over")
        if s.turn < 0:
            raise ValueError(f"bad The Brain state: turn must be >= 0, got {s.turn}")
        _check_table(s)
        return s


# What the card being resolved is, per decision (R-B5): it was just played, alone, as the
# last display stack.
_RESOLVING = {DONATE_CARD: DONATE, DONATE_TARGET: DONATE, COVER_TARGET: COVER,
              TAKE_BACK_TARGET: TAKE_BACK, EXTRA: EXTRA_CARD}


def _check_table(s: State) -> None:
    """Refuse a table (already type- and range-checked) that the rules cannot reach or
    cannot play on: every decision must be one the rules would ask for, with at least one
    legal action."""

    def bad(why: str):
        raise ValueError(f"bad The Brain state: {why}")

    phase = s.phase
    live = phase != OVER
    held = any(s.hands) or any(s.domains)
    stacks = len(s.display)
    if s.num_players == 1 and any(s.hands):
        bad("in the solo game every card lies face up in a domain; hands stay empty (R-B3)")
    # R-B6: the game is lost once the stacks reach the limit; a turn starts below it, a
    # card's action may take it to the limit, and an extra card one past it (then lost)
    top = s.limit - 1 if phase in (PLAY, DRAW, PEEK) else s.limit if live else s.limit + 1
    if stacks > top:
        bad(f"{stacks} display stacks with the limit {s.limit} in decision "
            f"{DECISIONS[phase] if live else 'over'}; at most {top} (R-B6)")
    if phase == OVER:
        if s.outcome == LOSS and stacks < s.limit:
            bad(f"a loss needs the display at the limit {s.limit}, it has {stacks} stacks (R-B6)")
        if s.outcome == WIN and (s.deck or held):
            bad("a win needs an empty deck and no card in any hand or domain (R-B6)")
    elif phase in (PLAY, DRAW, PEEK) and not s.deck and not held:
        bad("no card is left in the deck, a hand or a domain when a turn starts: that table "
            "is a win (R-B6), not a live decision")
    want = _RESOLVING.get(phase)
    if want is None:
        if s.resolving >= 0:
            bad(f"resolving={s.resolving} outside a card's action (decision "
                f"{DECISIONS[phase] if live else 'over'})")
    elif s.resolving < 0 or SYMBOL_OF[s.resolving] != want or s.display[-1:] != [[s.resolving]]:
        bad(f"resolving={s.resolving}: decision {DECISIONS[phase]} resolves the "
            f"{('donate', 'cover', 'take_back', 'extra_card')[want]} card just played, alone "
            "on the last display stack (R-B5)")
    if phase == DRAW and not (s.draw_optional and s.deck and held):
        bad("a draw decision needs draw_rule='optional', a card in the deck and a seat "
            "holding a card (R-B7)")
    if phase == PEEK and not (s.peek_allowed and s.peek_seat < 0 and s.discard and s.holds(s.seat)):
        bad("a peek decision needs discard_peek, no seat having looked yet, a non-empty "
            "discard pile and a seat holding a card (R-B8)")
    if s.peek_seat >= 0 and not s.peek_allowed:
        bad(f"peek_seat={s.peek_seat} but looking through the discard pile is not allowed (R-B8)")
    if s.peeked and (s.peek_seat < 0 or s.peeked != s.discard[: len(s.peeked)]):
        bad("peeked must be the discard pile as the seat that looked saw it (the discard "
            "pile only grows, so it begins with those cards) (R-B8)")
    if live and not legal_actions(s):
        bad(f"seat {s.seat} has no legal action in decision {DECISIONS[phase]}")


# ------------------------------------------------------------------------ setup
def new_game(
    config: Config,
    rng: random.Random,
    deck: list[int] | None = None,
    first_player: int | None = None,
) -> State:
    """Shuffle (or take the scripted ``deck``, in draw order), deal, pick the starting seat.

    Dealing gives seat 0 the first ``hand_size`` cards of the deck, seat 1 the next, and so
    on (solo: the own seat, then the virtual seat, face up). A scripted deck may hold any
    subset of the 36 cards (the rest are out of the game) as long as every seat is dealt.
    """
    n = config.num_seats
    if deck is None:
        deck = list(range(NUM_CARDS))
        rng.shuffle(deck)
    else:
        deck = check_card_list("deck", deck, range(NUM_CARDS), unique=True)
        if len(deck) < n * config.hand_size:
            raise ValueError(
                f"deck has {len(deck)} cards; dealing {config.hand_size} to {n} seats needs "
                f"at least {n * config.hand_size}"
            )
    if first_player is None:
        # R-B2: random starting seat; solo starts with the own seat (R-B3)
        first_player = 0 if config.num_players == 1 else rng.randrange(n)
    else:
        first_player = check_int("first_player", first_player, 0, config.num_players - 1)
    state = State(config, deck, first_player)
    _start_turn(state)
    return state


# ------------------------------------------------------------------------ queries
def current_seat(state: State) -> int:
    """The seat that decides now (-1 once the game is over)."""
    return -1 if state.phase == OVER else state.seat


def is_terminal(state: State) -> bool:
    return state.phase == OVER


def returns(state: State) -> list[float]:
    """R-B9: every seat gets +1 on a win, -1 on a loss, 0 otherwise."""
    r = float(state.outcome)
    return [r] * state.num_seats


def cards_out(state: State) -> int:
    """Cards out of play (on the display or discarded): 36 means every card was played."""
    held = len(state.deck) + sum(len(h) for h in state.hands) + sum(len(d) for d in state.domains)
    return NUM_CARDS - held


def scores(state: State) -> list[float]:
    """The team's score, the same for every player: the cards played out (R-B9's goal is
    all 36)."""
    return [float(cards_out(state))] * state.num_players


def progress(state: State) -> float:
    """The share of the 36 cards out of play: the team's progress towards a win (R-B9)."""
    return cards_out(state) / NUM_CARDS


def _takeable(state: State, stack: list[int]) -> bool:
    """R-B5: a stack may be taken back only if no card in it is a take_back card."""
    return all(SYMBOL_OF[c] != TAKE_BACK for c in stack)


def legal_actions(state: State) -> list[int]:
    """Every legal action of the seat to move, ascending (empty when the game is over)."""
    phase = state.phase
    seat = state.seat
    if phase in (PLAY, EXTRA, DONATE_CARD):
        return sorted(state.hands[seat] + state.domains[seat])
    if phase == COVER_TARGET:  # any stack but the one just played (the last one)
        return sorted(stack[-1] for stack in state.display[:-1])
    if phase == TAKE_BACK_TARGET:
        return sorted(stack[-1] for stack in state.display[:-1] if _takeable(state, stack))
    if phase == DONATE_TARGET:
        return [SEAT_ACTION + k for k in range(state.num_seats - 1)]
    if phase == DRAW:
        return [DRAW_YES, DRAW_NO]
    if phase == PEEK:
        return [PEEK_YES, PEEK_NO]
    return []


# ------------------------------------------------------------------------ transition
def _illegal(state: State, action, why: str):
    kind = DECISIONS[state.phase] if state.phase < OVER else "none, the game is over"
    raise IllegalActionError(f"{why} (decision: {kind})", action)


def _take_from_holdings(state: State, seat: int, card: int, action) -> None:
    if card in state.hands[seat]:
        state.hands[seat].remove(card)
    elif card in state.domains[seat]:
        state.domains[seat].remove(card)
    else:
        _illegal(state, action, f"card {card} is not in seat {seat}'s hand or domain")


def _find_stack(state: State, top: int, action) -> int:
    """Index of the stack (other than the one just played) whose top card is ``top``."""
    for i in range(len(state.display) - 1):
        if state.display[i][-1] == top:
            return i
    _illegal(state, action, f"no other display stack has card {top} on top")
    return -1


def apply_action(state: State, action: int) -> None:
    """Carry out ``action`` for the seat to move, then run on to the next decision.

    Raises IllegalActionError (before changing anything) when the rules do not accept it.
    """
    phase = state.phase
    seat = state.seat
    if phase == OVER:
        _illegal(state, action, "the game is over")
    if type(action) is not int or not 0 <= action < NUM_ACTIONS:
        _illegal(state, action, f"actions are integers 0..{NUM_ACTIONS - 1}")
    if phase == PLAY:
        if action >= NUM_CARDS:
            _illegal(state, action, "a card must be played")
        _take_from_holdings(state, seat, action, action)
        state.display.append([action])
        state.last_player = seat
        _resolve(state, action)
    elif phase == EXTRA:
        if action >= NUM_CARDS:
            _illegal(state, action, "the extra card must be a card")
        _take_from_holdings(state, seat, action, action)
        state.display.append([action])  # its action is ignored (R-B5)
        state.last_player = seat
        _end_action(state)
    elif phase == DONATE_CARD:
        if action >= NUM_CARDS:
            _illegal(state, action, "choose a card to donate")
        _take_from_holdings(state, seat, action, action)
        state.donating = action
        state.phase = DONATE_TARGET
    elif phase == DONATE_TARGET:
        k = action - SEAT_ACTION + 1
        if not 1 <= k < state.num_seats:
            _illegal(state, action, f"donate to one of the seats +1..+{state.num_seats - 1}")
        target = (seat + k) % state.num_seats
        state.domains[target].append(state.donating)
        state.donating = -1
        _end_action(state)
    elif phase == COVER_TARGET:
        if action >= NUM_CARDS:
            _illegal(state, action, "choose the stack to cover by its top card")
        i = _find_stack(state, action, action)
        played = state.display.pop()
        state.display[i].extend(played)
        _end_action(state)
    elif phase == TAKE_BACK_TARGET:
        if action >= NUM_CARDS:
            _illegal(state, action, "choose the stack to take back by its top card")
        i = _find_stack(state, action, action)
        if not _takeable(state, state.display[i]):
            _illegal(state, action, "a stack holding a take_back card cannot be taken back")
        state.domains[seat].extend(state.display.pop(i))
        _end_action(state)
    elif phase == DRAW:
        if action != DRAW_YES and action != DRAW_NO:
            _illegal(state, action, "choose to draw or not")
        if action == DRAW_YES:
            _draw(state)
        _next_turn(state)
    elif phase == PEEK:
        if action != PEEK_YES and action != PEEK_NO:
            _illegal(state, action, "choose to look through the discard pile or not")
        if action == PEEK_YES:
            state.peek_seat = seat
            state.peeked = list(state.discard)
        state.phase = PLAY


def _resolve(state: State, card: int) -> None:
    """R-B5: the played card's action; a choice becomes the next decision."""
    seat = state.seat
    symbol = SYMBOL_OF[card]
    state.resolving = card
    if symbol == DONATE:
        if state.holds(seat):
            state.phase = DONATE_CARD
            return
    elif symbol == COVER:
        if len(state.display) > 1:
            state.phase = COVER_TARGET
            return
    elif symbol == TAKE_BACK:
        for stack in state.display[:-1]:
            if _takeable(state, stack):
                state.phase = TAKE_BACK_TARGET
                return
    elif symbol == EXTRA_CARD:
        if state.holds(seat):
            state.phase = EXTRA
            return
    else:  # remove: every stack whose top has that object / color, played card included
        of = OBJECT_OF if symbol == REMOVE_OBJECT else COLOR_OF
        target = TARGET_OF[card]
        kept = []
        for stack in state.display:
            if of[stack[-1]] == target:
                state.discard.extend(stack)
            else:
                kept.append(stack)
        state.display = kept
    _end_action(state)


def _end_action(state: State) -> None:
    """R-B6: loss before win, then the draw (R-B7)."""
    state.resolving = -1
    if len(state.display) >= state.limit:
        state.outcome = LOSS
        state.phase = OVER
    elif not state.deck and not any(state.hands) and not any(state.domains):
        state.outcome = WIN
        state.phase = OVER
    else:
        _draw_step(state)


def _draw_step(state: State) -> None:
    if not state.deck:
        _next_turn(state)
    elif state.draw_optional and (any(state.hands) or any(state.domains)):
        state.phase = DRAW  # R-B7: optional unless no seat holds any card
    else:
        _draw(state)
        _next_turn(state)


def _draw(state: State) -> None:
    card = state.deck.pop(0)
    if state.num_players == 1:
        state.domains[state.seat].append(card)  # solo: drawn cards lie face up (R-B3)
    else:
        state.hands[state.seat].append(card)


def _next_turn(state: State) -> None:
    state.seat = (state.seat + 1) % state.num_seats
    state.turn += 1
    _start_turn(state)


def _start_turn(state: State) -> None:
    """Run turns forward until a seat has a decision (R-B4: a seat holding nothing only
    draws) or the game is over."""
    for _ in range(2 * state.num_seats + 2):
        seat = state.seat
        if state.holds(seat):
            if state.peek_allowed and state.peek_seat < 0 and state.discard:
                state.phase = PEEK  # R-B8 discard peek: once per game, before playing
            else:
                state.phase = PLAY
            return
        if not state.deck:
            if not any(state.hands) and not any(state.domains):
                state.outcome = WIN  # nothing left anywhere (only reachable from a scripted state)
                state.phase = OVER
                return
            state.seat = (seat + 1) % state.num_seats
            state.turn += 1
            continue
        if state.draw_optional and (any(state.hands) or any(state.domains)):
            state.phase = DRAW
            return
        _draw(state)
        state.seat = (seat + 1) % state.num_seats
        state.turn += 1
    raise RuntimeError("The Brain rules made no progress; this is a bug")  # pragma: no cover
