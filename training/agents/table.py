"""One game at a table: the env and who sits where, stepwise. Every game loop builds on it.

A :class:`Table` owns an env (behind the game's history wrapper when a seated policy reads
event history) and the policy in each seat, or ``None`` for a seat decided from outside (a
person, a learner). It says whose turn it is, gives a seat the observation its policy reads
(:func:`prefix`: a policy trained without history sees the prefix of the wrapped observation),
plays an action (summing every seat's rewards), plays the seated policies until an outside
seat is to move, and keeps the game's record (returns, scores, wins, length).

Its clients: the evaluation harness (``evaluate``, ``crossplay``, ``league``, ``benchmark``),
the learners' view of a game (``LearnerGame``), the web app's games and terminal play.
"""

from __future__ import annotations

from braincards.envs import TableConfig, table_config

from .policy import history_k_of


def prefix(observation: dict, size: int) -> dict:
    """``observation`` as a policy that reads its first ``size`` entries sees it."""
    if observation["observation"].shape[0] > size:
        return {"observation": observation["observation"][:size], "action_mask": observation["action_mask"]}
    return observation


def seats_config(spec, config: dict, seats: int) -> dict:
    """``config`` with ``num_players`` set to the number of ``seats`` (a ValueError when the
    config names another count, or the game has no such count)."""
    config = dict(config or {})
    n = config.setdefault("num_players", seats)
    if n != seats:
        raise ValueError(f"config has num_players={n} but {seats} seats were given; give one seat per player")
    return config


class Table:
    """A game's env and its seats (see the module docstring). Build it with the largest
    event history any policy that will sit there reads (:meth:`for_policies`), then
    :meth:`seat` policies and :meth:`reset` for every game."""

    def __init__(self, table: TableConfig, config: dict | None = None, history_k: int = 0, *,
                 record: bool = False):
        self.config = table_config(table, config)  # a TableConfig (or a game and its options)
        self.spec = self.config.spec
        self.env = self.config.table(history_k)
        self.raw = self.env.unwrapped
        self.agents: list[str] = list(self.raw.possible_agents)
        self.base = self.raw.layout.size  # the observation of a policy that reads no history
        self.recording = record
        self.policies: dict[str, object] = {}
        self._sizes: dict[str, int] = {}
        self.returns: dict[str, float] = dict.fromkeys(self.agents, 0.0)
        self.length = 0
        self.steps: list[tuple[str, int, dict]] = []  # (agent, action, rewards) when recording

    @classmethod
    def for_policies(cls, table: TableConfig, config: dict | None = None, policies=(), *,
                     record: bool = False) -> Table:
        """A table whose env gives every one of ``policies`` the history it reads."""
        return cls(table, config, history_k_of(p for p in policies if p is not None), record=record)

    def seat(self, policies) -> None:
        """Who sits where: one policy per seat in seat order, ``None`` for a seat decided from
        outside (a ValueError for the wrong number of seats)."""
        policies = list(policies)
        if len(policies) != len(self.agents):
            raise ValueError(f"{len(policies)} seats for {len(self.agents)} players")
        self.policies = {a: p for a, p in zip(self.agents, policies, strict=True) if p is not None}
        self._sizes = {a: getattr(p, "observation_size", self.base) for a, p in self.policies.items()}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game (the seated policies are reset by their owner, with their own seeds)."""
        self.env.reset(seed=seed, options=options)
        self.returns = dict.fromkeys(self.agents, 0.0)
        self.length = 0
        self.steps = []

    # ------------------------------------------------------------------ whose turn
    @property
    def over(self) -> bool:
        agent = self.raw.agent_selection
        return bool(self.raw.terminations[agent] or self.raw.truncations[agent])

    @property
    def truncated(self) -> bool:
        return any(self.raw.truncations.values())

    @property
    def to_move(self) -> str | None:
        """The seat to decide now (None once the game is over)."""
        return None if self.over else self.raw.agent_selection

    def seated(self, agent: str) -> bool:
        """Whether a policy sits at ``agent``'s seat (not an outside decider)."""
        return agent in self.policies

    # ------------------------------------------------------------------ moves
    def observe(self, agent: str) -> dict:
        """``agent``'s observation, as its seated policy reads it (an outside seat's whole)."""
        size = self._sizes.get(agent)
        observation = self.env.observe(agent)
        return observation if size is None else prefix(observation, size)

    def policy_action(self) -> int:
        """What the policy seated at the seat to move plays now."""
        agent = self.raw.agent_selection
        return int(self.policies[agent].act(self.observe(agent), agent))

    def play(self, action: int) -> dict:
        """The seat to move plays ``action``; returns what the step paid each seat."""
        agent = self.raw.agent_selection
        self.env.step(action)
        self.length += 1
        rewards = self.raw.rewards
        for a in self.agents:
            self.returns[a] += float(rewards[a])
        if self.recording:
            self.steps.append((agent, int(action), {a: float(rewards[a]) for a in self.agents}))
        return rewards

    def play_seated(self, on_step=None) -> None:
        """Play the seated policies until an outside seat is to move or the game is over;
        ``on_step(rewards)`` after each move."""
        while not self.over and self.raw.agent_selection in self.policies:
            rewards = self.play(self.policy_action())
            if on_step is not None:
                on_step(rewards)

    # ------------------------------------------------------------------ the record
    def record(self) -> dict:
        """The game's record: every seat's return, score and win, its length, and whether it
        was cut at ``max_cycles`` (a truncated game has no winner)."""
        returns = [self.returns[a] for a in self.agents]
        truncated = self.truncated
        state = self.raw.state
        return {"returns": returns, "scores": self.spec.scores(state),
                "wins": self.spec.wins(state, returns, truncated), "length": self.length, "truncated": truncated}
