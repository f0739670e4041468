"""The Brain as a PettingZoo AEC environment (a thin adapter over ``rules.py``)."""

from __future__ import annotations

import random

import numpy as np

from ..core.base import CardGameEnv
from ..core.config import check_bool, check_choice, check_int
from ..core.layout import ObservationLayout
from ..core.table_data import pile, row, table
from . import rules
from .cards import (
    COLOR_OF,
    COLORS,
    NUM_CARDS,
    OBJECT_OF,
    OBJECTS,
    VISIBLE_SYMBOL_OF,
    VISIBLE_SYMBOLS,
    action_name,
    card_name,
    short_name,
)

MAX_SEATS = rules.MAX_PLAYERS
MEMORY_MODES = ("perfect", "none")
NUM_SYMBOLS = len(VISIBLE_SYMBOLS)  # 16
MARGIN_BINS = 8  # one-hot of (limit - stacks), the last bin meaning "7 or more"


def build_layout(open_hands: bool, discard_peek: bool, memory: str) -> ObservationLayout:
    """The observation vector of one config, piece by piece (seats are observer-relative:
    seat 0 is the observer, seat k the k-th seat after it)."""
    n = NUM_CARDS
    lay = ObservationLayout()
    lay.add("decision", len(rules.DECISIONS), "one-hot of the pending decision: " + ", ".join(rules.DECISIONS))
    lay.add("num_players", MAX_SEATS, "one-hot of the player count 1..4 (solo: seat 1 is the other of the two seats the agent plays)")
    lay.add("own_hand", n, "multi-hot of the card ids in the observer's hand")
    if open_hands:
        lay.add("other_hands", (MAX_SEATS - 1) * n, "open_hands: multi-hot of each other seat's hand, seats 1..3")
    lay.add("domains", MAX_SEATS * n, "multi-hot of each seat's face-up domain, seats 0..3")
    lay.add("hand_sizes", MAX_SEATS, "cards in each seat's hand / 36, seats 0..3")
    lay.add("display_top", n, "multi-hot: card c is the top card of a display stack")
    lay.add("display_covered_symbols", n * NUM_SYMBOLS, "per top card c: count/6 of each visible action symbol covered beneath it: donate, cover, take_back, extra_card, then remove <object> x 6 and remove <color> x 6 (a remove card's symbol names its target)")
    if memory == "perfect":
        lay.add("display_covered_cards", n * n, "memory=perfect: [top c, card d] = 1 when d is covered in the stack topped by c")
    lay.add("stacks", 1, "display stacks / 36")
    lay.add("limit", 1, "loss limit / 36")
    lay.add("margin", MARGIN_BINS, "one-hot of limit - stacks (0..7, last bin = 7 or more)")
    lay.add("deck_size", 1, "cards left in the deck / 36")
    lay.add("discard_top", n, "one-hot of the discard pile's top card")
    lay.add("discard_size", 1, "cards in the discard pile / 36")
    if memory == "perfect":
        lay.add("discard_pile", n, "memory=perfect: multi-hot of every card in the discard pile")
    if discard_peek:
        lay.add("peek_available", 1, "discard_peek: 1 while no seat has looked through the discard pile")
        lay.add("peeked_by", MAX_SEATS, "discard_peek: one-hot of the seat that looked")
        lay.add("peeked_cards", n, "discard_peek: the discard pile as the observer saw it when it looked")
    lay.add("resolving", n, "one-hot of the played card whose action is being resolved")
    lay.add("donating", n, "one-hot of the card chosen for a donation (donate_target decision)")
    return lay


class raw_env(CardGameEnv):  # noqa: N801 - PettingZoo naming convention
    """The Brain (1-4 players, cooperative). Every option: docs/games/the_brain.md."""

    metadata = {"name": "the_brain_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}
    DEFAULT_MAX_CYCLES = 500

    def __init__(
        self,
        num_players: int = 3,
        difficulty="amateur",
        hand_size: int = 5,
        draw_rule: str = "mandatory",
        open_hands: bool = False,
        discard_peek: bool = False,
        memory: str = "perfect",
        max_cycles: int = DEFAULT_MAX_CYCLES,
        render_mode: str | None = None,
        illegal_action: str = "raise",
    ):
        self.config = rules.Config(
            num_players=num_players,
            limit=rules.limit_of(difficulty),
            hand_size=hand_size,
            draw_rule=draw_rule,
            discard_peek=discard_peek,
        )
        self.difficulty = difficulty
        self.open_hands = check_bool("open_hands", open_hands)
        self.memory = check_choice("memory", memory, MEMORY_MODES)
        check_int("max_cycles", max_cycles, 1)
        super().__init__(
            num_agents=num_players,
            num_actions=rules.NUM_ACTIONS,
            layout=build_layout(self.open_hands, discard_peek, self.memory),
            max_cycles=max_cycles,
            render_mode=render_mode,
            illegal_action=illegal_action,
        )
        lay = self.layout
        self._o = {name: lay.offset(name) for name in lay.as_dict()}

    # ------------------------------------------------------------------ hooks
    rules = rules

    def _deal(self, rng: random.Random, options: dict) -> rules.State:
        return rules.new_game(self.config, rng, options.get("deck"), options.get("first_player"))

    def _state_fit(self, state: rules.State) -> dict[str, tuple]:
        c = self.config
        return {
            "num_players": (state.num_players, c.num_players),
            "limit": (state.limit, c.limit),
            "draw_rule": ("optional" if state.draw_optional else "mandatory", c.draw_rule),
            "discard_peek": (state.peek_allowed, c.discard_peek),
        }

    def _acting_agent(self) -> int:
        return 0 if self.config.num_players == 1 else self.state.seat

    def _agent_returns(self) -> list[float]:
        return rules.returns(self.state)[: self.config.num_players]

    def _fill_observation(self, agent_index: int, out: np.ndarray) -> None:
        s = self.state
        o = self._o
        n = s.num_seats
        # the solo agent always sees the table from the seat it is playing now (R-B3)
        me = s.seat if self.config.num_players == 1 else agent_index
        ones = []  # indices set to 1
        at, val = [], []  # indices set to a fraction
        if s.phase != rules.OVER:
            ones.append(o["decision"] + s.phase)
        ones.append(o["num_players"] + s.num_players - 1)
        base = o["own_hand"]
        ones += [base + c for c in s.hands[me]]
        sizes = o["hand_sizes"]
        for rel in range(n):
            seat = (me + rel) % n
            base = o["domains"] + rel * NUM_CARDS
            ones += [base + c for c in s.domains[seat]]
            hand = s.hands[seat]
            if hand:
                at.append(sizes + rel)
                val.append(len(hand) / NUM_CARDS)
                if rel and self.open_hands:
                    base = o["other_hands"] + (rel - 1) * NUM_CARDS
                    ones += [base + c for c in hand]
        top_base = o["display_top"]
        for stack in s.display:
            top = stack[-1]
            ones.append(top_base + top)
            if len(stack) > 1:
                self._fill_covered(stack, top, ones, at, val)
        stacks = len(s.display)
        at += [o["stacks"], o["limit"], o["deck_size"]]
        val += [stacks / NUM_CARDS, s.limit / NUM_CARDS, len(s.deck) / NUM_CARDS]
        ones.append(o["margin"] + min(max(s.limit - stacks, 0), MARGIN_BINS - 1))
        if s.discard:
            ones.append(o["discard_top"] + s.discard[-1])
            at.append(o["discard_size"])
            val.append(len(s.discard) / NUM_CARDS)
            if "discard_pile" in o:
                base = o["discard_pile"]
                ones += [base + c for c in s.discard]
        if "peek_available" in o:
            if s.peek_seat < 0:
                ones.append(o["peek_available"])
            else:
                ones.append(o["peeked_by"] + (s.peek_seat - me) % n)
                # solo: both seats are the same player, who saw the pile (R-B3, R-B8)
                if s.peek_seat == me or s.num_players == 1:
                    base = o["peeked_cards"]
                    ones += [base + c for c in s.peeked]
        if s.resolving >= 0:
            ones.append(o["resolving"] + s.resolving)
        if s.donating >= 0:
            ones.append(o["donating"] + s.donating)
        out.put(ones, 1.0)
        if at:
            out.put(at, val)

    def _fill_covered(self, stack: list[int], top: int, ones: list, at: list, val: list) -> None:
        """A covered stack: counts of the covered action symbols (and, with perfect
        memory, the covered cards themselves) under its top card."""
        o = self._o
        counts = [0] * NUM_SYMBOLS
        for c in stack[:-1]:
            counts[VISIBLE_SYMBOL_OF[c]] += 1
        base = o["display_covered_symbols"] + top * NUM_SYMBOLS
        for symbol, k in enumerate(counts):
            if k:
                at.append(base + symbol)
                val.append(k / 6)
        if "display_covered_cards" in o:
            base = o["display_covered_cards"] + top * NUM_CARDS
            ones += [base + c for c in stack[:-1]]

    def _end_reason(self) -> str:
        s = self.state
        stacks = len(s.display)
        if s.outcome == rules.WIN:
            return (f"Every card was played out, with {stacks} stacks on the display (the loss limit is "
                    f"{s.limit}): the team wins.")
        held = sum(len(h) for h in s.hands) + sum(len(d) for d in s.domains) + len(s.deck)
        return (f"The display reached {stacks} stacks, the loss limit of {s.limit}: the team loses, "
                f"with {held} cards still to play.")

    def action_meaning(self, action: int) -> str:
        """What ``action`` does in the current decision, e.g. ``"play blue brain"``."""
        if self.state is None:
            raise self._not_playing("action_meaning()")
        s = self.state
        phase = s.phase
        a = int(action)
        if not 0 <= a < rules.NUM_ACTIONS:
            raise ValueError(f"action {action!r} is outside 0..{rules.NUM_ACTIONS - 1}")
        if a < NUM_CARDS:
            name = f"{card_name(a)} ({action_name(a)})"
            verb = {
                rules.PLAY: "play",
                rules.EXTRA: "play as the extra card",
                rules.DONATE_CARD: "donate",
                rules.COVER_TARGET: "cover the stack topped by",
                rules.TAKE_BACK_TARGET: "take back the stack topped by",
            }.get(phase, "card")
            return f"{verb} {name}"
        if a < rules.DRAW_YES:
            k = a - rules.SEAT_ACTION + 1
            target = (s.seat + k) % s.num_seats
            if s.num_players == 1:  # solo: one agent and a virtual seat (R-B3)
                who = "the virtual seat" if target == 1 else "your own seat"
            else:
                who = f"player_{target}"
            return f"donate to {who} ({k} seat{'s' if k > 1 else ''} after the donor)"
        return {
            rules.DRAW_YES: "draw a card",
            rules.DRAW_NO: "do not draw",
            rules.PEEK_YES: "look through the discard pile",
            rules.PEEK_NO: "do not look through the discard pile",
        }[a]

    # ------------------------------------------------------------------ render
    def _render_text(self, viewer: int | None) -> str:
        s = self.state
        n = s.num_seats
        solo = s.num_players == 1
        lines = [
            f"The Brain  turn {s.turn}  deck {len(s.deck)}  display {len(s.display)}/{s.limit}"
            f"  discard {len(s.discard)} (top: {short_name(s.discard[-1]) if s.discard else '-'})"
        ]
        for i, stack in enumerate(s.display):
            covered = ", ".join(
                short_name(c) if (viewer is None or self.memory == "perfect") else f"[{action_name(c)}]"
                for c in stack[:-1]
            )
            lines.append(f"  stack {i}: {short_name(stack[-1])}" + (f"  over {covered}" if covered else ""))
        for seat in range(n):
            who = f"player_{seat}" if not solo else ("you" if seat == 0 else "virtual seat")
            see_hand = viewer is None or self.open_hands or solo or seat == viewer
            hand = ", ".join(short_name(c) for c in s.hands[seat]) if see_hand else f"{len(s.hands[seat])} hidden"
            dom = ", ".join(short_name(c) for c in s.domains[seat]) or "-"
            mark = ">" if seat == s.seat and s.phase != rules.OVER else " "
            lines.append(f"{mark} {who}: hand [{hand or '-'}]  domain [{dom}]")
        if s.peek_seat >= 0:  # the discard_peek variant, once a seat has looked
            looker = "you" if solo else f"player_{s.peek_seat}"
            if viewer is None or viewer == s.peek_seat or solo:
                seen = ", ".join(short_name(c) for c in s.peeked) or "-"
                lines.append(f"  discard pile as {looker} saw it when looking through it: {seen}")
            else:
                lines.append(f"  {looker} looked through the discard pile")
        if s.phase == rules.OVER:
            lines.append("WON" if s.outcome == rules.WIN else "LOST")
        else:
            doing = f"  to decide: {rules.DECISIONS[s.phase]} by seat {s.seat}"
            if s.resolving >= 0:
                doing += f"  resolving {short_name(s.resolving)}"
            if s.donating >= 0:  # on its way, face up, to another seat's domain
                doing += f"  donating {short_name(s.donating)}"
            lines.append(doing)
        return "\n".join(lines)

    def _table_data(self, viewer: int | None) -> dict:
        s = self.state
        solo = s.num_players == 1
        see_covered = viewer is None or self.memory == "perfect"  # else only the symbol (R-B8)
        rows = [row("table", piles=[pile("discard pile top", [_card(s.discard[-1])] if s.discard else [])])]
        for i, stack in enumerate(s.display):
            under = [_card(c) if see_covered else {"effect": action_name(c)} for c in stack[:-1]]
            rows.append(row(f"stack {i}", piles=[pile("top", [_card(stack[-1])])] + ([pile("covered", under)] if under else [])))
        for seat in range(s.num_seats):
            who = f"player_{seat}" if not solo else ("player_0" if seat == 0 else "virtual seat")
            hand = s.hands[seat]
            seen = viewer is None or self.open_hands or solo or seat == viewer
            rows.append(row(who, seat=seat if (not solo or seat == 0) else None,
                            acting=seat == s.seat and s.phase != rules.OVER,
                            piles=[pile("hand", [_card(c) for c in hand] if seen else [], 0 if seen else len(hand)),
                                   pile("domain", [_card(c) for c in s.domains[seat]])]))
        if s.peek_seat >= 0:  # the discard_peek variant, once a seat has looked
            seen = viewer is None or viewer == s.peek_seat or solo
            rows.append(row("discard pile as seen when looked through", seat=None if solo else s.peek_seat,
                            piles=[pile("looked through", [_card(c) for c in s.peeked])] if seen else [],
                            facts=() if seen else [("looked through the discard pile", True)]))
        if s.phase != rules.OVER and (s.resolving >= 0 or s.donating >= 0):
            rows.append(row("in play", piles=[pile(name, [_card(c)]) for name, c in
                                              (("the card in play", s.resolving), ("the card given", s.donating)) if c >= 0]))
        facts = [("turn", s.turn), ("deck", len(s.deck)), ("display", f"{len(s.display)}/{s.limit}"),
                 ("discard pile", len(s.discard))]
        return table(facts, rows)

    def _action_card(self, action: int) -> dict | None:
        return _card(action) if action < NUM_CARDS else None


def _card(c: int) -> dict:
    """A card as data: its colour, object and effect."""
    return {"colour": COLORS[COLOR_OF[c]], "object": OBJECTS[OBJECT_OF[c]], "effect": action_name(c)}
