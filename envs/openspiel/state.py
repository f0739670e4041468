"""The OpenSpiel state of a braincards game (:class:`BraincardsState`) and its observer.

Before the deal the state is a chance node: each outcome is one uniform draw of the env's
deal (see :mod:`.chance`); once the outcomes complete the deal the state holds a
:class:`~.table.Table` and the players decide, every move played by the env's own hooks.

Observation (``perfect_recall=False``): the env's observation vector of the seat, exactly
``env.observe(agent)["observation"]``; its string lists the vector's set slots.

Information state (``perfect_recall=True``): a string only, ``p<seat>`` followed by the seat's
observation after the deal and after every move, and each of its own actions (``a<action>``)
in order, so it is perfect recall and holds nothing the seat's observations did not show.
No information-state tensor is provided (see docs/interop/openspiel.md).
"""

from __future__ import annotations

import numpy as np
import pyspiel

from .table import Table, worker

OBSERVATION = "observation"


class BraincardsState(pyspiel.State):
    """A braincards game in OpenSpiel: chance nodes for the deal, then the env's moves."""

    def __init__(self, game):
        super().__init__(game)
        self._key = str(game)
        self._outcomes: list[int] | None = []
        self._table: Table | None = None
        self._logs: dict[int, list[str]] = {}  # info-state entries of each seat asked so far
        self._pending = 0
        self._table, self._pending = worker(self._key).deal(self._outcomes)

    # ------------------------------------------------------------------ set up at a table
    def set_table(self, rules_state, decisions: list[int] | None = None) -> None:
        """Start from a dealt rules state (no chance history: the information state, which
        recalls the history, is unavailable; observations are). Used by samplers."""
        w = worker(self._key)
        self._outcomes = None
        self._pending = 0
        self._logs = {}
        self._table = Table(self._key, rules_state, list(decisions or [0] * w.num_players))

    @property
    def rules_state(self):
        """The braincards rules state (None before the deal completes); read only."""
        return None if self._table is None else self._table.state

    @property
    def chance_outcomes_so_far(self) -> list[int]:
        """The deal's chance outcomes applied so far (None for a state set up at a table)."""
        return None if self._outcomes is None else list(self._outcomes)

    @property
    def decisions(self) -> list[int]:
        """Decisions per seat so far (the env's ``max_cycles`` counts them)."""
        return [] if self._table is None else list(self._table.decisions)

    # ------------------------------------------------------------------ OpenSpiel API
    def current_player(self):
        if self._pending:
            return pyspiel.PlayerId.CHANCE
        w = worker(self._key)
        if w.is_over(self._table):
            return pyspiel.PlayerId.TERMINAL
        return w.acting(self._table)

    def _legal_actions(self, player):
        if self._pending or player != self.current_player():
            return []
        return worker(self._key).legal_actions(self._table)

    def chance_outcomes(self):
        p = 1.0 / self._pending
        return [(o, p) for o in range(self._pending)]

    def _apply_action(self, action):
        w = worker(self._key)
        if self._pending:
            self._outcomes.append(int(action))
            self._table, self._pending = w.deal(self._outcomes)
            if self._table is not None:
                for p, log in self._logs.items():
                    log.append(w.observation_string(self._table, p))
            return
        agent = w.apply(self._table, action)
        for p, log in self._logs.items():
            if p == agent:
                log.append(f"a{int(action)}")
            log.append(w.observation_string(self._table, p))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance outcome {action} of {self._pending or '?'}"
        return worker(self._key).action_string(self._table, action)

    def is_terminal(self):
        return not self._pending and worker(self._key).is_over(self._table)

    def returns(self):
        w = worker(self._key)
        if self._table is None:
            return [0.0] * w.num_players
        return w.returns(self._table)

    def __str__(self):
        if self._table is None:
            return f"dealing: chance outcomes {self._outcomes}"
        return worker(self._key).text(self._table)

    # ------------------------------------------------------------------ information state
    def info_log(self, player: int) -> list[str]:
        """The information-state entries of ``player`` (built by replaying the deal and the
        moves once, then kept up to date move by move)."""
        if player not in self._logs:
            self._logs[player] = self._replay_log(player)
        return self._logs[player]

    def _replay_log(self, player: int) -> list[str]:
        if self._outcomes is None:
            raise ValueError(
                "this state was set up at a dealt table (set_table), not reached through the "
                "chance nodes and moves: it has no history to recall. Key searches by "
                "observation strings instead (ISMCTS: use_observation_string=True)."
            )
        w = worker(self._key)
        n = len(self._outcomes)
        table, _ = w.deal(self._outcomes)
        if table is None:
            return []
        log = [w.observation_string(table, player)]
        for action in self.history()[n:]:
            agent = w.apply(table, action)
            if agent == player:
                log.append(f"a{action}")
            log.append(w.observation_string(table, player))
        return log


class BraincardsObserver:
    """The observer of :meth:`make_py_observer`: the observation (tensor and string) or
    the information state (string only), see the module docstring."""

    def __init__(self, iig_obs_type, obs_size: int, params):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError(
                "braincards games observe as one seat sees the table (public_info=True, "
                f"private_info=SINGLE_PLAYER); got {iig_obs_type}"
            )
        self.perfect_recall = iig_obs_type.perfect_recall
        size = 0 if self.perfect_recall else obs_size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {OBSERVATION: self.tensor} if size else {}

    def set_from(self, state: BraincardsState, player: int) -> None:
        if self.perfect_recall:
            return
        worker(state._key).observe(state._table, player, self.tensor)

    def string_from(self, state: BraincardsState, player: int) -> str:
        if self.perfect_recall:
            return "\n".join([f"p{player}"] + state.info_log(player))
        return worker(state._key).observation_string(state._table, player)
