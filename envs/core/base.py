"""The AEC machinery every braincards game shares.

A game's env subclasses :class:`CardGameEnv` and implements the hooks (``_new_state``,
``_acting_agent``, ``_legal_actions``, ``_apply``, ``_is_terminal``, ``_agent_returns``,
``_fill_observation``, ``_render_text``, ``_table_data``, ``_action_card``,
``action_meaning``). This class owns seats,
rewards, masks, illegal-action handling, ``max_cycles`` truncation and rendering; the
rules stay in each game's pure ``rules.py``.
"""

from __future__ import annotations

import random

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from .config import check_action_int, check_choice, check_int, check_options
from .errors import IllegalActionError
from .layout import ObservationLayout

ILLEGAL_ACTION_MODES = ("raise", "penalize")


class CardGameEnv(AECEnv):
    """PettingZoo AEC env over a pure rules engine (see module docstring)."""

    metadata = {"name": "card_game", "render_modes": ["ansi", "human"], "is_parallelizable": False}
    RESET_OPTIONS: tuple[str, ...] = ("deck", "first_player", "state")

    def __init__(
        self,
        *,
        num_agents: int,
        num_actions: int,
        layout: ObservationLayout,
        max_cycles: int,
        render_mode: str | None,
        illegal_action: str,
    ):
        super().__init__()
        if render_mode is not None:
            check_choice("render_mode", render_mode, self.metadata["render_modes"] + [None])
        self.render_mode = render_mode
        self.illegal_action = check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        self.max_cycles = check_int("max_cycles", max_cycles, 1)
        self.possible_agents = [f"player_{i}" for i in range(num_agents)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self.layout = layout
        self._obs_size = layout.size
        self._num_actions = num_actions
        space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (layout.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
            }
        )
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self._rng = random.Random()
        self.state = None
        self._legal: list[int] | None = None
        self._live = False
        self.agents = []  # no game yet: reset() seats the agents

    def _not_playing(self, call: str) -> RuntimeError:
        """The error for ``call`` when no game is being played (``_live`` is False and no
        agent has a dead step left): before the first reset() or after the last dead step."""
        if self.state is None:
            return RuntimeError(f"call reset() before {call}: no game has started yet")
        return RuntimeError(
            f"{call} after the game is over and every agent has taken its dead step; "
            "call reset() to start a new game"
        )

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observation_layout(self) -> dict[str, dict]:
        """Every named slice of the observation vector: ``{name: {start, stop, size, doc}}``."""
        return self.layout.as_dict()

    # ------------------------------------------------------------------ hooks
    # ``rules`` is the game's pure rules module: State, legal_actions(state),
    # apply_action(state, action), is_terminal(state), current_seat(state).
    rules = None

    def _deal(self, rng: random.Random, options: dict):
        """A new game from the seeded ``rng`` and the (scripted) reset ``options``."""
        raise NotImplementedError

    def deal_state(self, rng: random.Random, options: dict | None = None):
        """The rules state of a new game dealt from ``rng``, as ``reset()`` deals it from its
        seeded generator (``reset(seed=s)`` deals ``deal_state(random.Random(s))``), with the
        same scripted reset ``options``. ``rng`` may be any ``random.Random``, e.g. one whose
        draws are explicit chance outcomes (the OpenSpiel adapter). The env's own game is
        left as it is; ``reset(options={"state": s.to_dict()})`` plays the dealt state."""
        return self._new_state(rng, check_options(options, self.RESET_OPTIONS))

    def _state_fit(self, state) -> dict[str, tuple]:
        """``{name: (value in state, value in this env)}`` for every config value a
        saved state must share with the env it is restored into."""
        raise NotImplementedError

    def _acting_agent(self) -> int:
        """Index of the agent that decides now (the seat to move, by default)."""
        return self.rules.current_seat(self.state)

    def _legal_actions(self) -> list[int]:
        return self.rules.legal_actions(self.state)

    def _apply(self, action: int) -> None:
        self.rules.apply_action(self.state, action)

    def _is_terminal(self) -> bool:
        return self.rules.is_terminal(self.state)

    def _agent_returns(self) -> list[float]:
        raise NotImplementedError

    def _fill_observation(self, agent_index: int, out: np.ndarray) -> None:
        raise NotImplementedError

    def _render_text(self, agent_index: int | None) -> str:
        raise NotImplementedError

    def action_meaning(self, action: int) -> str:
        raise NotImplementedError

    def end_reason(self) -> str | None:
        """Why the game ended, in one sentence with the seats' agent names (None while it goes
        on); a game cut short by ``max_cycles`` says so."""
        if self.state is None or self._live:
            return None
        if not self._is_terminal():
            return (f"The game was cut short: a seat reached max_cycles={self.max_cycles} decisions, "
                    "or an illegal action ended it.")
        return self._end_reason()

    def _end_reason(self) -> str:
        raise NotImplementedError

    def log_meaning(self, action: int) -> str:
        """What a lasting log of the game may say about ``action``, taken now (a move list,
        a replay viewer's log): :meth:`action_meaning`, unless the game's memory rule forbids
        keeping a written record of what it names."""
        return self.action_meaning(action)

    def _new_state(self, rng: random.Random, options: dict):
        if "state" not in options:
            return self._deal(rng, options)
        others = [k for k in options if k != "state" and k in self.RESET_OPTIONS]
        if others:
            raise ValueError(f"reset option 'state' cannot be combined with {others}")
        state = self.rules.State.from_dict(options["state"])
        misfits = [
            f"{name} is {got!r} in the state but {want!r} in this env"
            for name, (got, want) in self._state_fit(state).items()
            if got != want
        ]
        if misfits:
            raise ValueError("the state does not fit this env: " + "; ".join(misfits))
        return state

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict | None = None):
        options = check_options(options, self.RESET_OPTIONS)
        if seed is not None:
            self._rng = random.Random(seed)
        self.state = self._new_state(self._rng, options)
        self._legal = None
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._decisions = [0] * len(self.possible_agents)
        self._skip_agent_selection = None
        self._live = True  # False once the game is over (terminated, truncated, penalized)
        if self._is_terminal():  # a scripted state may already be over
            self._finish(self._agent_returns())
        else:
            self.agent_selection = self.possible_agents[self._acting_agent()]
        if self.render_mode == "human":
            self.render()

    def legal_actions(self) -> list[int]:
        """The legal actions of the agent to move (empty once the game is over)."""
        if self._legal is None:
            if self.state is None:
                raise self._not_playing("legal_actions()")
            self._legal = self._legal_actions() if self._live else []
        return self._legal

    def observe(self, agent):
        if self.state is None:
            raise self._not_playing(f"observe({agent!r})")
        obs = np.zeros(self._obs_size, np.float32)
        self._fill_observation(self._index[agent], obs)
        mask = np.zeros(self._num_actions, np.int8)
        if self._live and agent == self.agent_selection:
            mask[self.legal_actions()] = 1
        return {"observation": obs, "action_mask": mask}

    def last(self, observe: bool = True):
        """PettingZoo's ``last()``, with a clear error when no agent is left to act."""
        if not self.agents:
            raise self._not_playing("last()")
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action):
        if not self._live:  # over: every agent left takes its dead step (action None)
            if not self.agents:
                raise self._not_playing("step()")
            self._was_dead_step(action)
            return
        agent = self.agent_selection
        index = self._index[agent]
        try:
            action = check_action_int(action)
            self._apply(action)
        except IllegalActionError as err:
            if self.illegal_action == "penalize":
                self._penalize(agent, action)
                return
            shown = " ".join(repr(action).split())  # one line, whatever the type's repr
            shown = shown if len(shown) <= 80 else shown[:77] + "..."
            raise IllegalActionError(
                f"{agent} chose illegal action {shown}: {err}", action, self.legal_actions()
            ) from None
        self._legal = None
        self._cumulative_rewards[agent] = 0
        self._decisions[index] += 1
        if self._is_terminal():
            self._finish(self._agent_returns())
        elif self._decisions[index] >= self.max_cycles:
            self._live = False
            for a in self.agents:
                self.truncations[a] = True
        else:
            self.agent_selection = self.possible_agents[self._acting_agent()]
        if self.render_mode == "human":
            self.render()

    def _done(self) -> bool:
        """True once the game is over (terminated, truncated or penalized)."""
        return not self._live

    def _finish(self, returns) -> None:
        self._live = False
        for i, a in enumerate(self.possible_agents):
            self.rewards[a] = returns[i]
            self.terminations[a] = True
        self._accumulate_rewards()
        self.agent_selection = self.possible_agents[0]

    def _penalize(self, offender: str, action) -> None:
        self._live = False
        self._cumulative_rewards[offender] = 0
        for a in self.agents:
            self.rewards[a] = -1 if a == offender else 0
            self.terminations[a] = True
        # True, never the action itself: an offending action of 0, None or False must not read
        # as "no penalty" to code that tests the flag; the action is kept beside it
        self.infos[offender] = {"illegal_action": True, "attempted_action": action}
        self._accumulate_rewards()
        self._legal = []

    # ------------------------------------------------------------------ render
    def render_text(self, viewer: str | None = None) -> str:
        """The table as text: what ``viewer`` (an agent name) may see, or everything."""
        if self.state is None:
            raise RuntimeError("call reset() before rendering")
        return self._render_text(None if viewer is None else self._index[viewer])

    def table_data(self, viewer: str | None = None) -> dict:
        """The table as data (see :mod:`braincards.envs.core.table_data`): what ``viewer`` (an
        agent name) may see, or everything; the same knowledge as :meth:`render_text`."""
        if self.state is None:
            raise RuntimeError("call reset() before asking for the table")
        return self._table_data(None if viewer is None else self._index[viewer])

    def action_card(self, action: int) -> dict | None:
        """The card ``action`` plays, gives or names in the current decision, as the deciding
        seat sees it (a card dict of :meth:`table_data`), or None when it names no card."""
        if self.state is None:
            raise self._not_playing("action_card()")
        a = int(action)
        if not 0 <= a < self._num_actions:
            raise ValueError(f"action {action!r} is outside 0..{self._num_actions - 1}")
        return self._action_card(a)

    def _table_data(self, viewer: int | None) -> dict:
        raise NotImplementedError

    def _action_card(self, action: int) -> dict | None:
        raise NotImplementedError

    def render(self):
        if self.render_mode is None:
            return None
        text = self.render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass
