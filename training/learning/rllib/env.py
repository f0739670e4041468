"""A braincards AEC game as an RLlib ``MultiAgentEnv`` (turn-based, action-masked).

RLlib's conventions, which PettingZoo's own observation dict does not follow:

* each agent's observation is ``{"observations": float32 vector, "action_mask": float32
  0/1 vector}`` (:data:`OBS_KEY`, :data:`MASK_KEY`), the keys the action-masking RLModule
  reads (:mod:`braincards.training.learning.rllib.module`);
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
  :func:`braincards.training.agents.specs.make_policy` spec) is a braincards policy that the env
  plays itself, reset with a seed of its own at the start of every game.

Seats, reward crediting, shaping (``env_config["shaping"]``), the history wrapper
(``env_config["history_k"]``) and the opponent pool are the SB3 trainer's own:
:class:`~braincards.training.learning.learner_env.LearnerGame`, with one agent per seat in
team mode and the snapshot seats played by external agents. This module only adapts it to
RLlib's dicts.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from ..learner_env import LEARNER, LearnerGame, OpponentPool
from .runner_config import RunnerConfig

OBS_KEY = "observations"
MASK_KEY = "action_mask"
SNAPSHOT_PREFIX = "snapshot_"
SNAPSHOTS = OpponentPool.SNAPSHOTS


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
    """``[{"source", "weight"}]`` (dicts, objects with those attributes, or bare specs) ->
    [(source, weight)]; an empty list means the heuristic."""
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
    return out or [("heuristic", 1.0)]


class BraincardsMultiAgentEnv(MultiAgentEnv):
    """See the module docstring. ``config``: RLlib's ``env_config``, a
    :class:`~.runner_config.RunnerConfig` as a mapping."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        run = RunnerConfig.from_env_config(config)
        self.mode, self.max_snapshots = run.mode, int(run.max_snapshots)
        self.pool = self._pool(run) if run.mode == "seat" else None
        self.game = LearnerGame(run.game, dict(run.env), mode=run.mode, pool=self.pool,
                                history_k=int(run.history_k), shaping=float(run.shaping), agent_per_seat=True)
        seats = self.game.seats
        if run.mode == "team":
            agents = list(seats)
        else:
            agents = [LEARNER] + [snapshot_agent(k, j) for k in range(self.max_snapshots)
                                  for j in range(len(seats) - 1)]
        base = self.game.table.env.observation_space(seats[0])
        n_actions = int(self.game.table.env.action_space(seats[0]).n)
        space = gym.spaces.Dict({
            OBS_KEY: gym.spaces.Box(0.0, 1.0, base["observation"].shape, np.float32),
            MASK_KEY: gym.spaces.Box(0.0, 1.0, (n_actions,), np.float32),
        })
        self.possible_agents, self.agents = agents, list(agents)
        self.observation_spaces = dict.fromkeys(agents, space)
        self.action_spaces = dict.fromkeys(agents, gym.spaces.Discrete(n_actions))
        self._rng = np.random.default_rng(run.seed)
        self._outcomes: list[int] = []  # 1 = the learner (team) won, per finished game

    def _pool(self, run: RunnerConfig) -> OpponentPool:
        sources = normalize_opponents(run.opponents)
        if any(s == SNAPSHOTS for s, _ in sources) and self.max_snapshots < 1:
            raise ValueError("the opponents include 'snapshots' but max_snapshots < 1")
        pool = OpponentPool(run.game, dict(run.env), sources, max_snapshots=max(1, self.max_snapshots),
                            deterministic=bool(run.deterministic), external_snapshots=True)
        pool.fill_slots(int(run.snapshot_slots))
        return pool

    # ------------------------------------------------------------------ trainer hooks
    def set_snapshot_slots(self, filled: int) -> None:
        """How many snapshot slots hold weights (the trainer calls this on every env)."""
        if self.pool is not None:
            self.pool.fill_slots(filled)

    def pop_outcomes(self) -> list[int]:
        """The finished games since the last call: 1 where the learner (team) won."""
        out, self._outcomes = self._outcomes, []
        return out

    # ------------------------------------------------------------------ playing
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        for _ in range(100):
            self.game.deal(self._rng)
            if not self.game.over:  # an RLlib agent is to move
                break
        else:
            raise RuntimeError(f"{self.game.spec.id}: 100 games in a row ended before a learner moved")
        agent = self.game.to_move
        return {agent: to_rllib_obs(self.game.observe(agent))}, {}

    def step(self, action_dict: dict):
        game = self.game
        agent = game.to_move
        if agent not in action_dict:
            raise ValueError(f"{agent} is to move; got actions for {sorted(action_dict)}")
        played = [a for a in self.possible_agents if game.started(a)]
        game.step(int(action_dict[agent]))
        if game.over:
            judged = LEARNER if self.mode == "seat" else game.seats[0]
            self._outcomes.append(int(game.won(judged)))
            obs = {a: to_rllib_obs(game.observe(a)) for a in self.possible_agents if game.started(a)}
            rewards = {a: game.credit(a) for a in obs}
            return obs, rewards, {"__all__": not game.truncated}, {"__all__": game.truncated}, {}
        nxt = game.to_move
        rewards = {a: r for a in played if (r := game.credit(a)) or a == nxt}
        return ({nxt: to_rllib_obs(game.observe(nxt))}, rewards, {"__all__": False},
                {"__all__": False}, {})
