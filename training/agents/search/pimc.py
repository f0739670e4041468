"""The Brain: the PIMC search partner (perfect-information Monte Carlo over :mod:`.solver`).

**PIMC** (:class:`PIMCPolicy`, spec ``pimc`` / ``pimc:samples=16,nodes=2000``). At each
decision with two or more legal actions the policy decodes its observation (only what its
seat may see), deals the cards it cannot see at random consistently with it (other hands by
their public sizes, the deck order, and with ``memory="none"`` the covered cards by their
visible symbols and the discard pile), solves every legal action in every sample and plays
the action that wins in most samples; ties (and decisions where no action is proven to win)
go to the greedy heuristic's choice.

The budget knob is ``samples`` (deals per decision) and ``nodes`` (the solver's node budget
per deal and action). Every decision of a turn but the optional draw (the play, then the
cover / take back target, extra card, donated card and seat) is valued from the start of the
turn in the compiled search (:meth:`.solver.Solver.solve_turn`), without building a rules
state: a sample is dealt as data and read straight into the solver's compact state.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import numpy as np

from braincards.envs import TableConfig, the_brain
from braincards.envs.the_brain import rules
from braincards.envs.the_brain.cards import NUM_CARDS, VISIBLE_SYMBOL_OF

from ..heuristics.base import LayoutPlayer
from ..kinds import Param, PolicyKind
from .greedy import TheBrainGreedy
from .masks import mask_of, stack_int
from .solver import WIN, Solver


@dataclass
class _Seen:
    """What one seat's observation says about the table (seats relative: 0 = observer)."""

    decision: int
    num_players: int
    num_seats: int
    limit: int
    hand: list
    domains: list
    hand_sizes: list
    stacks: list  # per display stack: [top] + known covered cards (memory="perfect")
    covered_symbols: dict  # top -> visible-symbol counts of covered cards (memory="none")
    discard: list  # known discard cards (perfect memory: all of them, in unknown order)
    discard_size: int
    discard_top: int
    deck_size: int
    resolving: int
    donating: int
    peek_available: bool
    peeked_by: int
    peeked: list = field(default_factory=list)
    perfect: bool = True
    other_hands: list | None = None


def _piece(obs: np.ndarray, lay: dict, name: str) -> np.ndarray:
    """The slots of piece ``name`` of an observation vector."""
    p = lay[name]
    return obs[p["start"] : p["stop"]]


def _ids(obs: np.ndarray, lay: dict, name: str) -> list:
    """The set slots of piece ``name``."""
    return [int(i) for i in np.flatnonzero(_piece(obs, lay, name) > 0.5)]


def _one(obs: np.ndarray, lay: dict, name: str) -> int:
    """The first set slot of piece ``name`` (-1 when none is set)."""
    v = _ids(obs, lay, name)
    return v[0] if v else -1


def _decode_display(obs: np.ndarray, lay: dict, perfect: bool) -> tuple[list, dict]:
    """(stacks, covered symbols) of the display: see :class:`_Seen`."""
    tops = _ids(obs, lay, "display_top")
    sym = _piece(obs, lay, "display_covered_symbols").reshape(NUM_CARDS, -1)
    sym = np.rint(sym * 6).astype(int)
    stacks = []
    covered_symbols = {}
    if perfect:
        cov = _piece(obs, lay, "display_covered_cards").reshape(NUM_CARDS, NUM_CARDS)
    for t in tops:
        if perfect:
            stacks.append([t] + [int(i) for i in np.flatnonzero(cov[t] > 0.5)])
        else:
            stacks.append([t])
            covered_symbols[t] = [int(k) for k in sym[t]]
    return stacks, covered_symbols


def _decode_peek(obs: np.ndarray, lay: dict) -> tuple[bool, int, list]:
    """(peek available, peeking seat, peeked cards) under discard_peek (else nothing)."""
    if "peek_available" not in lay:
        return False, -1, []
    peek_available = bool(_piece(obs, lay, "peek_available")[0] > 0.5)
    return peek_available, _one(obs, lay, "peeked_by"), _ids(obs, lay, "peeked_cards")


def decode_observation(obs: np.ndarray, lay: dict) -> _Seen:
    """Read one The Brain observation vector into the facts PIMC samples from."""

    def piece(name):
        return _piece(obs, lay, name)

    num_players = int(np.argmax(piece("num_players"))) + 1
    n = 2 if num_players == 1 else num_players
    domains = piece("domains").reshape(-1, NUM_CARDS)
    perfect = "display_covered_cards" in lay
    stacks, covered_symbols = _decode_display(obs, lay, perfect)
    other_hands = None
    if "other_hands" in lay:
        oh = piece("other_hands").reshape(-1, NUM_CARDS)
        other_hands = [[int(i) for i in np.flatnonzero(oh[k] > 0.5)] for k in range(n - 1)]
    discard = _ids(obs, lay, "discard_pile") if "discard_pile" in lay else []
    top = _one(obs, lay, "discard_top")
    peek_available, peeked_by, peeked = _decode_peek(obs, lay)
    return _Seen(
        decision=int(np.argmax(piece("decision"))),
        num_players=num_players,
        num_seats=n,
        limit=round(float(piece("limit")[0]) * NUM_CARDS),
        hand=_ids(obs, lay, "own_hand"),
        domains=[[int(i) for i in np.flatnonzero(domains[k] > 0.5)] for k in range(n)],
        hand_sizes=[int(x) for x in np.rint(piece("hand_sizes")[:n] * NUM_CARDS)],
        stacks=stacks,
        covered_symbols=covered_symbols,
        discard=discard,
        discard_size=round(float(piece("discard_size")[0]) * NUM_CARDS),
        discard_top=top,
        deck_size=round(float(piece("deck_size")[0]) * NUM_CARDS),
        resolving=_one(obs, lay, "resolving"),
        donating=_one(obs, lay, "donating"),
        peek_available=peek_available,
        peeked_by=peeked_by,
        peeked=peeked,
        perfect=perfect,
        other_hands=other_hands,
    )


def _known_cards(seen: _Seen) -> tuple[set, list]:
    """(every card the observation places, the hands: the observer's and any shown)."""
    known = set(seen.hand)
    for d in seen.domains:
        known.update(d)
    for st in seen.stacks:
        known.update(st)
    known.update(seen.discard)
    known.update(seen.peeked)
    if seen.discard_top >= 0:
        known.add(seen.discard_top)
    if seen.donating >= 0:
        known.add(seen.donating)
    hands = [list(seen.hand)] + [[] for _ in range(seen.num_seats - 1)]
    if seen.other_hands is not None:
        for k in range(1, seen.num_seats):
            hands[k] = list(seen.other_hands[k - 1])
            known.update(hands[k])
    return known, hands


def _deal_covered(seen: _Seen, stacks: list, pool: list, rng: random.Random) -> None:
    """memory="none": deal each stack's covered cards from ``pool`` by their visible symbols
    (in place: ``stacks`` get them under their tops, ``pool`` loses them)."""
    for i, st in enumerate(stacks):
        counts = seen.covered_symbols[st[0]]
        below = []
        for symbol, k in enumerate(counts):
            for _ in range(k):
                c = next(c for c in pool if VISIBLE_SYMBOL_OF[c] == symbol)
                pool.remove(c)
                below.append(c)
        rng.shuffle(below)
        stacks[i] = [st[0]] + below


def _discard_order(seen: _Seen, rest: list) -> tuple[list, list]:
    """(peeked cards, discard pile bottom -> top) with the unplaced ``rest`` cards in it."""
    # the discard pile only grows: what a seat saw when it looked comes first, the top last
    top = seen.discard_top
    peeked = sorted(c for c in seen.peeked if c != top)
    if top in seen.peeked:
        peeked.append(top)
    discard = peeked + sorted((set(seen.discard) | set(rest)) - set(peeked) - {top})
    if top >= 0 and top not in peeked:
        discard.append(top)
    return peeked, discard


def _state_data(seen: _Seen, draw_optional: bool, discard_peek: bool, deck: list,
                discard: list, peeked: list, hands: list, stacks: list) -> dict:
    """The ``rules.State.from_dict`` data of a dealt table (the observer at seat 0)."""
    # the display: covered cards under their top (bottom -> top); the stack being resolved
    # (the card just played) is the last one, as in the rules engine
    display = [st[1:] + [st[0]] for st in stacks]
    if seen.resolving >= 0:
        display.sort(key=lambda st: st[-1] == seen.resolving)
    solo = seen.num_players == 1
    data = {
        "num_players": seen.num_players,
        "limit": seen.limit,
        "draw_optional": draw_optional,
        "peek_allowed": discard_peek,
        "deck": deck,
        "discard": discard,
        "peeked": peeked,
        "hands": [[] for _ in range(seen.num_seats)] if solo else hands,
        "domains": [list(d) for d in seen.domains],
        "display": display,
        "seat": 0,
        "phase": seen.decision,
        "resolving": seen.resolving,
        "donating": seen.donating,
        "peek_seat": -1 if seen.peeked_by < 0 else seen.peeked_by,
        "outcome": rules.ONGOING,
        "turn": 0,
        "last_player": 0,
    }
    if solo and seen.hand:  # solo holds nothing in hands (R-B3); keep what was seen
        data["domains"][0] = sorted(set(data["domains"][0]) | set(seen.hand))
    return data


def _sample_data(seen: _Seen, rng: random.Random, draw_optional: bool = False,
                 discard_peek: bool = False) -> dict:
    """:func:`sample_state`'s table as ``rules.State.from_dict`` data (not yet checked)."""
    known, hands = _known_cards(seen)
    pool = [c for c in range(NUM_CARDS) if c not in known]
    rng.shuffle(pool)
    stacks = [list(st) for st in seen.stacks]
    if not seen.perfect:  # covered cards: only their visible symbols are known
        _deal_covered(seen, stacks, pool, rng)
    if seen.other_hands is None:
        for k in range(1, seen.num_seats):
            size = seen.hand_sizes[k]
            hands[k], pool = pool[:size], pool[size:]
    deck, pool = pool[: seen.deck_size], pool[seen.deck_size :]
    peeked, discard = _discard_order(seen, pool)
    return _state_data(seen, draw_optional, discard_peek, deck, discard, peeked, hands, stacks)


def sample_state(seen: _Seen, rng: random.Random, draw_optional: bool = False,
                 discard_peek: bool = False) -> rules.State:
    """One full table consistent with ``seen``, the observer at seat 0 and to move.

    Known cards stay where the observation shows them; the unseen ones (other hands, the
    deck, and with memory="none" the covered cards and the discard pile below its top) are
    dealt at random: covered cards only among the unseen cards with their visible symbol,
    the rest shuffled into the other hands (by their sizes), the deck, then the discard."""
    return rules.State.from_dict(_sample_data(seen, rng, draw_optional, discard_peek))


# decisions inside a turn that the compiled search takes straight from the turn's start: the
# rules actions of the turn so far (the played card, then the donated card) before the action
_IN_TURN = (rules.PLAY, rules.COVER_TARGET, rules.TAKE_BACK_TARGET, rules.EXTRA, rules.DONATE_CARD,
            rules.DONATE_TARGET)


def _turn_start(seen: _Seen, data: dict) -> tuple:
    """(holdings, display, cards left, the turn's actions so far) of a sampled table at a
    decision of :data:`_IN_TURN`, the turn rewound to its start (the card being resolved
    back in seat 0's holdings, its stack off the display; a card being donated back too),
    as :meth:`Solver.boundary_key` gives them."""
    hold = [mask_of(h) | mask_of(d) for h, d in zip(data["hands"], data["domains"], strict=True)]
    display = data["display"]
    done = ()
    if seen.decision != rules.PLAY:  # the card being resolved lies alone on the last stack
        display = display[:-1]
        hold[0] |= 1 << seen.resolving
        done = (seen.resolving,)
        if seen.decision == rules.DONATE_TARGET:
            hold[0] |= 1 << seen.donating
            done += (seen.donating,)
    return tuple(hold), tuple(sorted(stack_int(st) for st in display)), len(data["deck"]), done


class PIMCPolicy(LayoutPlayer):
    """Perfect-information Monte Carlo search partner for The Brain (see the module
    docstring). Reads only its observation; ``samples`` deals per decision, ``nodes`` the
    solver's node budget per (deal, action). Reproducible under ``reset(seed)``."""

    name = "pimc"
    GAME = the_brain.SPEC.id
    DEFAULT_SAMPLES = 8
    DEFAULT_NODES = 300

    def __init__(self, layout: dict, config: dict | None = None, *, samples: int = DEFAULT_SAMPLES,
                 nodes: int = DEFAULT_NODES, seed: int | None = None, name: str = "pimc"):
        if int(samples) < 1 or int(nodes) < 1:
            raise ValueError(f"PIMCPolicy needs samples >= 1 and nodes >= 1, got {samples}, {nodes}")
        self.layout = layout
        self.config = dict(config or {})
        self.samples = int(samples)
        self.nodes = int(nodes)
        self.name = name
        self.draw_optional = self.config.get("draw_rule", "mandatory") == "optional"
        self.discard_peek = bool(self.config.get("discard_peek", False))
        self.fallback = TheBrainGreedy(layout, config)
        self._seed = seed
        self._rng = random.Random(seed)
        self.last_votes: dict[int, int] = {}
        # a time.monotonic() instant after which a decision stops sampling (at least one deal
        # is always solved): a server's time budget per move; None, the default, samples all
        self.deadline: float | None = None

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._seed = seed
        self._rng = random.Random(self._seed)
        self.fallback.reset(seed)

    def act(self, observation: dict, agent: str | None = None) -> int:
        legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
        if not legal:
            raise ValueError("the observation's action mask is empty: there is nothing to decide")
        self.last_votes = {}
        if len(legal) == 1:
            return legal[0]
        votes = self.vote(observation, legal)
        # most wins (peeking, free information, takes them all); among equals (and when
        # nothing is proven to win) the greedy's favourite
        liking = self.fallback.action_scores(observation)
        return max(legal, key=lambda a: (votes[a], liking.get(a, -float("inf")), -a))

    def vote(self, observation: dict, candidates: list[int]) -> dict[int, int]:
        """In how many of ``samples`` sampled deals each of ``candidates`` (legal actions of
        ``observation``) is proven to win; also kept in ``last_votes``. At a peek decision
        (free information) peeking takes every vote."""
        seen = decode_observation(np.asarray(observation["observation"]), self.layout)
        votes = dict.fromkeys(candidates, 0)
        if seen.decision == rules.PEEK:
            if rules.PEEK_YES in votes:
                votes[rules.PEEK_YES] = self.samples
            self.last_votes = votes
            return votes
        for k in range(self.samples):
            if k and self.deadline is not None and time.monotonic() >= self.deadline:
                break  # out of time: the votes of the deals solved so far
            data = _sample_data(seen, self._rng, self.draw_optional, self.discard_peek)
            if seen.decision in _IN_TURN:  # straight to the compiled search
                hold, disp, rem, done = _turn_start(seen, data)
                solver = Solver(seen.num_seats, seen.limit, data["deck"], self.draw_optional, nodes=self.nodes)
                for a in candidates:
                    if solver.solve_turn(0, hold, disp, rem, done + (a,)) == WIN:
                        votes[a] += 1
                continue
            state = rules.State.from_dict(data)  # a draw decision: through the rules engine
            solver = Solver.for_state(state, nodes=self.nodes)
            for a in candidates:
                child = state.copy()
                rules.apply_action(child, a)
                if solver.solve(child) == WIN:
                    votes[a] += 1
        self.last_votes = votes
        return votes


def make_pimc(table: str | TableConfig, config: dict | None = None, seed: int | None = None,
              samples: int | None = None, nodes: int | None = None) -> PIMCPolicy:
    """Factory for the ``pimc`` spec: The Brain only."""
    return PIMCPolicy.for_game(table, config, seed=seed, samples=samples or PIMCPolicy.DEFAULT_SAMPLES,
                               nodes=nodes or PIMCPolicy.DEFAULT_NODES)


PIMC = PolicyKind(
    "pimc", "the search partner: samples the unseen cards, solves each sample, plays the most wins",
    make_pimc, params=(Param("samples", int, f"deals sampled per decision (default {PIMCPolicy.DEFAULT_SAMPLES})"),
                       Param("nodes", int, f"the solver's budget per deal and action (default {PIMCPolicy.DEFAULT_NODES})")),
    games=(PIMCPolicy.GAME,), example="pimc:samples=16,nodes=2000", named_by_spec=True,
)
