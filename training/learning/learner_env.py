"""A braincards game seen by learners: one layer that both training backends build on.

:class:`LearnerGame` owns everything a trainer needs from a game, once:

* **seats** - ``team`` mode (cooperative games, solo games): the learner plays every seat (one
  shared policy, the team reward). ``seat`` mode (competitive games): the learner plays one
  seat, drawn each game; every other seat draws a source from the :class:`OpponentPool`
  (random, heuristic, checkpoints, frozen snapshots of the learner) and is played inside the
  env - or, for snapshots on RLlib, by an external agent;
* **reward crediting** - an agent is credited everything the game paid its seat since its
  previous decision, so a game that ends on another seat's move still reaches it (a loss
  arrives as -1 on its last step). What was paid before an agent's first decision is counted
  in the game's return but credited to no decision;
* **shaping** - with ``shaping`` = c > 0 an agent is also credited c x the game's progress
  (the spec's ``progress``: The Brain's share of the 36 cards played out) since its previous
  decision: a training signal only, the recorded return and outcome are the game's;
* **the outcome** - who won, from the game's spec.

:class:`LearnerEnv` is the gymnasium view of it for single-agent trainers (SB3's MaskablePPO:
``action_masks()``; DummyVecEnv and SubprocVecEnv); the RLlib backend adapts the same
:class:`LearnerGame` to ``MultiAgentEnv`` (:mod:`braincards.training.learning.rllib.env`).
All randomness comes from the generator given to :meth:`LearnerGame.deal` (the deal, the
learner's seat, the opponents' draws and their own seeds, in that order).
"""

from __future__ import annotations

from collections.abc import Sequence

import gymnasium
import numpy as np

from braincards.envs import TableConfig, table_config

from ..agents.checkpoint import build_policy
from ..agents.network import CheckpointPolicy
from ..agents.specs import make_policy
from ..agents.table import Table

LEARNER = "learner"
MODES = ("team", "seat")


class OpponentPool:
    """Weighted sources of opponents, drawn per seat and per game.

    ``sources`` is a list of ``(source, weight)``: ``source`` is a policy spec (``random``,
    ``heuristic``, a checkpoint name or path, ...) or ``"snapshots"`` - the frozen copies of
    the learner, uniform among them (the source is skipped while there are none). Snapshots
    are either policies held here (:meth:`add_snapshot`, the SB3 trainer) or, with
    ``external_snapshots``, slots played by agents outside the env (:meth:`fill_slots`, the
    RLlib trainer's frozen modules). Policies are built once and reused (each is reset with
    its own seed every game)."""

    SNAPSHOTS = "snapshots"

    def __init__(self, game: str | TableConfig, config: dict | None, sources: Sequence[tuple[str, float]], *,
                 max_snapshots: int = 10, deterministic: bool = False,
                 external_snapshots: bool = False):
        if not sources:
            raise ValueError("an opponent pool needs at least one source")
        for src, w in sources:
            if not w > 0:
                raise ValueError(f"opponent source {src!r} has weight {w}; weights must be > 0")
        self.table = table_config(game, config)
        self.sources = [(str(s), float(w)) for s, w in sources]
        self.max_snapshots = int(max_snapshots)
        self.deterministic = deterministic
        self.external_snapshots = external_snapshots
        self.snapshots: list[tuple[str, CheckpointPolicy]] = []
        self.filled_slots = 0
        self._policies: dict[tuple[str, int], object] = {}

    def _policy(self, spec: str, seat: int):
        key = (spec, seat)
        if key not in self._policies:
            self._policies[key] = make_policy(spec, self.table, deterministic=self.deterministic)
        return self._policies[key]

    def add_snapshot(self, label: str, metadata: dict, tensors: dict) -> None:
        """Freeze a copy of the learner (its metadata and policy tensors) into the pool; the
        oldest is dropped beyond ``max_snapshots``."""
        network = build_policy(metadata, tensors, f"snapshot {label}")
        pol = CheckpointPolicy(network, metadata, deterministic=self.deterministic, name=label)
        self.snapshots.append((label, pol))
        del self.snapshots[: -self.max_snapshots]

    def fill_slots(self, filled: int) -> None:
        """External snapshots: how many of the ``max_snapshots`` slots hold weights."""
        self.filled_slots = min(int(filled), self.max_snapshots)

    def _has_snapshots(self) -> bool:
        return self.filled_slots > 0 if self.external_snapshots else bool(self.snapshots)

    def draw(self, rng: np.random.Generator, seat: int) -> tuple[str, object | None]:
        """(label, policy) for one opponent seat; the policy is None for an external
        snapshot (the label is then its slot, ``snapshot_<k>``)."""
        live = [(s, w) for s, w in self.sources if s != self.SNAPSHOTS or self._has_snapshots()]
        if not live:
            raise ValueError("the opponent pool has only 'snapshots' and no snapshot yet")
        weights = np.array([w for _, w in live])
        src = live[int(rng.choice(len(live), p=weights / weights.sum()))][0]
        if src != self.SNAPSHOTS:
            return src, self._policy(src, seat)
        if self.external_snapshots:
            return f"snapshot_{int(rng.integers(self.filled_slots))}", None
        return self.snapshots[int(rng.integers(len(self.snapshots)))]


class LearnerGame:
    """One game seen by its learning agents (see the module docstring).

    ``agent_per_seat`` (team mode): every seat is an agent of its own (``player_i``, RLlib's
    shared module) instead of one learner playing them all. After :meth:`deal` and
    :meth:`step`, :attr:`to_move` is the agent that decides next (None once the game is over).
    """

    def __init__(self, game: str | TableConfig, config: dict | None = None, *, mode: str = "team",
                 pool: OpponentPool | None = None, history_k: int = 0, shaping: float = 0.0,
                 agent_per_seat: bool = False):
        if mode not in MODES:
            raise ValueError(f"mode {mode!r}; allowed: 'team', 'seat'")
        table = table_config(game, config)
        self.spec = table.spec
        if shaping and self.spec.progress is None:
            raise ValueError(f"shaping needs a progress measure; {self.spec.id} has none")
        if mode == "seat" and pool is None:
            raise ValueError("seat mode needs an opponent pool")
        self.mode, self.pool, self.shaping = mode, pool, float(shaping)
        self.agent_per_seat = agent_per_seat
        self.table = Table(table, history_k=history_k)
        self.raw = self.table.raw
        self.seats = self.table.agents
        if mode == "seat" and len(self.seats) < 2:
            raise ValueError("seat mode needs at least 2 players (a solo game is team mode)")
        self.agent_of: dict[str, str] = {}  # seat -> the agent deciding there (external seats)
        self.played_by: dict[str, tuple[str, object]] = {}  # seat -> (label, policy) inside

    # ------------------------------------------------------------------ a game
    def deal(self, rng: np.random.Generator, options: dict | None = None) -> None:
        """A new game: the deal, then who sits where; the inside seats play until an agent
        is to move (or the game is over)."""
        self.table.reset(seed=int(rng.integers(2**31)), options=options)
        self.agent_of, self.played_by = {}, {}
        if self.mode == "team":
            self.agent_of = {s: (s if self.agent_per_seat else LEARNER) for s in self.seats}
        else:
            learner = self.seats[int(rng.integers(len(self.seats)))]
            for i, seat in enumerate(self.seats):
                if seat == learner:
                    self.agent_of[seat] = LEARNER
                    continue
                label, pol = self.pool.draw(rng, i)
                if pol is None:
                    self.agent_of[seat] = f"{label}_{sum(a != LEARNER for a in self.agent_of.values())}"
                else:
                    pol.reset(seed=int(rng.integers(2**31)))
                    self.played_by[seat] = (label, pol)
        self.table.seat([self.played_by[s][1] if s in self.played_by else None for s in self.seats])
        # the agent credited with a seat's rewards: a team's learner takes its first seat's
        # (a cooperative game pays every seat the same)
        self._credit = {}
        for seat, agent in self.agent_of.items():
            self._credit.setdefault(agent, seat)
        self._pending: dict[str, float] = {}
        self._started: set[str] = set()
        self._last_progress: dict[str, float] = {}
        self._advance()
        self._start_next()

    def step(self, action: int) -> None:
        """The agent to move plays ``action``; then the inside seats, until an agent is to
        move or the game is over."""
        self._collect(self.table.play(int(action)))
        self._advance()
        self._start_next()

    @property
    def over(self) -> bool:
        return self.table.over

    @property
    def truncated(self) -> bool:
        return self.table.truncated

    @property
    def to_move(self) -> str | None:
        seat = self.table.to_move
        return None if seat is None else self.agent_of[seat]

    @property
    def returns(self) -> dict[str, float]:
        """The game's own return of every seat so far (no shaping)."""
        return self.table.returns

    def seat_of(self, agent: str) -> str:
        """The seat whose rewards ``agent`` is credited (a team's learner: its first seat)."""
        return self._credit[agent]

    def started(self, agent: str) -> bool:
        """Whether ``agent`` has made a decision in this game."""
        return agent in self._started

    def observe(self, agent: str) -> dict:
        """The observation of the seat ``agent`` decides at (the one to move, if it is)."""
        seat = self.raw.agent_selection
        if self.agent_of.get(seat) != agent:
            seat = self.seat_of(agent)
        return self.table.observe(seat)

    def credit(self, agent: str) -> float:
        """What ``agent`` is owed since its previous decision (its seat's rewards, plus the
        shaping term), paid out now."""
        reward = self._pending.pop(agent, 0.0)
        if self.shaping and agent in self._started:
            now = self.spec.progress(self.raw.state)
            reward += self.shaping * (now - self._last_progress[agent])
            self._last_progress[agent] = now
        return reward

    def episode_return(self, agent: str = LEARNER) -> float:
        """The game's own return of ``agent``'s seat so far (no shaping)."""
        return self.returns[self.seat_of(agent)]

    def won(self, agent: str = LEARNER) -> bool:
        """Whether ``agent``'s seat won the game (the spec decides; a truncated game has no
        winner)."""
        rewards = [self.returns[s] for s in self.seats]
        wins = self.spec.wins(self.raw.state, rewards, self.truncated)
        return bool(wins[self.seats.index(self.seat_of(agent))])

    # ------------------------------------------------------------------ internals
    def _collect(self, rewards: dict) -> None:
        """Owe each agent what the last move paid the seat it is credited."""
        for agent, seat in self._credit.items():
            r = float(rewards[seat])
            if r:
                self._pending[agent] = self._pending.get(agent, 0.0) + r

    def _advance(self) -> None:
        """Play the inside seats until an agent is to move or the game is over."""
        self.table.play_seated(self._collect)

    def _start_next(self) -> None:
        """The agent to move makes its first decision of the game: what it was paid before
        is credited to no decision."""
        agent = self.to_move
        if agent is None or agent in self._started:
            return
        self._pending.pop(agent, None)
        self._started.add(agent)
        if self.shaping:
            self._last_progress[agent] = self.spec.progress(self.raw.state)


class LearnerEnv(gymnasium.Env):
    """A :class:`LearnerGame` with one learner as a single-agent gymnasium env (SB3)."""

    metadata = {"render_modes": []}

    def __init__(self, game: str | TableConfig, config: dict | None = None, *, mode: str = "team",
                 pool: OpponentPool | None = None, history_k: int = 0, shaping: float = 0.0):
        self.game = LearnerGame(game, config, mode=mode, pool=pool, history_k=history_k,
                                shaping=shaping)
        self.mode, self.pool, self.shaping = mode, pool, float(shaping)
        self.table, self.raw = self.game.table.env, self.game.raw
        self.agents = self.game.seats
        space = self.table.observation_space(self.agents[0])
        self.observation_space = space["observation"]
        self.action_space = self.table.action_space(self.agents[0])
        self._rng = np.random.default_rng()
        self._mask = np.zeros(self.action_space.n, np.int8)

    @property
    def learner(self) -> str:
        """The seat the learner plays (seat mode; the first seat in team mode)."""
        return self.game.seat_of(LEARNER)

    @property
    def seated(self) -> dict[str, tuple[str, object]]:
        """The opponents of this game: seat -> (label, policy)."""
        return self.game.played_by

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.game.deal(self._rng, options)
        return self._observe(), {}

    def step(self, action):
        self.game.step(action)
        reward = self.game.credit(LEARNER)
        terminated = self.game.over and not self.game.truncated
        truncated = self.game.truncated
        obs, info = self._observe(), {}
        if terminated or truncated:
            info["episode_return"] = self.game.episode_return()
            info["win"] = self.game.won()
            if self.mode == "seat":
                info["opponents"] = [label for label, _ in self.seated.values()]
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self._mask.astype(bool)

    @property
    def episode_return(self) -> float:
        return self.game.episode_return()

    def _observe(self) -> np.ndarray:
        obs = self.game.observe(LEARNER)
        self._mask = obs["action_mask"]
        return obs["observation"]

    # ------------------------------------------------------------------ pool control
    def add_snapshot(self, label: str, metadata: dict, tensors: dict) -> None:
        """Called through ``VecEnv.env_method`` to push a frozen learner to every env."""
        if self.pool is not None:
            self.pool.add_snapshot(label, metadata, tensors)

    def snapshot_labels(self) -> list[str]:
        return [label for label, _ in self.pool.snapshots] if self.pool is not None else []
