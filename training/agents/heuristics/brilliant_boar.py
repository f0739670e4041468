"""A rule-based Brilliant Boar player with a perfect memory of its own draws.

With ``memory="none"`` a seat's own hand motifs are never in its observation, so this
player keeps its own memory, built only from the observations it has seen: the pile's top
card is face up (R-W2), so when it draws it knows the motif of the card appended to the end
of its hand (R-W3); when it plays position p, that card leaves and the later ones shift
down. Nobody else changes its hand.

* turn: play a card it knows matches the pile's top or a middle card (a pair, and it plays
  again); otherwise draw; when the pile is empty it must play: first the cards whose motif
  it does not know (they may match), then any. The ``shedder`` style
  (``heuristic:style=shedder``) keeps its hand small instead: with no known match and at
  least ``SHED_AT`` (7) cards in hand, it lays its oldest card in the middle (a miss) rather than
  draw, so it holds fewer cards that could be left over at the end.
* choose (both the pile's top and a middle card match): take the middle card when it still
  holds another card of the pile's top motif (so that top stays to be matched next),
  otherwise take the pile's top (revealing a new card).
* name-a-card variant: it names the motif it remembers (or, for a card it does not know,
  the pile's top motif or a middle motif).

:class:`BrilliantBoarWindowHeuristic` (spec ``heuristic:window=K``) plays the same rule but
remembers nothing between decisions: at every decision it rebuilds its hand from the last
``K`` public events of :class:`~braincards.envs.brilliant_boar.HistoryWrapper` alone, so it
knows exactly what a feed-forward policy behind ``HistoryWrapper(k=K)`` can know. Cards drawn
before the window are unknown to it. It is the yardstick (and a teacher whose every label
the learner can reproduce) for ``memory="none"`` learners.
"""

from __future__ import annotations

import numpy as np

from braincards.envs import brilliant_boar
from braincards.envs.brilliant_boar.history import EVENT_SIZE, MAX_K, recall_hand
from braincards.envs.core.config import check_int

from ..policy import legal_actions
from .base import LayoutPlayer

NUM_MOTIFS = 9
MAX_HAND = 54
DRAW = 0
PLAY = 1  # PLAY + p
TAKE_TOP = PLAY + MAX_HAND  # 55
TAKE_MIDDLE = TAKE_TOP + 1  # 56
NAMED = TAKE_MIDDLE + 1  # 57 + 9 * p + m
UNKNOWN = -1


class BrilliantBoarHeuristic(LayoutPlayer):
    """Rule-based Brilliant Boar player with its own memory (see the module docstring)."""

    GAME = brilliant_boar.SPEC.id
    name = "heuristic"
    PIECES = ("decision", "pile_top", "middle", "own_positions", "pending")

    STYLES = ("keeper", "shedder")
    SHED_AT = 7  # the shedder lays a card down rather than draw from this many cards in hand

    def __init__(self, layout: dict, config: dict | None = None, seed: int | None = None, *,
                 style: str = "keeper"):
        super().__init__(layout, config, seed)
        if style not in self.STYLES:
            raise ValueError(f"unknown Brilliant Boar heuristic style {style!r}; allowed: {list(self.STYLES)}")
        self.style = style
        if style != "keeper":
            self.name = f"heuristic:style={style}"
        self._memory: dict[str | None, list[int]] = {}
        self._asked: dict[str | None, tuple[list[int], int]] = {}

    def reset(self, seed: int | None = None) -> None:
        self._memory = {}
        self._asked = {}

    def played(self, agent: str | None, action: int) -> None:
        """The action actually taken at the decision ``act`` was last asked about, when it
        is not the one ``act`` returned (DAgger: the learner plays, this player only labels).
        Its memory is rebuilt from that action, as if it had chosen it."""
        if agent not in self._asked:
            raise ValueError(f"played({agent!r}, ...) before act() was asked for that seat")
        mem, top = self._asked.pop(agent)
        action = int(action)
        if action == DRAW:
            mem.append(top)
        elif PLAY <= action < TAKE_TOP or action >= NAMED:
            p = action - PLAY if action < TAKE_TOP else (action - NAMED) // NUM_MOTIFS
            if p < len(mem):
                del mem[p]
        self._memory[agent] = mem

    def memory(self, agent: str | None = None) -> list[int]:
        """The motifs it remembers per own hand position (-1 = unknown)."""
        return list(self._memory.get(agent, []))

    def act(self, observation: dict, agent: str | None = None) -> int:
        obs = np.asarray(observation["observation"])
        legal = [int(a) for a in legal_actions(observation)]
        legal_set = set(legal)
        mem = self._memory.setdefault(agent, [])
        size = int(np.count_nonzero(self._piece(obs, "own_positions") > 0.5))
        if len(mem) > size:  # should not happen: we saw every change of our hand
            del mem[size:]
        while len(mem) < size:
            mem.append(UNKNOWN)
        top_vec = self._piece(obs, "pile_top")
        top = int(np.argmax(top_vec)) if top_vec.max() > 0.5 else UNKNOWN
        self._asked[agent] = (list(mem), top)  # what played() rebuilds from
        middle = {int(m) for m in np.flatnonzero(self._piece(obs, "middle") > 1e-6)}
        decision = int(np.argmax(self._piece(obs, "decision")))

        if decision == 1:  # choose: the pile's top or the middle card
            pending_vec = self._piece(obs, "pending")
            motif = int(np.argmax(pending_vec)) if pending_vec.max() > 0.5 else UNKNOWN
            prefer_middle = motif != UNKNOWN and motif in mem
            order = (TAKE_MIDDLE, TAKE_TOP) if prefer_middle else (TAKE_TOP, TAKE_MIDDLE)
            for a in order:
                if a in legal_set:
                    return a
            return legal[0]

        def play(p: int, motif: int) -> int | None:
            if PLAY + p in legal_set:
                return PLAY + p
            if motif == UNKNOWN:
                motif = top if top != UNKNOWN else (min(middle) if middle else 0)
            a = NAMED + NUM_MOTIFS * p + motif
            return a if a in legal_set else None

        targets = middle | ({top} if top != UNKNOWN else set())
        a = _play_first(mem, [p for p, m in enumerate(mem) if m != UNKNOWN and m in targets], play)
        if a is None and self.style == "shedder" and len(mem) >= self.SHED_AT:
            a = _play_first(mem, [0], play)  # its oldest card, a miss
        if a is not None:
            return a
        if DRAW in legal_set:
            mem.append(top)  # the face-up top card joins the end of our hand
            return DRAW
        order = [p for p, m in enumerate(mem) if m == UNKNOWN] + [p for p, m in enumerate(mem) if m != UNKNOWN]
        a = _play_first(mem, order, play)
        if a is not None:
            return a
        # nothing we recognise is legal (only if our memory is out of step): any legal play
        a = legal[0]
        if PLAY <= a < TAKE_TOP and a - PLAY < len(mem):
            del mem[a - PLAY]
        elif a >= NAMED and (a - NAMED) // NUM_MOTIFS < len(mem):
            del mem[(a - NAMED) // NUM_MOTIFS]
        return a


def _play_first(mem: list[int], positions: list[int], play) -> int | None:
    """The first of ``positions`` that ``play`` can play (that card leaves ``mem``), or None."""
    for p in positions:
        a = play(p, mem[p])
        if a is not None:
            del mem[p]
            return a
    return None


class BrilliantBoarWindowHeuristic(BrilliantBoarHeuristic):
    """The heuristic's rule with a memory of the last ``window`` public events only (see the
    module docstring). Reads the observation behind ``HistoryWrapper`` with ``k >= window``;
    ``history_k`` and ``observation_size`` tell the evaluation harness to wrap the env."""

    def __init__(self, layout: dict, config: dict | None = None, seed: int | None = None, *,
                 window: int = 16, style: str = "keeper"):
        super().__init__(layout, config, seed, style=style)
        self.window = check_int("window", window, 1, MAX_K)
        self.history_k = self.window
        self.base_size = max(p["stop"] for p in layout.values())
        self.observation_size = self.base_size + self.window * EVENT_SIZE
        self.name = f"heuristic:window={self.window}" + ("" if style == "keeper" else f",style={style}")

    def played(self, agent: str | None, action: int) -> None:
        """Nothing to remember: the next decision rebuilds the hand from the events."""

    def recall(self, observation) -> list[int]:
        """The own hand's motifs per position (-1 = unknown) from the events in ``observation``:
        the own draws and plays in the window, replayed from the oldest."""
        obs = np.asarray(observation)
        if obs.shape[-1] < self.observation_size:
            raise ValueError(f"{self.name} reads {self.observation_size} observation floats (the env "
                             f"behind HistoryWrapper with k >= {self.window}) but got {obs.shape[-1]}")
        events = obs[self.base_size : self.observation_size].reshape(self.window, EVENT_SIZE)
        size = int(np.count_nonzero(self._piece(obs, "own_positions") > 0.5))
        return recall_hand(events, size)

    def act(self, observation: dict, agent: str | None = None) -> int:
        self._memory[agent] = self.recall(observation["observation"])
        obs = np.asarray(observation["observation"])[: self.base_size]
        return super().act({"observation": obs, "action_mask": observation["action_mask"]}, agent)
