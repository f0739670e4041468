"""An observation wrapper that appends the last K public events (R-W9 companion).

With ``memory="none"`` a seat never sees its own hand's motifs, so a feed-forward policy
needs the history of what happened to learn the game. :class:`HistoryWrapper` appends a
fixed-length record of the last ``k`` public events: every draw, play and pile-or-middle
choice of every seat (who, which position, which motif, whether it matched). Everything
in it was public when it happened (the drawn card was the face-up pile top, R-W2; a played
card is turned face up), so no hidden information leaks.

Layout: the wrapped env's observation, then ``k`` event slots of :data:`EVENT_SIZE`
floats each, slot 0 the most recent event; unused slots are all 0. One slot is laid out
as :data:`EVENT_LAYOUT` (seats relative to the observer, as in the base observation).

    env = HistoryWrapper(brilliant_boar_v0.env(memory="none"), k=16)
"""

from __future__ import annotations

from collections import deque

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

from ..core.config import check_int
from ..core.layout import ObservationLayout
from . import rules
from .cards import MOTIF_OF, NUM_MOTIFS

MAX_K = 256
DEFAULT_K = 16
EVENT_KINDS = ("draw", "play", "choose")
RESULTS = ("match", "miss", "choice")  # choice: matched both pile top and middle, choice pending
TOOK = ("pile_top", "middle")
DRAW_EVENT, PLAY_EVENT, CHOOSE_EVENT = range(3)
MATCH, MISS, CHOICE = range(3)


def _event_layout() -> ObservationLayout:
    lay = ObservationLayout()
    lay.add("valid", 1, "1 when the slot holds an event")
    lay.add("actor", rules.MAX_PLAYERS, "one-hot of the seat that acted, relative to the observer (0 = the observer)")
    lay.add("kind", len(EVENT_KINDS), "one-hot of the event: " + ", ".join(EVENT_KINDS))
    lay.add("position", rules.MAX_HAND, "one-hot of the hand position: where a drawn card went (the end of the hand) or from where a card was played")
    lay.add("motif", NUM_MOTIFS, "one-hot of the motif drawn, played, or paired (choose)")
    lay.add("named", NUM_MOTIFS, "name_card plays: one-hot of the named motif (R-W6)")
    lay.add("result", len(RESULTS), "plays: one-hot of " + ", ".join(RESULTS) + " (choice: it matched both the pile top and the middle, R-W5)")
    lay.add("took", len(TOOK), "choose: one-hot of where the pair's second card came from: " + ", ".join(TOOK))
    return lay


EVENT_LAYOUT = _event_layout()
EVENT_SIZE = EVENT_LAYOUT.size
_E = {name: EVENT_LAYOUT.offset(name) for name in EVENT_LAYOUT.as_dict()}


UNKNOWN_MOTIF = -1
_VALID, _OWN = EVENT_LAYOUT.offset("valid"), EVENT_LAYOUT.offset("actor")  # actor 0 = the observer
_KIND, _POSITION, _MOTIF = (EVENT_LAYOUT.slice(n) for n in ("kind", "position", "motif"))


def recall_hand(events: np.ndarray, hand_size: int) -> list[int]:
    """The observer's hand motifs per position (:data:`UNKNOWN_MOTIF` for a card drawn
    before the window) that the events alone tell: ``events`` are the wrapper's slots
    (``(k, EVENT_SIZE)``, slot 0 the most recent), ``hand_size`` the observer's hand size
    now. Replays the observer's own draws (the motif joins the end of the hand) and plays
    (that position leaves, the later ones shift down) from the oldest."""
    own = []  # (kind, position, motif) of the observer's draws and plays, oldest first
    for e in events[::-1]:
        if e[_VALID] < 0.5 or e[_OWN] < 0.5:
            continue  # an empty slot, or another seat's event
        kind = int(np.argmax(e[_KIND]))
        if kind in (DRAW_EVENT, PLAY_EVENT):
            own.append((kind, int(np.argmax(e[_POSITION])), int(np.argmax(e[_MOTIF]))))
    draws = sum(kind == DRAW_EVENT for kind, _, _ in own)
    plays = len(own) - draws
    hand = [UNKNOWN_MOTIF] * (hand_size - draws + plays)  # the hand before the window
    for kind, position, motif in own:
        if kind == DRAW_EVENT:
            hand.append(motif)
        else:
            del hand[position]
    return hand


class HistoryWrapper(BaseWrapper):
    """Appends the last ``k`` public events to every observation (layout: module docstring)."""

    def __init__(self, env, k: int = DEFAULT_K):
        super().__init__(env)
        self.k = check_int("k", k, 1, MAX_K)
        raw = env.unwrapped
        self._base_size = raw.layout.size
        self._size = self._base_size + self.k * EVENT_SIZE
        self._events: deque = deque(maxlen=self.k)
        self._num_seats = len(raw.possible_agents)
        self._index = {a: i for i, a in enumerate(raw.possible_agents)}
        self.observation_spaces = {}
        for agent in raw.possible_agents:
            inner = env.observation_space(agent)
            self.observation_spaces[agent] = spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (self._size,), np.float32),
                    "action_mask": inner["action_mask"],
                }
            )

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def observation_layout(self) -> dict[str, dict]:
        """The wrapped env's pieces plus ``history`` (k slots of EVENT_LAYOUT)."""
        lay = dict(self.env.unwrapped.observation_layout())
        lay["history"] = {
            "start": self._base_size,
            "stop": self._size,
            "size": self.k * EVENT_SIZE,
            "doc": f"the last {self.k} public events, most recent first, {EVENT_SIZE} floats each (EVENT_LAYOUT)",
        }
        return lay

    def events(self) -> list[tuple]:
        """The recorded events, most recent first: ``(seat, kind, position, motif, named,
        result, took)`` with absolute seats and -1 where a field does not apply."""
        return list(reversed(self._events))

    def reset(self, seed=None, options=None):
        self._events.clear()
        self.env.reset(seed=seed, options=options)

    def step(self, action):
        raw = self.env.unwrapped
        agent = getattr(raw, "agent_selection", None)
        event = None
        if raw.state is not None and not (
            raw.terminations.get(agent, True) or raw.truncations.get(agent, True)
        ):
            try:
                a = int(action)
            except (TypeError, ValueError):
                a = None
            if a is not None and a in raw.legal_actions():
                event = self._before(raw.state, a)
        self.env.step(action)
        if event is not None:
            self._events.append(self._after(raw.state, event))

    @staticmethod
    def _before(s: rules.State, a: int) -> list:
        seat = s.seat
        hand = s.hands[seat]
        if a == rules.DRAW:
            return [seat, DRAW_EVENT, len(hand), MOTIF_OF[s.pile[0]], -1, -1, -1, -1]
        if a == rules.TAKE_TOP or a == rules.TAKE_MIDDLE:
            took = 0 if a == rules.TAKE_TOP else 1
            return [seat, CHOOSE_EVENT, -1, MOTIF_OF[s.pending], -1, MATCH, took, -1]
        if a < rules.TAKE_TOP:
            p, named = a - rules.PLAY, -1
        else:
            p, named = divmod(a - rules.NAMED, NUM_MOTIFS)
        won = len(s.won[seat])
        return [seat, PLAY_EVENT, p, MOTIF_OF[hand[p]], named, -1, -1, won]

    @staticmethod
    def _after(s: rules.State, ev: list) -> tuple:
        seat, kind = ev[0], ev[1]
        if kind == PLAY_EVENT:
            if len(s.won[seat]) > ev[7]:
                ev[5] = MATCH
            elif s.pending >= 0 and s.phase == rules.CHOOSE:
                ev[5] = CHOICE
            else:
                ev[5] = MISS
        return tuple(ev[:7])

    def observe(self, agent):
        inner = self.env.observe(agent)
        obs = np.zeros(self._size, np.float32)
        obs[: self._base_size] = inner["observation"]
        me = self._index[agent]
        n = self._num_seats
        ones = []
        base = self._base_size
        for seat, kind, pos, motif, named, result, took in reversed(self._events):
            ones.append(base + _E["valid"])
            ones.append(base + _E["actor"] + (seat - me) % n)
            ones.append(base + _E["kind"] + kind)
            if pos >= 0:
                ones.append(base + _E["position"] + pos)
            ones.append(base + _E["motif"] + motif)
            if named >= 0:
                ones.append(base + _E["named"] + named)
            if result >= 0:
                ones.append(base + _E["result"] + result)
            if took >= 0:
                ones.append(base + _E["took"] + took)
            base += EVENT_SIZE
        obs[ones] = 1.0
        return {"observation": obs, "action_mask": inner["action_mask"]}
