"""Oh My Brain's rule baseline: a careful casual player that reads only its own observation.

* play / restart: play the lowest legal value (not 0 or the mouse), all copies at once (the
  extra copies go to opponents' graveyards); keep the 0s (mosquito: always legal) and mice
  for emergencies, i.e. when nothing else is legal (mouse first: it clears the horde and
  gives a new turn); pass only when no play is legal. The ``shedder`` style
  (``heuristic:style=shedder``) plays the value it holds most copies of instead, the highest
  on a tie: it empties its hand fast and raises the horde for the next player.
* extra copy / given card: to the opponent closest to going out (fewest cards in hand and
  graveyard; ties: the one with most brains).
* steal: from the opponent with most brains.
* exchange: the swap (hands or graveyards, with whom) that leaves it the fewest cards.
* draft: put the highest card that does not pair with another of its cards into the
  graveyard (keeps pairs and low cards to play); keep/refill: take emergencies (0, mouse)
  and values it already holds first, then the lowest; give: its lowest single card.
"""

from __future__ import annotations

import numpy as np

from braincards.envs import oh_my_brain
from braincards.envs.oh_my_brain.cards import MOSQUITO, MOUSE
from braincards.envs.oh_my_brain.rules import (
    DRAFT,
    EXCHANGE,
    EXCHANGE_GRAVE,
    EXCHANGE_HAND,
    EXTRA_TARGET,
    GIVE_CARD,
    GIVE_TARGET,
    KEEP,
    OPPONENT_ACTION,
    PASS,
    PLAY,
    PLAY_ACTION,
    REFILL,
    RESTART,
    STEAL,
    VALUE_ACTION,
    chosen_value,
    max_copies_of,
    opponent_of,
    played,
)

from ..policy import legal_actions
from .base import LayoutPlayer

EMERGENCY = (MOUSE, MOSQUITO)


class OhMyBrainHeuristic(LayoutPlayer):
    """Rule-based Oh My Brain player (see the module docstring). Deterministic."""

    GAME = oh_my_brain.SPEC.id
    name = "heuristic"
    PIECES = ("decision", "own_hand", "own_graveyard", "pending", "brains", "hand_sizes",
              "graveyard_sizes")
    STYLES = ("tidy", "shedder")

    def __init__(self, layout: dict, config: dict | None = None, seed: int | None = None, *,
                 style: str = "tidy"):
        super().__init__(layout, config, seed)
        if style not in self.STYLES:
            raise ValueError(f"unknown Oh My Brain heuristic style {style!r}; allowed: {list(self.STYLES)}")
        self.style = style
        if style != "tidy":
            self.name = f"heuristic:style={style}"

    def act(self, observation: dict, agent: str | None = None) -> int:
        """The rule-based choice for one decision (see the module docstring)."""
        mask = observation["action_mask"]
        legal = [int(a) for a in legal_actions(observation)]
        if len(legal) == 1:
            return legal[0]
        obs = np.asarray(observation["observation"])
        maxc = max_copies_of(len(mask))

        def counts(name):
            return np.rint(self._piece(obs, name) * maxc).astype(int)

        hand = counts("own_hand")
        pending = counts("pending")
        brains = self._piece(obs, "brains")
        cards = self._piece(obs, "hand_sizes") + self._piece(obs, "graveyard_sizes")
        d = int(np.argmax(self._piece(obs, "decision")))

        if d in (PLAY, RESTART):
            return self._play(legal, maxc, self.style == "shedder")
        if d in (EXTRA_TARGET, GIVE_TARGET):
            # the opponent closest to going out; ties: most brains
            return min(legal, key=lambda a: (cards[opponent_of(a)], -brains[opponent_of(a)], a))
        if d == STEAL:
            return max(legal, key=lambda a: (brains[opponent_of(a)], -cards[opponent_of(a)], -a))
        if d == EXCHANGE:
            return self._exchange(legal, self._piece(obs, "hand_sizes"),
                                  self._piece(obs, "graveyard_sizes"))
        return self._pick_value(d, legal, hand, pending)

    @staticmethod
    def _play(legal: list, maxc: int, shed: bool = False) -> int:
        """play / restart: the lowest normal value (all copies; ``shed``: the most copies, the
        highest value on a tie), else an emergency, else pass."""
        plays = [(a, *played(a, maxc)) for a in legal if a >= PLAY_ACTION]
        normal = [p for p in plays if p[1] not in EMERGENCY]
        if normal and shed:
            return max(normal, key=lambda p: (p[2], p[1]))[0]
        if normal:
            # the lowest value, all copies
            return min(normal, key=lambda p: (p[1], -p[2]))[0]
        for v in EMERGENCY:
            group = [p for p in plays if p[1] == v]
            if group:
                return max(group, key=lambda p: p[2])[0]
        return PASS if PASS in legal else legal[0]

    @staticmethod
    def _exchange(legal: list, hs: np.ndarray, gs: np.ndarray) -> int:
        """exchange: the swap (hands or graveyards, with whom) that leaves the fewest cards."""

        def gain(a):
            k = opponent_of(a)
            return hs[0] - hs[k] if EXCHANGE_HAND <= a < EXCHANGE_GRAVE else gs[0] - gs[k]

        return max(legal, key=lambda a: (gain(a), -a))

    @staticmethod
    def _pick_value(d: int, legal: list, hand: np.ndarray, pending: np.ndarray) -> int:
        """draft / keep / refill / give card: the value to choose (see the module docstring)."""
        values = [chosen_value(a) for a in legal if VALUE_ACTION <= a < OPPONENT_ACTION]
        if not values:
            return legal[0]
        if d == DRAFT:
            held = hand + pending

            def graveyard_score(v):  # higher = rather into the graveyard
                return (v not in EMERGENCY, held[v] == 1, v)

            return VALUE_ACTION + max(values, key=graveyard_score)
        if d in (KEEP, REFILL):
            def take_score(v):  # higher = rather into the hand
                return (v in EMERGENCY, hand[v] > 0, -v)

            return VALUE_ACTION + max(values, key=take_score)
        if d == GIVE_CARD:
            def give_score(v):  # higher = rather given away
                return (v not in EMERGENCY, hand[v] == 1, -v)

            return VALUE_ACTION + max(values, key=give_score)
        return legal[0]
