"""A braincards game seen by one learner: a gymnasium env for single-agent trainers.

:class:`LearnerEnv` turns a multi-seat AEC game into a single-agent episode:

* ``team`` mode (cooperative, The Brain): the learner plays every seat - one shared policy,
  self-play with the shared team reward. Every decision of every seat is one step.
* ``seat`` mode (competitive): the learner plays one seat, drawn each episode; the other
  seats are played by policies drawn from an :class:`OpponentPool` (random, heuristic,
  checkpoints, frozen snapshots of the learner). Their moves are made inside ``step()``.

Rewards: a step's reward is everything the game paid the learner's seat since its last
decision (plus, with ``shaping`` > 0, that coefficient times the progress made since: The
Brain's share of the 36 cards played out - a training signal that rewards progress towards
the win; ``info["episode_return"]`` is always the game's own return), so a game that ends on an opponent's move still reaches the learner (a loss then
arrives as -1 on the learner's last step, which ends the episode). ``action_masks()`` gives
the legal actions for sb3-contrib's MaskablePPO; it works under DummyVecEnv and
SubprocVecEnv. All randomness comes from the seed given to ``reset`` (deal, seat, opponent
draws, opponents' own seeds).
"""

from __future__ import annotations

from collections.abc import Sequence

import gymnasium
import numpy as np

from .checkpoint import make_table
from .policies import CheckpointPolicy, make_policy


class OpponentPool:
    """Weighted sources of opponents, drawn per seat and per episode.

    ``sources`` is a list of ``(source, weight)``: ``source`` is a policy spec (``random``,
    ``heuristic``, a checkpoint name or path, ...) or ``"snapshots"`` - the frozen copies of
    the learner added with :meth:`add_snapshot` (uniform among them; the source is skipped
    while there are none). Policies are built once and reused (each is reset with its own
    seed every game)."""

    SNAPSHOTS = "snapshots"

    def __init__(self, game: str, config: dict, sources: Sequence[tuple[str, float]], *,
                 max_snapshots: int = 10, deterministic: bool = False):  # fmt: skip
        if not sources:
            raise ValueError("an opponent pool needs at least one source")
        for src, w in sources:
            if not w > 0:
                raise ValueError(f"opponent source {src!r} has weight {w}; weights must be > 0")
        self.game, self.config = game, dict(config)
        self.sources = [(str(s), float(w)) for s, w in sources]
        self.max_snapshots = int(max_snapshots)
        self.deterministic = deterministic
        self.snapshots: list[tuple[str, CheckpointPolicy]] = []
        self._policies: dict[tuple[str, int], object] = {}

    def _policy(self, spec: str, seat: int):
        key = (spec, seat)
        if key not in self._policies:
            self._policies[key] = make_policy(spec, self.game, self.config,
                                              deterministic=self.deterministic)  # fmt: skip
        return self._policies[key]

    def add_snapshot(self, label: str, metadata: dict, tensors: dict) -> None:
        """Freeze a copy of the learner (its metadata and policy tensors) into the pool; the
        oldest is dropped beyond ``max_snapshots``."""
        from .checkpoint import _build_policy

        network = _build_policy(metadata, tensors, f"snapshot {label}")
        pol = CheckpointPolicy(network, metadata, deterministic=self.deterministic, name=label)
        self.snapshots.append((label, pol))
        del self.snapshots[: -self.max_snapshots]

    def draw(self, rng: np.random.Generator, seat: int) -> tuple[str, object]:
        """(label, policy) for one opponent seat."""
        live = [(s, w) for s, w in self.sources if s != self.SNAPSHOTS or self.snapshots]
        if not live:
            raise ValueError("the opponent pool has only 'snapshots' and no snapshot yet")
        weights = np.array([w for _, w in live])
        src = live[int(rng.choice(len(live), p=weights / weights.sum()))][0]
        if src == self.SNAPSHOTS:
            return self.snapshots[int(rng.integers(len(self.snapshots)))]
        return src, self._policy(src, seat)


def the_brain_progress(raw, seat: int) -> float:
    """The Brain: the share of the 36 cards out of play (the team's progress, R-B9's goal)."""
    s = raw.state
    held = len(s.deck) + sum(len(h) for h in s.hands) + sum(len(d) for d in s.domains)
    return (36 - held) / 36


# games whose progress can shape the learner's reward (``shaping`` > 0)
PROGRESS = {"the_brain_v0": the_brain_progress}


class LearnerEnv(gymnasium.Env):
    """One braincards game as a single-agent gymnasium env (see the module docstring)."""

    metadata = {"render_modes": []}

    def __init__(self, game: str, config: dict | None = None, *, mode: str = "team",
                 pool: OpponentPool | None = None, history_k: int = 0, shaping: float = 0.0):  # fmt: skip
        if mode not in ("team", "seat"):
            raise ValueError(f"mode {mode!r}; allowed: 'team', 'seat'")
        if shaping and game not in PROGRESS:
            raise ValueError(f"shaping needs a progress measure; games with one: {sorted(PROGRESS)}")
        self.shaping = float(shaping)
        self._progress = PROGRESS.get(game)
        self._last_progress = 0.0
        if mode == "seat" and pool is None:
            raise ValueError("seat mode needs an opponent pool")
        self.game, self.config, self.mode, self.pool = game, dict(config or {}), mode, pool
        self.table = make_table(game, self.config, history_k)
        self.raw = self.table.unwrapped
        self.agents = list(self.raw.possible_agents)
        if mode == "seat" and len(self.agents) < 2:
            raise ValueError("seat mode needs at least 2 players (a solo game is team mode)")
        space = self.table.observation_space(self.agents[0])
        self.observation_space = space["observation"]
        self.action_space = self.table.action_space(self.agents[0])
        self._base = self.raw.layout.size
        self._rng = np.random.default_rng()
        self._mask = np.zeros(self.action_space.n, np.int8)
        self.learner = self.agents[0]
        self.seated: dict[str, tuple[str, object]] = {}
        self.episode_return = 0.0

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        rng = self._rng
        self.table.reset(seed=int(rng.integers(2**31)), options=options)
        self.episode_return = 0.0
        if self.mode == "seat":
            self.learner = self.agents[int(rng.integers(len(self.agents)))]
            self.seated = {}
            for i, agent in enumerate(self.agents):
                if agent != self.learner:
                    label, pol = self.pool.draw(rng, i)
                    pol.reset(seed=int(rng.integers(2**31)))
                    self.seated[agent] = (label, pol)
        reward = self._play_others()
        self.episode_return += reward
        if self.shaping:
            self._last_progress = self._progress(self.raw, self.agents.index(self.learner))
        obs, info = self._observe()
        return obs, info

    def step(self, action):
        agent = self.raw.agent_selection
        self.table.step(int(action))
        reward = float(self.raw.rewards[agent if self.mode == "team" else self.learner])
        reward += self._play_others()
        self.episode_return += reward
        if self.shaping:  # training signal only: episode_return stays the game's return
            progress = self._progress(self.raw, self.agents.index(self.learner))
            reward += self.shaping * (progress - self._last_progress)
            self._last_progress = progress
        terminated = any(self.raw.terminations.values())
        truncated = not terminated and any(self.raw.truncations.values())
        obs, info = self._observe()
        if terminated or truncated:
            info["episode_return"] = self.episode_return
            info["win"] = self._won()
            if self.mode == "seat":
                info["opponents"] = [label for label, _ in self.seated.values()]
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self._mask.astype(bool)

    # ------------------------------------------------------------------ internals
    def _done(self) -> bool:
        agent = self.raw.agent_selection
        return self.raw.terminations[agent] or self.raw.truncations[agent]

    def _play_others(self) -> float:
        """Seat mode: opponents move until the learner must decide or the game ends; returns
        what the game paid the learner meanwhile."""
        if self.mode == "team":
            return 0.0
        paid = 0.0
        raw, table = self.raw, self.table
        while not self._done() and raw.agent_selection != self.learner:
            agent = raw.agent_selection
            pol = self.seated[agent][1]
            obs = table.observe(agent)
            size = getattr(pol, "observation_size", self._base)
            if obs["observation"].shape[0] > size:
                obs = {"observation": obs["observation"][:size], "action_mask": obs["action_mask"]}
            table.step(pol.act(obs, agent))
            paid += float(raw.rewards[self.learner])
        return paid

    def _observe(self):
        agent = self.raw.agent_selection if self.mode == "team" else self.learner
        obs = self.table.observe(agent)
        self._mask = obs["action_mask"]
        return obs["observation"], {}

    def _won(self) -> bool:
        from .evaluate import game_scores, game_wins

        raw = self.raw
        seats = raw.possible_agents
        rewards = [float(raw._cumulative_rewards[a]) for a in seats]
        truncated = any(raw.truncations.values())
        scores = game_scores(self.game, raw)
        wins = game_wins(self.game, raw, rewards, scores, truncated)
        return bool(wins[seats.index(self.learner)])

    # ------------------------------------------------------------------ pool control
    def add_snapshot(self, label: str, metadata: dict, tensors: dict) -> None:
        """Called through ``VecEnv.env_method`` to push a frozen learner to every env."""
        if self.pool is not None:
            self.pool.add_snapshot(label, metadata, tensors)

    def snapshot_labels(self) -> list[str]:
        return [label for label, _ in self.pool.snapshots] if self.pool is not None else []
