"""One braincards table as the OpenSpiel state sees it: :class:`Table` and :class:`Worker`.

A :class:`Table` is the part of a game that a braincards env would hold after its deal: the
rules state, each seat's decision count (the env's ``max_cycles`` truncation) and whether the
game was cut short. It copies in microseconds (``rules_state.copy()``), which is what
OpenSpiel's ``State.clone()`` (a ``copy.deepcopy`` of every attribute) calls, and pickles as
the rules state's JSON-safe dict (``serialize_game_and_state``).

A :class:`Worker` holds one env of a game config and runs the env's own hooks on a table:
legal actions, applying an action, the acting seat, the observation, the returns and the
text. So the rules, the observation and the returns are the env's, line for line; only the
AEC bookkeeping (whose turn it is in PettingZoo's sense, dead steps) is not needed here.
"""

from __future__ import annotations

import numpy as np

from braincards.envs import SPECS
from braincards.envs.core.base import CardGameEnv

from .chance import ChanceSource, NeedOutcome

_WORKERS: dict[str, Worker] = {}


class Table:
    """A dealt game: the rules ``state``, ``decisions`` per seat, and ``cut`` (True once a
    seat reached ``max_cycles`` decisions, as the env truncates)."""

    __slots__ = ("state", "decisions", "cut", "key")

    def __init__(self, key: str, state, decisions: list[int], cut: bool = False):
        self.key = key
        self.state = state
        self.decisions = decisions
        self.cut = cut

    def __deepcopy__(self, memo):
        return Table(self.key, self.state.copy(), list(self.decisions), self.cut)

    def __reduce__(self):
        return _table_from, (self.key, self.state.to_dict(), list(self.decisions), self.cut)


def _table_from(key: str, data: dict, decisions: list[int], cut: bool) -> Table:
    """A :class:`Table` from its pickled form (the worker's rules module reads the state)."""
    return Table(key, worker(key).env.rules.State.from_dict(data), decisions, cut)


def worker(key: str) -> Worker:
    """The worker of the game whose OpenSpiel string is ``key`` (registered by the game)."""
    found = _WORKERS.get(key)
    if found is None:
        raise KeyError(f"no braincards OpenSpiel game {key!r} was loaded in this process")
    return found


def encode_observation(obs: np.ndarray) -> str:
    """An observation vector as text: the set slots, ``index`` for a 1 and ``index=value``
    for another value (the vector is mostly zeros and ones)."""
    idx = np.flatnonzero(obs)
    vals = obs[idx]
    return " ".join(str(i) if v == 1.0 else f"{i}={float(v):.6g}" for i, v in zip(idx.tolist(), vals.tolist(), strict=True))


class Worker:
    """The env of one game config, run on tables (module docstring)."""

    def __init__(self, key: str, env_id: str, options: dict):
        self.key = key
        self.spec = SPECS[env_id]
        self.env: CardGameEnv = self.spec.raw_env(**options)
        self.env.reset(seed=0)  # every per-game attribute exists from now on
        self.num_players = len(self.env.possible_agents)
        self.num_actions = self.env.action_space(self.env.possible_agents[0]).n
        self.obs_size = self.env.observation_space(self.env.possible_agents[0])["observation"].shape[0]
        self.max_cycles = self.env.max_cycles
        _WORKERS[key] = self

    # ------------------------------------------------------------------ the deal
    def deal(self, outcomes: list[int]):
        """(the table dealt by ``outcomes``, 0) once they complete a deal, else (None, the
        number of outcomes of the next chance node)."""
        source = ChanceSource(outcomes)
        try:
            state = self.env.deal_state(source)
        except NeedOutcome as need:
            return None, need.size
        if not source.used_all():
            raise ValueError(f"the deal used {len(source.sizes)} of {len(outcomes)} chance outcomes")
        return Table(self.key, state, [0] * self.num_players), 0

    def chance_sizes(self) -> list[int]:
        """The number of outcomes of every chance node of a deal (all outcomes 0; the sizes of
        a braincards deal do not depend on the outcomes drawn)."""
        outcomes: list[int] = []
        while True:
            source = ChanceSource(outcomes)
            try:
                self.env.deal_state(source)
            except NeedOutcome:
                outcomes.append(0)
                continue
            return source.sizes

    # ------------------------------------------------------------------ the game
    def _on(self, table: Table) -> CardGameEnv:
        self.env.state = table.state
        return self.env

    def is_over(self, table: Table) -> bool:
        return table.cut or self._on(table)._is_terminal()

    def acting(self, table: Table) -> int:
        """The acting agent's index (the game must not be over)."""
        return self._on(table)._acting_agent()

    def legal_actions(self, table: Table) -> list[int]:
        if self.is_over(table):
            return []
        return sorted(self._on(table)._legal_actions())

    def apply(self, table: Table, action: int) -> int:
        """Play ``action`` for the acting agent as ``env.step`` does (the decision count and
        the ``max_cycles`` cut included); returns the agent's index."""
        env = self._on(table)
        agent = env._acting_agent()
        env._apply(int(action))
        table.decisions[agent] += 1
        if not env._is_terminal() and table.decisions[agent] >= self.max_cycles:
            table.cut = True
        return agent

    def returns(self, table: Table) -> list[float]:
        """The env's returns once the game ended (0 for every seat while it goes on, and
        when it was cut short by ``max_cycles``, as the env's truncation gives)."""
        env = self._on(table)
        if table.cut or not env._is_terminal():
            return [0.0] * self.num_players
        return [float(r) for r in env._agent_returns()]

    def observe(self, table: Table, player: int, out: np.ndarray) -> None:
        """``out[:] =`` the env's observation vector of ``player`` (zeros before the deal)."""
        out.fill(0.0)
        if table is not None:
            self._on(table)._fill_observation(player, out)

    def observation_string(self, table: Table | None, player: int) -> str:
        if table is None:
            return "dealing"
        out = np.zeros(self.obs_size, np.float32)
        self.observe(table, player, out)
        return encode_observation(out)

    def action_string(self, table: Table | None, action: int) -> str:
        if table is None:
            return f"action {action}"
        try:
            return f"{action}: {self._on(table).action_meaning(int(action))}"
        except (ValueError, IndexError, KeyError):
            return f"action {action}"

    def text(self, table: Table) -> str:
        """The whole table as text (the env's render), with the decision counts."""
        body = self._on(table)._render_text(None)
        cut = "\ncut short at max_cycles" if table.cut else ""
        return f"{body}\ndecisions per seat: {table.decisions}{cut}"
