"""A braincards AEC game as an RLlib ``MultiAgentEnv`` (turn-based, action-masked).

RLlib's conventions, which PettingZoo's own observation dict does not follow:

* each agent's observation is ``{"observations": float32 vector, "action_mask": float32
  0/1 vector}`` (:data:`OBS_KEY`, :data:`MASK_KEY`), the keys the action-masking RLModule
  reads (:mod:`braincards.training.rllib.module`);
* only the agent to move gets an observation; rewards may go to any agent that has
  already played (RLlib adds them to that agent's last step), so a game lost on another
  seat's move still reaches the learner as -1;
* when the game ends every agent that played gets a last observation and its reward, and
  ``terminateds["__all__"]`` (``truncateds["__all__"]`` at ``max_cycles``) ends the episode.

Two modes (``env_config["mode"]``):

* ``"team"`` (The Brain): every seat is an RLlib agent ``player_i``; the policy mapping
  sends them all to one shared module (team reward).
* ``"seat"`` (competitive games): each episode the learner's seat is drawn; the other seats
  draw an opponent source from ``env_config["opponents"]`` (``[{"source", "weight"}]``).
  A ``"snapshots"`` seat is an RLlib agent ``snapshot_{slot}_{j}``, which the policy mapping
  sends to the frozen module ``snapshot_{slot}`` (a copy of the learner whose weights the
  trainer pushes to the env runners; the env draws the slot among the
  ``env_config["snapshot_slots"]`` filled ones, and seats no snapshot before the first).
  Every other source (``"random"``, ``"heuristic"``, a checkpoint path or name - any
  :func:`braincards.training.policies.make_policy` spec) is a braincards policy that the env
  plays itself, reset with a seed of its own at the start of every game.

``env_config["history_k"] > 0`` plays the game behind its history wrapper (Brilliant Boar
with ``memory="none"``), exactly as the SB3 trainer and ``load_policy`` do.
``env_config["shaping"] = c > 0`` (The Brain) adds, as the SB3 trainer's ``LearnerEnv``
does, c x the game's progress (the share of the 36 cards out of play) made since each
agent's previous decision - a training signal only; the recorded outcomes are the game's.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

OBS_KEY = "observations"
MASK_KEY = "action_mask"
LEARNER = "learner"
SNAPSHOT_PREFIX = "snapshot_"
MODES = ("team", "seat")
SNAPSHOTS = "snapshots"


def make_table(game: str, config: dict, history_k: int = 0):
    """The raw AEC env of ``game`` (behind its history wrapper when ``history_k > 0``)."""
    if history_k:
        from braincards.training.checkpoint import make_table as _make_table

        return _make_table(game, dict(config), history_k)
    from braincards.envs import make

    return make(game, raw=True, **dict(config))


def snapshot_agent(slot: int, j: int) -> str:
    """The RLlib agent id of the j-th snapshot seat of a game, playing slot ``slot``."""
    return f"{SNAPSHOT_PREFIX}{slot}_{j}"


def module_for(agent_id: str) -> str:
    """The policy mapping: ``snapshot_{slot}_{j}`` -> ``snapshot_{slot}``, else the learner."""
    if agent_id.startswith(SNAPSHOT_PREFIX):
        return agent_id.rsplit("_", 1)[0]
    return LEARNER


def to_rllib_obs(obs: dict) -> dict:
    """A braincards observation dict -> RLlib's ``{"observations", "action_mask"}``."""
    return {
        OBS_KEY: np.asarray(obs["observation"], dtype=np.float32),
        MASK_KEY: np.asarray(obs["action_mask"], dtype=np.float32),
    }


def normalize_opponents(opponents) -> list[tuple[str, float]]:
    """``[{"source", "weight"}]`` (dicts or objects with those attributes) -> [(source, p)]
    with probabilities summing to 1; an empty list means the heuristic."""
    out = []
    for item in opponents or []:
        if isinstance(item, str):
            source, weight = item, 1.0
        elif isinstance(item, dict):
            source, weight = item["source"], item.get("weight", 1.0)
        else:
            source, weight = item.source, getattr(item, "weight", 1.0)
        weight = float(weight)
        if weight < 0:
            raise ValueError(f"opponent {source!r} has a negative weight {weight}")
        if weight > 0:
            out.append((str(source), weight))
    if not out:
        return [("heuristic", 1.0)]
    total = sum(w for _, w in out)
    return [(s, w / total) for s, w in out]


class BraincardsMultiAgentEnv(MultiAgentEnv):
    """See the module docstring. ``config``: ``game`` (env id), ``env`` (env options),
    ``mode`` (``"team"``/``"seat"``), ``opponents``, ``max_snapshots``, ``snapshot_slots``,
    ``deterministic`` (checkpoint opponents play their argmax), ``history_k``, ``shaping``,
    ``seed``."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        config = dict(config or {})
        self.game = config["game"]
        self.env_options = dict(config.get("env") or {})
        self.mode = config.get("mode", "team")
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")
        self.history_k = int(config.get("history_k") or 0)
        self.table = make_table(self.game, self.env_options, self.history_k)
        self.shaping = float(config.get("shaping") or 0.0)
        self._progress_fn = None
        if self.shaping:
            from braincards.training.learner_env import PROGRESS

            if self.game not in PROGRESS:
                raise ValueError(f"shaping needs a progress measure; games with one: {sorted(PROGRESS)}")
            self._progress_fn = PROGRESS[self.game]
        self._last_progress: dict[str, float] = {}
        self.seats = list(self.table.possible_agents)
        n = len(self.seats)
        base = self.table.observation_space(self.seats[0])
        n_actions = int(self.table.action_space(self.seats[0]).n)
        space = gym.spaces.Dict({
            OBS_KEY: gym.spaces.Box(0.0, 1.0, base["observation"].shape, np.float32),
            MASK_KEY: gym.spaces.Box(0.0, 1.0, (n_actions,), np.float32),
        })  # fmt: skip
        self.max_snapshots = int(config.get("max_snapshots") or 0)
        self.snapshot_slots = int(config.get("snapshot_slots") or 0)
        self.deterministic = bool(config.get("deterministic", False))
        if self.mode == "team":
            agents = list(self.seats)
            self.opponents: list[tuple[str, float]] = []
        else:
            if n < 2:
                raise ValueError(f"seat mode needs 2+ players; {self.game} has {n}")
            self.opponents = normalize_opponents(config.get("opponents"))
            if any(s == SNAPSHOTS for s, _ in self.opponents) and self.max_snapshots < 1:
                raise ValueError("the opponents include 'snapshots' but max_snapshots < 1")
            agents = [LEARNER] + [snapshot_agent(k, j) for k in range(self.max_snapshots)
                                  for j in range(n - 1)]  # fmt: skip
        self.possible_agents = agents
        self.agents = list(agents)
        self.observation_spaces = dict.fromkeys(agents, space)
        self.action_spaces = dict.fromkeys(agents, gym.spaces.Discrete(n_actions))
        self._rng = np.random.default_rng(config.get("seed"))
        self._policies: dict[tuple, object] = {}  # (source, seat) -> braincards policy
        self._agent_of: dict[str, str] = {}  # seat -> RLlib agent id (exposed seats)
        self._builtin: dict[str, object] = {}  # seat -> policy the env plays itself
        self._started: set[str] = set()
        self._pending: dict[str, float] = {}
        self._returns: dict[str, float] = {}
        self._outcomes: list[int] = []  # 1 = the learner (team) won, per finished game

    # ------------------------------------------------------------------ trainer hooks
    def set_snapshot_slots(self, filled: int) -> None:
        """How many snapshot slots hold weights (the trainer calls this on every env)."""
        self.snapshot_slots = min(int(filled), self.max_snapshots)

    def pop_outcomes(self) -> list[int]:
        """The finished games since the last call: 1 where the learner (team) won."""
        out, self._outcomes = self._outcomes, []
        return out

    # ------------------------------------------------------------------ opponents
    def _policy(self, source: str, seat: str):
        """One policy object per (source, seat): a policy may remember the game it plays."""
        key = (source, seat)
        if key not in self._policies:
            from braincards.training.policies import make_policy

            self._policies[key] = make_policy(source, self.game, self.env_options,
                                              deterministic=self.deterministic)  # fmt: skip
        return self._policies[key]

    def _seat_everyone(self) -> None:
        self._agent_of, self._builtin = {}, {}
        if self.mode == "team":
            self._agent_of = {s: s for s in self.seats}
            return
        learner_seat = int(self._rng.integers(len(self.seats)))
        pool = [(s, w) for s, w in self.opponents if s != SNAPSHOTS or self.snapshot_slots > 0]
        if not pool:  # only snapshots, none taken yet: random seats meanwhile
            pool = [("random", 1.0)]
        sources = [s for s, _ in pool]
        probs = np.array([w for _, w in pool]) / sum(w for _, w in pool)
        snapshots = 0
        for i, seat in enumerate(self.seats):
            if i == learner_seat:
                self._agent_of[seat] = LEARNER
                continue
            source = sources[int(self._rng.choice(len(sources), p=probs))]
            if source == SNAPSHOTS:
                slot = int(self._rng.integers(self.snapshot_slots))
                self._agent_of[seat] = snapshot_agent(slot, snapshots)
                snapshots += 1
            else:
                pol = self._policy(source, seat)
                pol.reset(seed=int(self._rng.integers(2**31)))
                self._builtin[seat] = pol

    # ------------------------------------------------------------------ playing
    def _over(self) -> bool:
        t = self.table
        return any(t.terminations[a] or t.truncations[a] for a in self.seats)

    def _collect(self) -> None:
        for seat in self.seats:
            r = float(self.table.rewards[seat])
            self._returns[seat] = self._returns.get(seat, 0.0) + r
            agent = self._agent_of.get(seat)
            if agent is not None and r:
                self._pending[agent] = self._pending.get(agent, 0.0) + r

    def _record_outcome(self) -> None:
        from braincards.training.evaluate import game_scores, game_wins

        t = self.table
        raw = getattr(t, "unwrapped", t)
        returns = [self._returns.get(s, 0.0) for s in self.seats]
        truncated = any(t.truncations[a] for a in self.seats)
        wins = game_wins(self.game, raw, returns, game_scores(self.game, raw), truncated)
        who = 0
        if self.mode == "seat":
            who = next(i for i, s in enumerate(self.seats) if self._agent_of.get(s) == LEARNER)
        self._outcomes.append(int(bool(wins[who])))

    def _advance(self) -> None:
        """Play the env's own seats until an RLlib agent is to move or the game is over."""
        t = self.table
        while not self._over():
            seat = t.agent_selection
            if seat in self._agent_of:
                return
            t.step(self._builtin[seat].act(t.observe(seat), seat))
            self._collect()

    def _progress(self) -> float:
        raw = getattr(self.table, "unwrapped", self.table)
        return float(self._progress_fn(raw, 0))

    def _start(self, agent: str) -> None:
        """``agent`` makes its first decision of the game."""
        self._pending.pop(agent, None)  # paid before its first move: nothing to credit
        self._started.add(agent)
        if self.shaping:
            self._last_progress[agent] = self._progress()

    def _rewards(self) -> dict:
        """The rewards gathered since the last step, for the agents that have played (plus
        the shaping term for the progress made since each one's previous step)."""
        if self.shaping:
            now = self._progress()
            for a in self._started:
                delta = now - self._last_progress.get(a, now)
                if delta:
                    self._pending[a] = self._pending.get(a, 0.0) + self.shaping * delta
                self._last_progress[a] = now
        return {a: self._pending.pop(a) for a in list(self._pending) if a in self._started}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        for _ in range(100):
            self._seat_everyone()
            self.table.reset(seed=int(self._rng.integers(2**31)))
            self._started, self._pending, self._returns = set(), {}, {}
            self._last_progress = {}
            self._collect()
            self._advance()
            if not self._over():  # an RLlib agent is to move
                break
        else:
            raise RuntimeError(f"{self.game}: 100 games in a row ended before a learner moved")
        seat = self.table.agent_selection
        agent = self._agent_of[seat]
        self._start(agent)
        return {agent: to_rllib_obs(self.table.observe(seat))}, {}

    def step(self, action_dict: dict):
        t = self.table
        seat = t.agent_selection
        agent = self._agent_of[seat]
        if agent not in action_dict:
            raise ValueError(f"{agent} ({seat}) is to move; got actions for {sorted(action_dict)}")
        t.step(int(action_dict[agent]))
        self._collect()
        self._advance()
        if self._over():
            self._record_outcome()
            truncated = any(t.truncations[a] for a in self.seats)
            obs = {}
            for s, a in self._agent_of.items():
                if a in self._started:
                    obs[a] = to_rllib_obs(t.observe(s))
            pending = self._rewards()
            rewards = {a: pending.get(a, 0.0) for a in obs}
            return obs, rewards, {"__all__": not truncated}, {"__all__": truncated}, {}
        seat = t.agent_selection
        nxt = self._agent_of[seat]
        first = nxt not in self._started
        rewards = self._rewards()
        if first:
            self._start(nxt)
        else:  # RLlib wants a reward with every obs after the first
            rewards.setdefault(nxt, 0.0)
        return ({nxt: to_rllib_obs(t.observe(seat))}, rewards, {"__all__": False},
                {"__all__": False}, {})  # fmt: skip
