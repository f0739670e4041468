"""Brainwaves: The Brilliant Boar as a PettingZoo AEC environment (a thin adapter over
``rules.py``)."""

from __future__ import annotations

import random

import numpy as np

from ..core.base import CardGameEnv
from ..core.config import check_bool, check_choice, check_int
from ..core.layout import ObservationLayout
from ..core.table_data import pile, row, table
from . import rules
from .cards import LEVEL_NAMES, MOTIF_OF, MOTIFS, NUM_CARDS, NUM_MOTIFS

MAX_SEATS = rules.MAX_PLAYERS
MAX_HAND = rules.MAX_HAND
MEMORY_MODES = ("none", "perfect")
REWARD_MODES = rules.REWARD_MODES
# Every seat makes at most 54 draws + 54 plays + 27 choices in a whole game, so the
# default never cuts a game short; set it lower to truncate on purpose.
DEFAULT_MAX_CYCLES = 200
HAND_BLOCK = MAX_HAND * NUM_MOTIFS  # one seat's hand: position x motif one-hot


def build_layout(memory: str) -> ObservationLayout:
    """The observation vector of one config, piece by piece (seats are observer-relative:
    seat 0 is the observer, seat k the k-th seat after it; padded to 4 seats). Counts are
    divided by 54 (the number of cards that exist) unless said otherwise."""
    m = NUM_MOTIFS
    lay = ObservationLayout()
    lay.add("decision", len(rules.DECISIONS), "one-hot of the observer's pending decision: " + ", ".join(rules.DECISIONS) + " (all 0 when it is not the observer's move)")
    lay.add("to_move", MAX_SEATS, "one-hot of the seat to move, seats 0..3 (all 0 once the game is over)")
    lay.add("seats", MAX_SEATS, "multi-hot of the seats at the table, seats 0..3 (the player count)")
    lay.add("motifs_in_play", m, "multi-hot of the motifs in play (the level), in the order " + ", ".join(MOTIFS))
    lay.add("pile_top", m, "one-hot of the motif of the draw pile's face-up top card (R-W2; all 0 when empty)")
    lay.add("pile_size", 1, "cards in the draw pile / 54")
    lay.add("middle", m, "face-up cards in the middle per motif / 6")
    lay.add("pending", m, "one-hot of the played card's motif while the pile-or-middle choice is pending (R-W5)")
    lay.add("error_stack", 1, "solo: cards on the error stack / 54 (R-W8)")
    lay.add("hand_sizes", MAX_SEATS, "cards in each seat's hand / 54, seats 0..3")
    lay.add("won", MAX_SEATS, "cards won by each seat / 54, seats 0..3")
    lay.add("scores", MAX_SEATS, "each seat's score if the game ended now (won - hand, solo also - error stack), mapped from [-54, 54] to [0, 1]")
    lay.add("own_positions", MAX_HAND, "multi-hot of the observer's occupied hand positions 0..53 (its hand size, never its motifs)")
    if memory == "perfect":
        lay.add("own_hand_memory", HAND_BLOCK, "memory=perfect (R-W9): [position p, motif m] = 1 when the observer saw motif m on the card it drew to position p (index 9 * p + m)")
    lay.add("other_hands", (MAX_SEATS - 1) * HAND_BLOCK, "R-W3: each other seat's hand in order, seats 1..3: [seat k, position p, motif m] at index 486 * (k - 1) + 9 * p + m")
    return lay


class raw_env(CardGameEnv):  # noqa: N801 - PettingZoo naming convention
    """Brainwaves: The Brilliant Boar (1-4 players, competitive memory game; solo with
    the error stack). Every option: docs/games/brilliant_boar.md."""

    metadata = {"name": "brilliant_boar_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}
    RESET_OPTIONS = ("deck", "first_player", "motifs", "state")
    DEFAULT_MAX_CYCLES = DEFAULT_MAX_CYCLES

    def __init__(
        self,
        num_players: int = 3,
        level: int = 4,
        name_card: bool = False,
        memory: str = "none",
        reward: str | None = None,
        normalize: bool = False,
        max_cycles: int = DEFAULT_MAX_CYCLES,
        render_mode: str | None = None,
        illegal_action: str = "raise",
    ):
        self.config = rules.Config(num_players=num_players, level=level, name_card=name_card)
        self.memory = check_choice("memory", memory, MEMORY_MODES)
        if reward is None:
            reward = "score" if num_players == 1 else "rank"
        self.reward = check_choice("reward", reward, REWARD_MODES)
        if num_players == 1 and reward != "score":
            raise ValueError(
                f"reward={reward!r} is not allowed with num_players=1; the solo reward is the "
                "score (R-W8); allowed values: ['score'] (or None)"
            )
        self.normalize = check_bool("normalize", normalize)
        if self.normalize and self.reward != "score":
            raise ValueError(
                "normalize=True only applies to score rewards; use reward='score' "
                "(rank rewards already lie in [-1, 1])"
            )
        check_int("max_cycles", max_cycles, 1)
        super().__init__(
            num_agents=num_players,
            num_actions=self.config.num_actions,
            layout=build_layout(self.memory),
            max_cycles=max_cycles,
            render_mode=render_mode,
            illegal_action=illegal_action,
        )
        lay = self.layout
        self._o = {name: lay.offset(name) for name in lay.as_dict()}
        self._perfect = self.memory == "perfect"

    # ------------------------------------------------------------------ hooks
    rules = rules

    def _deal(self, rng: random.Random, options: dict) -> rules.State:
        return rules.new_game(
            self.config, rng, options.get("deck"), options.get("first_player"), options.get("motifs")
        )

    def _state_fit(self, state: rules.State) -> dict[str, tuple]:
        c = self.config
        return {k: (getattr(state, k), getattr(c, k)) for k in ("num_players", "level", "name_card")}

    def _agent_returns(self) -> list[float]:
        s = self.state
        for a, pts in zip(self.possible_agents, rules.scores(s), strict=True):
            self.infos[a] = {"score": pts}
        return rules.returns(s, self.reward, self.normalize)

    def scores(self) -> list[int]:
        """Every seat's points now (the final score once the game is over; R-W7/R-W8)."""
        return rules.scores(self.state)

    def _fill_observation(self, agent_index: int, out: np.ndarray) -> None:
        s = self.state
        o = self._o
        n = s.num_players
        me = agent_index
        ones = []
        at = []  # indices of the non-binary values ...
        val = []  # ... and their values
        phase = s.phase
        if phase != rules.OVER:
            if s.seat == me:
                ones.append(o["decision"] + phase)
            ones.append(o["to_move"] + (s.seat - me) % n)
        base = o["seats"]
        ones.extend(range(base, base + n))
        base = o["motifs_in_play"]
        ones.extend([base + m for m in s.motifs])
        pile = s.pile
        if pile:
            ones.append(o["pile_top"] + MOTIF_OF[pile[0]])
            at.append(o["pile_size"])
            val.append(len(pile) / NUM_CARDS)
        if s.middle:
            base = o["middle"]
            mids = [MOTIF_OF[c] for c in s.middle]
            for m in set(mids):
                at.append(base + m)
                val.append(mids.count(m) / 6)
        if s.pending >= 0:
            ones.append(o["pending"] + MOTIF_OF[s.pending])
        errors = len(s.errors)
        if errors:
            at.append(o["error_stack"])
            val.append(errors / NUM_CARDS)
        sizes, won, score = o["hand_sizes"], o["won"], o["scores"]
        hands = s.hands
        other = o["other_hands"] - HAND_BLOCK
        for rel in range(n):
            seat = (me + rel) % n
            hand = hands[seat]
            h = len(hand)
            w = len(s.won[seat])
            at += (sizes + rel, won + rel, score + rel)
            val += (h / NUM_CARDS, w / NUM_CARDS, (w - h - errors + NUM_CARDS) / (2 * NUM_CARDS))
            if rel and h:
                b = other + rel * HAND_BLOCK
                ones.extend([b + 9 * p + MOTIF_OF[c] for p, c in enumerate(hand)])
        own = hands[me]
        if own:
            base = o["own_positions"]
            ones.extend(range(base, base + len(own)))
            if self._perfect:  # R-W9: the motif it saw when it drew the card
                b = o["own_hand_memory"]
                ones.extend([b + 9 * p + MOTIF_OF[c] for p, c in enumerate(own)])
        out[ones] = 1.0
        out[at] = val

    def action_meaning(self, action: int) -> str:
        """What ``action`` does in the current decision, e.g. ``"play the card at position 2"``."""
        if self.state is None:
            raise self._not_playing("action_meaning()")
        a = int(action)
        size = self.config.num_actions
        if not 0 <= a < size:
            raise ValueError(f"action {action!r} is outside 0..{size - 1}")
        s = self.state
        if a == rules.DRAW:
            top = MOTIFS[MOTIF_OF[s.pile[0]]] if s.pile else "nothing: the pile is empty"
            return f"draw the pile's top card ({top})"
        if a < rules.TAKE_TOP:
            return f"play the card at hand position {a - rules.PLAY}"
        if a == rules.TAKE_TOP:
            return "take the pile's top card for the pair"
        if a == rules.TAKE_MIDDLE:
            return "take the matching card from the middle for the pair"
        p, m = divmod(a - rules.NAMED, NUM_MOTIFS)
        return f"play the card at hand position {p}, naming {MOTIFS[m]}"

    def _end_reason(self) -> str:
        s = self.state
        pts = rules.scores(s)
        if s.num_players == 1:
            return f"The pile is empty: {pts[0]} points ({len(s.errors)} cards on the error stack)."
        most = max(pts)
        winners = [f"player_{i}" for i, p in enumerate(pts) if p == most]
        points = ", ".join(f"player_{i} {p}" for i, p in enumerate(pts))
        return (f"The pile is empty and at most one seat still holds cards; the most points win "
                f"({points}): {' and '.join(winners)} {'wins' if len(winners) == 1 else 'win'}.")

    def log_meaning(self, action: int) -> str:
        """With ``memory="none"`` a draw is logged without its motif: the rules let a player see
        the card once as it is drawn, and a written log would be the memory aid they forbid
        (R-W3)."""
        if self.memory == "none" and int(action) == rules.DRAW and self.state is not None:
            return "draw the pile's top card"
        return self.action_meaning(action)

    # ------------------------------------------------------------------ render
    def _render_text(self, viewer: int | None) -> str:
        s = self.state
        top = MOTIFS[MOTIF_OF[s.pile[0]]] if s.pile else "-"
        lines = [
            f"Brilliant Boar  level {s.level} ({LEVEL_NAMES[s.level]})  turn {s.turn}  "
            f"pile {len(s.pile)} (top: {top})"
            + ("  name-a-card" if s.name_card else "")
        ]
        if s.num_players == 1:
            lines.append(f"  error stack: {len(s.errors)}")
        else:
            mid = ", ".join(MOTIFS[MOTIF_OF[c]] for c in s.middle) or "-"
            lines.append(f"  middle: {mid}")
        if s.pending >= 0:
            lines.append(f"  played: {MOTIFS[MOTIF_OF[s.pending]]} (pile or middle?)")
        pts = rules.scores(s)
        for seat in range(s.num_players):
            hand = s.hands[seat]
            if viewer is None or seat != viewer:
                shown = ", ".join(MOTIFS[MOTIF_OF[c]] for c in hand)
            elif self._perfect:
                shown = ", ".join(f"({MOTIFS[MOTIF_OF[c]]})" for c in hand)  # remembered
            else:
                shown = " ".join("?" for _ in hand)  # R-W3: backs only
            mark = ">" if seat == s.seat and s.phase != rules.OVER else " "
            lines.append(
                f"{mark} player_{seat}: hand [{shown or '-'}]  won {len(s.won[seat])}  points {pts[seat]}"
            )
        if s.phase == rules.OVER:
            lines.append("GAME OVER  points: " + ", ".join(f"player_{i} {p}" for i, p in enumerate(pts)))
        else:
            lines.append(f"  to decide: {rules.DECISIONS[s.phase]} by player_{s.seat}")
        return "\n".join(lines)

    def _table_data(self, viewer: int | None) -> dict:
        s = self.state
        areas = [pile("pile top", [_card(s.pile[0])] if s.pile else [])]
        if s.num_players > 1:
            areas.append(pile("middle", [_card(c) for c in s.middle]))
        if s.pending >= 0:
            areas.append(pile("played (pile or middle?)", [_card(s.pending)]))
        rows = [row("table", piles=areas)]
        pts = rules.scores(s)
        for seat in range(s.num_players):
            hand = s.hands[seat]
            if viewer is None or seat != viewer:
                shown = pile("hand", [_card(c) for c in hand])
            elif self._perfect:  # R-W9: the seat remembers each card it drew
                shown = pile("hand", [_card(c) | {"remembered": True} for c in hand])
            else:  # R-W3: a seat sees only the backs of its own cards
                shown = pile("hand", [], len(hand))
            rows.append(row(f"player_{seat}", seat=seat, acting=seat == s.seat and s.phase != rules.OVER,
                            facts=[("won", len(s.won[seat])), ("points", pts[seat])], piles=[shown]))
        facts = [("level", f"{s.level} ({LEVEL_NAMES[s.level]})"), ("turn", s.turn), ("pile", len(s.pile))]
        if s.num_players == 1:
            facts.append(("error stack", len(s.errors)))
        if s.name_card:
            facts.append(("name-a-card", True))
        return table(facts, rows)

    def _action_card(self, action: int) -> dict | None:
        s = self.state
        if action in (rules.DRAW, rules.TAKE_TOP):
            return _card(s.pile[0]) if s.pile else None
        if action == rules.TAKE_MIDDLE:
            return _card(s.pending) if s.pending >= 0 else None
        p = action - rules.PLAY if action < rules.TAKE_TOP else (action - rules.NAMED) // NUM_MOTIFS
        hand = s.hands[s.seat]
        if not 0 <= p < len(hand):
            return None
        return _card(hand[p]) | {"remembered": True} if self._perfect else {"hidden": True}


def _card(c: int) -> dict:
    """A card as data: its motif."""
    return {"motif": MOTIFS[MOTIF_OF[c]]}
