"""One game played in the browser: the env (the truth, kept on the server), the seated
policies, the move log, the pending human decision and its clock, and the replay.

A :class:`GameSession` is changed only under its own lock; every request names the step it
acts on, so a stale request (a double click, a second tab) is refused and changes nothing.
"""

from __future__ import annotations

import threading
import time

from braincards.envs import derive_seed, table_config
from braincards.training.agents.kinds import parse_spec
from braincards.training.agents.specs import make_policy
from braincards.training.agents.table import Table, seats_config

HUMAN = "human"
SEARCH_LIMITS = {"samples": 32, "nodes": 5000}  # per decision, for any kind that takes them
MOVE_BUDGET_S = 1.0  # the most time a search seat's move may take: it stops sampling then


class RequestError(ValueError):
    """A request the game refuses (the HTTP status and a message for the person)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def check_budget(seat: str) -> None:
    """A RequestError when ``seat`` asks for more search per decision than
    :data:`SEARCH_LIMITS` allows (PIMC's, or a guided seat's PIMC judge's, samples and nodes):
    no one move may hold the server for long."""
    try:
        _, _, pairs = parse_spec(seat)
    except ValueError:
        return  # not a spec with parameters: building it reports what is wrong
    for key, value in pairs:
        limit = SEARCH_LIMITS.get(key)
        if limit is not None and value.isdigit() and int(value) > limit:  # a non-number: building it says so
            raise RequestError(422, f"{seat!r}: {key}={value} is over this server's limit of {limit} "
                                    f"per decision (allowed: {key}=1..{limit})")


def is_search(seat: str) -> bool:
    """Whether ``seat`` searches at every move (PIMC, or a network with a PIMC judge): its
    moves take far longer than a rule player's or a network's."""
    try:
        kind, _, pairs = parse_spec(seat)
    except ValueError:
        return False
    return kind == "pimc" or dict(pairs).get("judge") == "pimc"


def _set_deadline(policy, when: float | None) -> None:
    """Give ``policy`` a time.monotonic() deadline for its move where it takes one (PIMC, and
    a guided policy for its PIMC judge, stop sampling at it)."""
    if hasattr(policy, "deadline"):
        policy.deadline = when


def check_seats(spec, config: dict, seats: list) -> list[str]:
    """The seats as spec strings, one per player (a RequestError otherwise)."""
    if not isinstance(seats, list) or not all(isinstance(s, str) and s.strip() for s in seats):
        raise RequestError(422, "seats must be a list of policy specs ('human' for a person)")
    seats = [s.strip() for s in seats]
    try:
        seats_config(spec, {"num_players": spec.num_players(config)}, len(seats))
    except ValueError as err:
        raise RequestError(422, f"{spec.title}: {err}") from None
    if seats.count(HUMAN) > 1:
        raise RequestError(422, "at most one seat may be 'human'")
    for seat in seats:
        check_budget(seat)
    return seats


def seat_labels(spec, seats: list[str], policies: bool = True) -> list[str]:
    """What the page calls each seat: "you", then "partner 1 (heuristic)", "partner 2
    (heuristic)" (opponents in a competitive game), so that two seats of one policy are told
    apart; without a person, "seat 1 (greedy)", ...; ``policies=False`` (a study): "partner 1",
    never the policy."""
    word = ("partner" if spec.cooperative else "opponent") if HUMAN in seats else "seat"
    out, k = [], 0
    for s in seats:
        if s == HUMAN:
            out.append("you")
        else:
            k += 1
            out.append(f"{word} {k} ({s})" if policies else f"{word} {k}")
    return out


class GameSession:
    """A live game: ``seats`` are policy specs or ``"human"`` (at most one)."""

    def __init__(self, game: str, config: dict, seats: list[str], seed: int, *,
                 labels: list[str] | None = None, replay_name: str | None = None):
        table = table_config(game, config)
        self.spec = table.spec
        self.config = table.config
        self.seats = list(seats)
        self.seed = int(seed)
        self.env_seed = derive_seed(self.seed, 0)
        self.labels = labels or seat_labels(self.spec, self.seats)
        self.replay_name = replay_name
        self.lock = threading.Lock()
        seated = [None if s == HUMAN else make_policy(s, table, seed=derive_seed(self.seed, 0, 1, i))
                  for i, s in enumerate(seats)]
        self.table = Table.for_policies(table, policies=seated)
        self.table.seat(seated)
        self.raw = self.table.raw
        self.table.reset(seed=self.env_seed)
        self.agents = self.table.agents
        self.human = self.agents[seats.index(HUMAN)] if HUMAN in seats else None
        self.search_seats = {a for a, s in zip(self.agents, seats, strict=True) if is_search(s)}
        self.steps: list[dict] = []  # the replay's steps
        self.log: list[dict] = []  # {"i", "agent", "kind", "meaning"} per move
        self.decision_times: list[float] = []
        self.pending_since: float | None = None
        self.touched = time.monotonic()  # the last request about it (idle games expire)
        self.client: str | None = None  # the address that created it (free play)
        self.study: dict | None = None  # a study game: participant, game, condition, deal
        self.saved_to = None
        self.notes: list[str] = []  # about the table, for the page: options taken from a checkpoint, or not its own
        self.tutorial = None  # a tutorials.TutorialGuide when this is a tutorial game

    # ------------------------------------------------------------------ state
    @property
    def step(self) -> int:
        """How many moves were made: the version a request must name."""
        return len(self.steps)

    @property
    def over(self) -> bool:
        return self.table.over

    @property
    def to_act(self) -> str | None:
        return self.table.to_move

    def check_step(self, step) -> None:
        if not isinstance(step, int) or isinstance(step, bool):
            raise RequestError(422, "'step' must be the integer step the page shows")
        if step != self.step:
            raise RequestError(409, f"stale request: the game is at step {self.step}, not {step} "
                                    f"(a double click or another tab?); reload the game")

    # ------------------------------------------------------------------ moves
    def human_move(self, action, step) -> None:
        """The person's move (a RequestError for a stale, out-of-turn or illegal one)."""
        self.check_step(step)
        if self.over:
            raise RequestError(409, "the game is over")
        if self.human is None or self.to_act != self.human:
            raise RequestError(409, f"it is not your turn: {self.to_act} decides now")
        if not isinstance(action, int) or isinstance(action, bool):
            raise RequestError(422, "'action' must be an integer action id")
        if action not in self.raw.legal_actions():
            raise RequestError(422, f"action {action} is not legal now; legal: {self.raw.legal_actions()}")
        if self.tutorial is not None:
            self.tutorial.check(self, action)
        if self.pending_since is not None:
            self.decision_times.append(round(time.monotonic() - self.pending_since, 3))
        self.pending_since = None
        kind = self._apply(action)
        if self.tutorial is not None:
            self.tutorial.moved(kind)

    def agent_move(self, step) -> None:
        """One move of the policy whose turn it is (the page asks for each, at its pace)."""
        self.check_step(step)
        if self.over:
            raise RequestError(409, "the game is over")
        if self.to_act == self.human:
            raise RequestError(409, "it is your turn, not an agent's")
        policy = self.table.policies[self.to_act]
        _set_deadline(policy, time.monotonic() + MOVE_BUDGET_S)
        try:
            action = self.table.policy_action()
        finally:
            _set_deadline(policy, None)
        self._apply(action)

    @property
    def searching(self) -> bool:
        """Whether the seat to move is a search seat (:func:`is_search`)."""
        return self.to_act in self.search_seats

    def _apply(self, action: int) -> str:
        """Play ``action`` for the seat to move and log it; returns the decision kind it was."""
        agent = self.raw.agent_selection
        kind = self.spec.decision(self.raw.state)
        meaning = self.raw.log_meaning(action)
        paid = self.table.play(action)
        rewards = {a: float(paid[a]) for a in self.agents}
        self.steps.append({"i": len(self.steps), "agent": agent, "action": action, "rewards": rewards})
        self.log.append({"i": len(self.log), "agent": agent, "kind": kind, "meaning": meaning})
        return kind

    def mark_pending(self) -> None:
        """Start the person's decision clock when their decision is first shown."""
        if self.pending_since is None and self.human is not None and self.to_act == self.human:
            self.pending_since = time.monotonic()

    # ------------------------------------------------------------------ results
    def result(self) -> dict:
        """The finished game's result (the replay's last line)."""
        record = self.table.record()
        return {"returns": record["returns"], "scores": [float(x) for x in record["scores"]],
                "wins": record["wins"], "truncated": record["truncated"], "length": record["length"],
                "outcome": getattr(self.raw.state, "outcome", None)}

    def header(self) -> dict:
        return {"game": self.spec.id, "config": self.config, "seed": self.seed,
                "env_seed": self.env_seed, "seats": self.seats}
