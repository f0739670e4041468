"""Oh My Brain as a PettingZoo AEC environment (a thin adapter over ``rules.py``)."""

from __future__ import annotations

import math
import numbers
import random

import numpy as np

from ..core.base import CardGameEnv
from ..core.config import check_int
from ..core.layout import ObservationLayout
from ..core.table_data import pile, row, table
from . import rules
from .cards import DIE_FACES, NUM_VALUES, value_effect, value_name

MAX_SEATS = rules.MAX_PLAYERS
BRAIN_SCALE = 2  # brains are observed as brains / (2 * starting_brains), clipped at 1


def build_layout() -> ObservationLayout:
    """The observation vector, piece by piece. Seats are observer-relative (seat 0 is the
    observer, seat k the k-th seat after it), padded to 5 seats. Counts of one value are
    divided by ``maxc``, the most copies of one value in the deck (3 by default); sizes
    by the number of cards in the deck."""
    nv = NUM_VALUES
    lay = ObservationLayout()
    lay.add("decision", len(rules.DECISIONS), "one-hot of the pending decision: " + ", ".join(rules.DECISIONS) + " (all 0 once the game is over)")
    lay.add("to_move", MAX_SEATS, "one-hot of the seat to move, relative to the observer (0 = the observer)")
    lay.add("num_players", MAX_SEATS - 1, "one-hot of the player count 2..5")
    # the count pieces are contiguous (filled in one go): own hand .. pending
    lay.add("own_hand", nv, "count / maxc of each value 0..19 in the observer's hand")
    lay.add("own_graveyard", nv, "count / maxc of each value in the observer's graveyard (R-O3: visible to its owner only)")
    lay.add("horde", nv, "count / maxc of each value in the horde (all its cards are public, R-O11)")
    lay.add("discard", nv, "count / maxc of each value in the discard pile (public, R-O11)")
    lay.add("pending", nv, "count / maxc of each value among the observer's private pending cards: the 3 dealt cards (draft) or the 2 drawn cards (keep); 0 for every other seat")
    # the scalar pieces are contiguous too
    lay.add("brains", MAX_SEATS, "brains / (2 * starting_brains), clipped at 1, seats 0..4 (0 for absent seats)")
    lay.add("hand_sizes", MAX_SEATS, "cards in each seat's hand / deck size, seats 0..4")
    lay.add("graveyard_sizes", MAX_SEATS, "cards in each seat's graveyard / deck size, seats 0..4")
    lay.add("reserve_size", 1, "cards in the reserve / deck size")
    lay.add("extras", 1, "extra copies still to send to opponents (extra_target) / maxc")
    # one-hots
    lay.add("horde_top", nv + 1, "one-hot of the horde's top value 0..19; the last entry: the horde is empty")
    lay.add("spider", 1, "1 while the spider's restriction binds the next play (< 8)")
    lay.add("die", 7, "one-hot of the last die face rolled in the game (entry 0: none yet, entries 1..6 the face)")
    lay.add("give_card", nv, "one-hot of the value the observer chose to give (give_target decision; 0 for other seats)")
    lay.add("start_seat", MAX_SEATS, "one-hot of the seat that started the round, relative to the observer")
    return lay


class raw_env(CardGameEnv):  # noqa: N801 - PettingZoo naming convention
    """Oh My Brain (2-5 players, competitive). Every option: docs/games/oh_my_brain.md."""

    metadata = {"name": "oh_my_brain_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}
    RESET_OPTIONS = ("deck", "dice", "first_player", "state")
    DEFAULT_MAX_CYCLES = 2000

    def __init__(
        self,
        num_players: int = 3,
        starting_brains: int = 9,
        deck: dict | None = None,
        marshmallow_values: list | None = None,
        max_cycles: int = DEFAULT_MAX_CYCLES,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        brain_shaping: float = 0.0,
    ):
        self.config = rules.Config(
            num_players=num_players,
            starting_brains=starting_brains,
            deck=deck,
            marshmallow_values=marshmallow_values,
        )
        if (
            isinstance(brain_shaping, bool)
            or not isinstance(brain_shaping, numbers.Real)
            or not math.isfinite(brain_shaping)
            or brain_shaping < 0
        ):
            raise ValueError(f"brain_shaping={brain_shaping!r} must be a finite number >= 0 (0 = off)")
        self.brain_shaping = float(brain_shaping)
        if self.brain_shaping:
            self.step = self._shaped_step
        check_int("max_cycles", max_cycles, 1)
        super().__init__(
            num_agents=num_players,
            num_actions=self.config.num_actions,
            layout=build_layout(),
            max_cycles=max_cycles,
            render_mode=render_mode,
            illegal_action=illegal_action,
        )
        lay = self.layout
        o = {name: lay.offset(name) for name in lay.as_dict()}
        self._o = o
        # The observation is built as small non-negative ints (counts, sizes, one-hots),
        # turned into bytes and multiplied by a per-entry scale in one numpy call.
        cfg = self.config
        scale = np.ones(lay.size, np.float32)
        for name in ("own_hand", "own_graveyard", "horde", "discard", "pending", "extras"):
            scale[lay.slice(name)] = 1.0 / cfg.max_copies
        for name in ("hand_sizes", "graveyard_sizes", "reserve_size"):
            scale[lay.slice(name)] = 1.0 / cfg.num_cards
        self._brain_cap = BRAIN_SCALE * cfg.starting_brains
        scale[lay.slice("brains")] = 1.0 / self._brain_cap
        self._scale = scale
        self._zeros = bytes(lay.size)  # every entry stays <= 255 (rules.Config's bounds)
        self._offsets = tuple(o[name] for name in (
            "own_hand", "own_graveyard", "discard", "horde", "pending", "brains", "hand_sizes",
            "graveyard_sizes", "reserve_size", "extras", "num_players", "start_seat", "decision",
            "to_move", "horde_top", "spider", "die", "give_card",
        ))

    # ------------------------------------------------------------------ hooks
    rules = rules

    def _deal(self, rng: random.Random, options: dict) -> rules.State:
        return rules.new_game(
            self.config, rng, options.get("deck"), options.get("first_player"), options.get("dice")
        )

    def _state_fit(self, state: rules.State) -> dict[str, tuple]:
        c = self.config
        return {
            "num_players": (state.num_players, c.num_players),
            "starting_brains": (state.starting_brains, c.starting_brains),
            "deck": (tuple(state.copies), c.deck),
            "marshmallow_values": (tuple(state.marshmallows), c.marshmallow_values),
        }

    def _agent_returns(self) -> list[float]:
        return rules.returns(self.state)

    def _fill_observation(self, me: int, out: np.ndarray) -> None:
        s = self.state
        (o_hand, o_grave, o_discard, o_horde, o_pending, o_brains, o_hsize, o_gsize, o_reserve,
         o_extras, o_players, o_start, o_decision, o_move, o_top, o_spider, o_die, o_give) = self._offsets
        n = s.num_players
        seat = s.seat
        buf = bytearray(self._zeros)
        buf[o_hand : o_hand + NUM_VALUES] = s.hands[me]
        buf[o_grave : o_grave + NUM_VALUES] = s.graves[me]
        buf[o_discard : o_discard + NUM_VALUES] = s.discard
        horde = s.horde
        for v in horde:
            buf[o_horde + v] += 1
        if s.pending and seat == me:  # the dealt / drawn cards are the deciding seat's only
            for v in s.pending:
                buf[o_pending + v] += 1
        # per-seat numbers, rotated so that the observer is seat 0
        brains = s.brains[me:] + s.brains[:me]
        if max(brains) > self._brain_cap:
            brains = [min(b, self._brain_cap) for b in brains]
        buf[o_brains : o_brains + n] = brains
        sizes = s.hsize
        buf[o_hsize : o_hsize + n] = sizes[me:] + sizes[:me]
        sizes = s.gsize
        buf[o_gsize : o_gsize + n] = sizes[me:] + sizes[:me]
        buf[o_reserve] = len(s.reserve)
        buf[o_extras] = s.extras
        buf[o_players + n - 2] = 1
        buf[o_start + (s.start_seat - me) % n] = 1
        if s.phase != rules.OVER:
            buf[o_decision + s.phase] = 1
            buf[o_move + (seat - me) % n] = 1
        buf[o_top + (horde[-1] if horde else NUM_VALUES)] = 1
        if s.spider:
            buf[o_spider] = 1
        buf[o_die + s.die] = 1
        if s.give >= 0 and seat == me:
            buf[o_give + s.give] = 1
        np.multiply(np.frombuffer(buf, np.uint8), self._scale, out=out)

    def _end_reason(self) -> str:
        s = self.state
        out = [f"player_{i}" for i, b in enumerate(s.brains) if b == 0]
        most = max(s.brains)
        winners = [f"player_{i}" for i, b in enumerate(s.brains) if b == most]
        brains = ", ".join(f"player_{i} {b}" for i, b in enumerate(s.brains))
        return (f"{' and '.join(out)} reached 0 brains, which ends the game; the most brains win "
                f"({brains}): {' and '.join(winners)} {'wins' if len(winners) == 1 else 'win'}.")

    def action_meaning(self, action: int) -> str:
        """What ``action`` does in the current decision, e.g. ``"play 2 x 5, ..."``."""
        if self.state is None:
            raise self._not_playing("action_meaning()")
        a = int(action)
        if not 0 <= a < self.config.num_actions:
            raise ValueError(f"action {action!r} is outside 0..{self.config.num_actions - 1}")
        return rules.describe_action(self.state, a)

    # ------------------------------------------------------------------ shaping
    def _shaped_step(self, action):
        """``step`` when ``brain_shaping`` > 0 (bound in ``__init__``, so the default
        path pays nothing for it)."""
        if self._done():
            return super().step(action)
        before = list(self.state.brains)
        super().step(action)
        # opt-in shaping: coef * (own brain change - mean brain change), zero-sum; paid on
        # the step that changed the brains, on top of the terminal reward (if any)
        deltas = [b - a for a, b in zip(before, self.state.brains, strict=True)]
        mean = sum(deltas) / len(deltas)
        terminal = all(self.terminations.values())
        for i, agent in enumerate(self.possible_agents):
            shaped = self.brain_shaping * (deltas[i] - mean)
            self.rewards[agent] = (self.rewards[agent] if terminal else 0.0) + shaped
            self._cumulative_rewards[agent] += shaped

    # ------------------------------------------------------------------ render
    def _render_text(self, viewer: int | None) -> str:
        s = self.state
        n = s.num_players
        marsh = s.marshmallows

        def vals(pile) -> str:
            return " ".join(value_name(v, marsh) for v in range(NUM_VALUES) for _ in range(pile[v])) or "-"

        die = f"{s.die} ({DIE_FACES[s.die]})" if s.die else "-"
        lines = [
            f"Oh My Brain  round {s.round}  turn {s.turn}  reserve {len(s.reserve)}  "
            f"discard {sum(s.discard)}  last die: {die}",
            "  horde: " + (" ".join(value_name(v, marsh) for v in s.horde) or "(empty)")
            + ("  [spider: the next play must be < 8]" if s.spider else ""),
            f"  discard pile: {vals(s.discard)}",
        ]
        for seat in range(n):
            see = viewer is None or seat == viewer
            hand = vals(s.hands[seat]) if see else f"{sum(s.hands[seat])} hidden"
            grave = vals(s.graves[seat]) if see else f"{sum(s.graves[seat])} hidden"
            mark = ">" if seat == s.seat and s.phase != rules.OVER else " "
            lines.append(f"{mark} player_{seat}: brains {s.brains[seat]}  hand [{hand}]  graveyard [{grave}]")
        if s.phase == rules.OVER:
            r = rules.returns(s)
            lines.append("GAME OVER  rewards: " + ", ".join(f"player_{i} {r[i]:+.2f}" for i in range(n)))
        else:
            lines.append(f"  to decide: {rules.DECISIONS[s.phase]} by player_{s.seat}")
            if s.pending and (viewer is None or viewer == s.seat):
                what = "dealt" if s.phase == rules.DRAFT else "drawn"
                lines.append(f"  {what}: " + " ".join(value_name(v, marsh) for v in s.pending))
            if s.extras:
                lines.append(f"  extra copies of {s.horde[-1]} to send: {s.extras}")
        return "\n".join(lines)

    def _table_data(self, viewer: int | None) -> dict:
        s = self.state
        marsh = s.marshmallows

        def cards(values) -> list[dict]:
            return [_card(v, marsh) for v in values]

        def counted(counts) -> list[dict]:
            return cards(v for v in range(NUM_VALUES) for _ in range(counts[v]))

        rows = [row("table", facts=[("spider: the next play must be < 8", True)] if s.spider else (),
                    piles=[pile("horde", cards(s.horde)), pile("discard pile", counted(s.discard))])]
        for seat in range(s.num_players):
            seen = viewer is None or seat == viewer
            rows.append(row(f"player_{seat}", seat=seat, acting=seat == s.seat and s.phase != rules.OVER,
                            facts=[("brains", s.brains[seat])],
                            piles=[pile("hand", counted(s.hands[seat]) if seen else [],
                                        0 if seen else sum(s.hands[seat])),
                                   pile("graveyard", counted(s.graves[seat]) if seen else [],
                                        0 if seen else sum(s.graves[seat]))]))
        if s.phase != rules.OVER and s.pending and (viewer is None or viewer == s.seat):
            what = "dealt" if s.phase == rules.DRAFT else "drawn"
            rows.append(row(what, seat=s.seat, piles=[pile(what, cards(s.pending))]))
        if s.phase != rules.OVER and s.extras:
            rows.append(row("extra copies to send", facts=[(f"copies of {s.horde[-1]}", s.extras)]))
        facts = [("round", s.round), ("turn", s.turn), ("reserve", len(s.reserve)),
                 ("discard pile", sum(s.discard)),
                 ("last die", f"{s.die}: {DIE_FACES[s.die]}" if s.die else "-")]
        return table(facts, rows)

    def _action_card(self, action: int) -> dict | None:
        s = self.state
        if action >= rules.PLAY_ACTION:
            return _card((action - rules.PLAY_ACTION) // s.maxc, s.marshmallows)
        if rules.VALUE_ACTION <= action < rules.OPPONENT_ACTION:
            return _card(action - rules.VALUE_ACTION, s.marshmallows)
        return None



def _card(value: int, marshmallows) -> dict:
    """A card as data: its value and effect (None for a plain card)."""
    return {"value": value, "effect": value_effect(value, marshmallows)}
