"""A one-ply look-ahead The Brain player (spec ``greedy``) that reads only its observation.

At a ``play`` decision it enumerates every whole turn it could play with the cards it holds
(hand and domain): the card, then the cover / take back target, the extra card or the
donated card, exactly as the rules resolve them (``braincards.training.agents.search.solver.
turns``). Each turn is scored by the table it leaves:

* the display: a turn that reaches the loss limit scores far below any other (so the limit
  is reached only when every turn reaches it), then ``PRESSURE / (limit - stacks)``;
* the tops: a top that no live remove card can clear any more is a stack for good;
* the cards still held, each at a rough value: a remove card by the stacks it would clear
  now, a cover or a take back as a safety valve, a donate or extra_card card as a stack it
  will add; and a cost per held card (every one of them must still be played).

A donation goes to the seat holding the fewest cards (hand + domain; the nearest seat on a
tie). The decisions inside a turn (cover / take back target, extra card, donated card)
replay the same search from the table before the play, so they finish the best turn. It
always draws (optional draw rule) and always looks through the discard pile (discard_peek).

The best turn of a decision is found by the compiled :func:`.fast_greedy.greedy_best_turn` (the
same turns, values and tie-break as :meth:`TheBrainGreedy._scored_turns`, which
``action_scores`` still uses; a test checks its decisions against the code of before).

"Live" removers are read from the observation as in :mod:`.the_brain`: with
memory="perfect" covered cards and the discard pile are known; with memory="none" a covered
card is stood in for by an unseen card with the same visible symbol.
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

from braincards.envs import TableConfig, the_brain
from braincards.envs.the_brain import rules
from braincards.envs.the_brain.cards import (
    COVER,
    DONATE,
    EXTRA_CARD,
    NUM_CARDS,
    REMOVE_OBJECT,
    SYMBOL_OF,
    TAKE_BACK,
    VISIBLE_SYMBOL_OF,
)

from ..heuristics.base import LayoutPlayer
from ..kinds import PolicyKind
from ..policy import legal_actions
from . import fast_greedy
from .masks import BIT, FULL, MATCH, REMOVERS_OF, SHIFT, TB_MASK, mask_of
from .solver import turns

_GREEDY_TABLES = (np.array(SYMBOL_OF, np.int64), np.array(MATCH, np.int64), np.array(REMOVERS_OF, np.int64), TB_MASK)
_WEIGHTS: dict[tuple, np.ndarray] = {}  # weights -> their array (a handful at most)


class TheBrainGreedy(LayoutPlayer):
    """One-ply look-ahead over whole turns (see the module docstring). Deterministic.

    The weights were tuned by coordinate search on 3-player self-play (150 games per
    difficulty, seed 1; the docs' figures use seed 0)."""

    name = "greedy"
    GAME = the_brain.SPEC.id
    PIECES = ("decision", "own_hand", "domains", "display_top", "hand_sizes",
              "display_covered_symbols", "stacks", "limit")

    LOSS = -1e6
    PRESSURE = 9.0  # cost of the display: PRESSURE / (limit - stacks)
    PRESSURE_EXP = 0.45
    DEAD_TOP = 1.0  # a top no live remove card can clear
    HALF_DEAD_TOP = 0.09  # a top only one live remove card can clear
    HELD = 1.35  # every card still held must be played later
    REMOVE_BASE = 0.9  # a remove card held: a later chance to shrink the display
    REMOVE_PER_TOP = 0.12  # ... per top it would clear now
    COVER_HELD = 1.8  # a cover held
    TAKE_BACK_HELD = 0.3
    PLUS_HELD = -1.0  # a donate / extra_card held: a stack it will add


    # ------------------------------------------------------------------ reading
    @staticmethod
    def _stand_ins(covered_symbols: np.ndarray, tops: list, seen: set) -> dict:
        """memory="none": per top, unseen cards standing in for its covered visible symbols."""
        sym = np.rint(covered_symbols.reshape(NUM_CARDS, -1) * 6).astype(int)
        spare = [c for c in range(NUM_CARDS) if c not in seen]
        covered = {}
        for t in tops:
            covered[t] = []
            for symbol, k in enumerate(sym[t]):
                for _ in range(int(k)):
                    c = next((c for c in spare if VISIBLE_SYMBOL_OF[c] == symbol), None)
                    if c is not None:
                        spare.remove(c)
                        covered[t].append(c)
        return covered

    def _read(self, obs: np.ndarray):
        """The facts of one observation vector the look-ahead plays from (a dict)."""
        lay = self.layout
        on = np.flatnonzero(obs > 0.5).tolist()  # every set slot, read once

        def piece(name):
            p = lay[name]
            return obs[p["start"] : p["stop"]]

        def ids(name, row: int = 0, width: int = 0):
            """The set slots of piece ``name`` (of its ``row``-th ``width``-slot row)."""
            start = lay[name]["start"] + row * width
            stop = start + width if width else lay[name]["stop"]
            return [i - start for i in on[bisect_left(on, start) : bisect_left(on, stop)]]

        num_players = int(np.argmax(piece("num_players"))) + 1
        n = 2 if num_players == 1 else num_players
        doms = [ids("domains", k, NUM_CARDS) for k in range(n)]
        hand = ids("own_hand")
        sizes = np.rint(piece("hand_sizes") * NUM_CARDS).astype(int).tolist()
        held_by = [sizes[k] + len(doms[k]) for k in range(n)]
        tops = ids("display_top")
        seen = set(hand).union(*map(set, doms)).union(tops)
        discarded = ids("discard_top")
        if "discard_pile" in lay:
            discarded += ids("discard_pile")
        if "peeked_cards" in lay:
            discarded += ids("peeked_cards")
        seen.update(discarded)
        if "display_covered_cards" in lay:
            covered = {t: ids("display_covered_cards", t, NUM_CARDS) for t in tops}
        else:  # stand-ins with the visible symbols
            covered = self._stand_ins(piece("display_covered_symbols"), tops, seen)
        gone = mask_of(tops) | mask_of(discarded)
        for t in tops:
            gone |= mask_of(covered[t])
        disp = {t: (t << SHIFT) | BIT[t] | mask_of(covered[t]) for t in tops}
        res = ids("resolving")
        don = ids("donating")
        return {
            "decision": int(np.argmax(piece("decision"))),
            "n": n,
            "own": mask_of(hand) | mask_of(doms[0]),
            "held_by": held_by,
            "disp": disp,
            "gone_mask": gone,
            "limit": round(float(piece("limit")[0]) * NUM_CARDS),
            "resolving": res[0] if res else -1,
            "donating": don[0] if don else -1,
        }

    # ------------------------------------------------------------------ scoring
    def _value(self, v: dict, own: int, disp: tuple, gone_extra: int) -> float:
        k = len(disp)
        limit = v["limit"]
        if k >= limit:
            return self.LOSS - k
        value = -self.PRESSURE / (limit - k) ** self.PRESSURE_EXP
        gone_mask = v["gone_mask"] | gone_extra
        for s in disp:
            gone_mask |= s & FULL
        gone = gone_mask & ~own  # the cards no one can play any more
        top_mask = 0
        for s in disp:
            t = s >> SHIFT
            top_mask |= BIT[t]
            live = (REMOVERS_OF[t] & ~gone).bit_count()  # its remove cards still to come
            if live == 0:
                value -= self.DEAD_TOP
            elif live == 1:
                value -= self.HALF_DEAD_TOP
        x = own
        while x:  # the cards held, lowest id first
            low = x & -x
            x ^= low
            c = low.bit_length() - 1
            sym = SYMBOL_OF[c]
            value -= self.HELD
            if sym >= REMOVE_OBJECT:
                value += self.REMOVE_BASE + self.REMOVE_PER_TOP * (MATCH[c] & top_mask).bit_count()
            elif sym == COVER:
                value += self.COVER_HELD
            elif sym == TAKE_BACK:
                value += self.TAKE_BACK_HELD
            elif sym in (DONATE, EXTRA_CARD):
                value += self.PLUS_HELD
        return value

    def _scored_turns(self, v: dict, own: int, disp: tuple, first: int | None = None) -> list:
        """``(key, actions)`` of every whole turn from (own holdings, display) that starts
        with ``first`` (any card when None); a higher key is a better turn."""
        n = v["n"]
        # donations go to the seat holding the fewest cards, the nearest on a tie
        target = min(range(1, n), key=lambda k: (v["held_by"][k], k)) if n > 1 else 1
        hold = (own,) + (0,) * (n - 1)
        out = []
        for actions, h2, d2 in turns(0, hold, disp, n):
            if first is not None and actions[0] != first:
                continue
            if SYMBOL_OF[actions[0]] == DONATE and len(actions) == 3 and actions[2] != rules.SEAT_ACTION + target - 1:
                continue
            played = 0
            for s in disp:
                if s not in d2:
                    played |= s
            key = (self._value(v, h2[0], d2, played & FULL), tuple(-a for a in actions))
            out.append((key, actions))
        return out

    def _best_turn(self, v: dict, own: int, disp: tuple, first: int | None = None) -> tuple:
        """The best whole turn from (own holdings, display) as its rules actions: the
        largest of :meth:`_scored_turns`, found by the compiled
        :func:`.fast_greedy.greedy_best_turn` (the same turns, values and tie-break)."""
        n = v["n"]
        target = min(range(1, n), key=lambda k: (v["held_by"][k], k)) if n > 1 else 1
        out = np.full(3, -1, np.int64)
        found = fast_greedy.greedy_best_turn(own, n, np.array(disp, np.int64), v["limit"], v["gone_mask"], target,
                                      -1 if first is None else first, self._weights(), *_GREEDY_TABLES, out)
        if not found:
            return None
        return tuple(int(a) for a in out.tolist() if a >= 0)

    def _weights(self) -> np.ndarray:
        """The weights as the compiled search reads them (read each time: a tuning run may
        change them; the array is made again only when they changed)."""
        w = (self.LOSS, self.PRESSURE, self.PRESSURE_EXP, self.DEAD_TOP, self.HALF_DEAD_TOP, self.HELD,
             self.REMOVE_BASE, self.REMOVE_PER_TOP, self.COVER_HELD, self.TAKE_BACK_HELD, self.PLUS_HELD)
        cached = _WEIGHTS.get(w)
        if cached is None:
            cached = _WEIGHTS[w] = np.array(w, np.float64)
        return cached

    def _turn_table(self, observation: dict, v: dict | None = None):
        """(view, own holdings, display, first card, step) of the turn being decided (``v``:
        the observation already read, if it was)."""
        if v is None:
            v = self._read(np.asarray(observation["observation"]))
        disp = dict(v["disp"])
        own = v["own"]
        if v["decision"] == rules.PLAY:
            return v, own, tuple(sorted(disp.values())), None, 0
        r = v["resolving"]  # inside a turn: rebuild the table before the play
        if r < 0 or r not in disp:  # pragma: no cover - the env always shows it
            return v, own, tuple(sorted(disp.values())), None, -1
        del disp[r]
        return v, own | BIT[r], tuple(sorted(disp.values())), r, 1

    def action_scores(self, observation: dict) -> dict[int, float]:
        """How much the greedy likes each legal action (higher is better): the value of the
        best whole turn through it (used to break ties by the PIMC partner)."""
        legal = [int(a) for a in legal_actions(observation)]
        v, own, disp, first, step = self._turn_table(observation)
        d = v["decision"]
        if d in (rules.DRAW, rules.PEEK):
            return {a: float(a in (rules.DRAW_YES, rules.PEEK_YES)) for a in legal}
        if d == rules.DONATE_TARGET:
            n = v["n"]
            return {a: -float(v["held_by"][(a - rules.SEAT_ACTION + 1) % n]) - 0.01 * a for a in legal}
        scores = dict.fromkeys(legal, -float("inf"))
        if step >= 0:
            for (value, _), actions in self._scored_turns(v, own, disp, first):
                if len(actions) > step and actions[step] in scores:
                    scores[actions[step]] = max(scores[actions[step]], value)
        return scores

    # ------------------------------------------------------------------ decisions
    def act(self, observation: dict, agent: str | None = None) -> int:
        legal = [int(a) for a in legal_actions(observation)]
        if len(legal) == 1:
            return legal[0]
        v = self._read(np.asarray(observation["observation"]))
        d = v["decision"]
        if d == rules.DRAW:
            return rules.DRAW_YES if rules.DRAW_YES in legal else legal[0]
        if d == rules.PEEK:
            return rules.PEEK_YES if rules.PEEK_YES in legal else legal[0]
        if d == rules.DONATE_TARGET:
            n = v["n"]
            return min(legal, key=lambda a: (v["held_by"][(a - rules.SEAT_ACTION + 1) % n], a))
        v, own, disp, first, step = self._turn_table(observation, v)
        if step < 0:  # pragma: no cover
            return legal[0]
        plan = self._best_turn(v, own, disp, first)
        if plan is None or len(plan) <= step or plan[step] not in legal:
            return legal[0]
        return plan[step]


def make_greedy(table: str | TableConfig, config: dict | None = None, seed: int | None = None) -> TheBrainGreedy:
    """Factory for the ``greedy`` spec: The Brain only."""
    return TheBrainGreedy.for_game(table, config, seed=seed)


GREEDY = PolicyKind("greedy", "a one-ply look-ahead over whole turns (TheBrainGreedy)", make_greedy,
                    games=(TheBrainGreedy.GAME,))
