"""A trained network with a small search at decision time (spec ``guided``, The Brain).

``guided:checkpoint=NAME,top=K[,judge=greedy|pimc][,samples=N,nodes=N][,confident=P]``: at every decision
the checkpoint's network ranks the legal actions (most likely first) and proposes its ``top``
K; a judge scores them and the best is played, the network's order breaking ties. The
judges:

* ``greedy`` (the default): the one-ply look-ahead of ``greedy``
  (:meth:`~.greedy.TheBrainGreedy.action_scores`: the value of the best whole turn through an
  action);
* ``pimc``: the PIMC search (:meth:`~.pimc.PIMCPolicy.vote`: in how many of ``samples``
  sampled deals the action is proven to win, the solver's budget ``nodes`` per deal and
  action), run over the K proposals only - a policy prior that cuts the search's cost to
  K of the legal actions.
With ``confident=P`` the judge is asked only where the network is unsure: a decision where
the network gives its most likely legal action probability ``P`` or more is the network's
alone, so the search's cost goes where the network hesitates. ``top=1`` is the network
alone; ``top`` at least the number of legal actions lets the look-ahead choose among all of
them, breaking its ties by the network. In between, the network prunes what the search
considers, as a policy prior does - the pure network and the network plus search are
separate specs, so both can sit on the leaderboard. It reads only its observation, like
both of its parts.
"""

from __future__ import annotations

from braincards.envs import TableConfig, table_config

from ..kinds import Param, PolicyKind
from ..network import CheckpointPolicy, load_policy
from ..policy import legal_actions
from .greedy import TheBrainGreedy, make_greedy
from .pimc import PIMCPolicy, make_pimc

DEFAULT_TOP = 3
JUDGES = ("greedy", "pimc")


def _check_confident(confident: float | None) -> None:
    if confident is not None and not 0.0 < confident <= 1.0:
        raise ValueError(f"confident={confident}: the network's probability above which the judge is "
                         f"not asked, a number in (0, 1]")


class GuidedPolicy:
    """The network proposes its ``top`` most likely legal actions, the judge (``greedy``'s
    look-ahead or a :class:`~.pimc.PIMCPolicy`) picks one (see the module docstring).
    Deterministic with greedy, reproducible under ``reset(seed)`` with PIMC."""

    def __init__(self, network: CheckpointPolicy, judge: TheBrainGreedy | PIMCPolicy, top: int = DEFAULT_TOP,
                 name: str = "guided", confident: float | None = None):
        if top < 1:
            raise ValueError(f"top={top}: the network's proposals, an integer >= 1")
        if not isinstance(judge, TheBrainGreedy | PIMCPolicy):
            raise TypeError(f"the judge is a TheBrainGreedy or a PIMCPolicy, not {type(judge).__name__}")
        _check_confident(confident)
        self.network, self.judge, self.top, self.name = network, judge, int(top), name
        self.confident = None if confident is None else float(confident)
        self.judged = 0  # decisions the judge was asked about (two or more proposals)
        self.trusted = 0  # decisions left to the network because it was confident

    def reset(self, seed: int | None = None) -> None:
        self.network.reset(seed)
        self.judge.reset(seed)

    @property
    def deadline(self) -> float | None:
        """The move's time budget, which only a PIMC judge spends (see ``PIMCPolicy.deadline``)."""
        return getattr(self.judge, "deadline", None)

    @deadline.setter
    def deadline(self, when: float | None) -> None:
        if isinstance(self.judge, PIMCPolicy):
            self.judge.deadline = when

    def scores(self, observation: dict, proposed: list[int]) -> dict[int, float]:
        """The judge's score of each proposed action (higher is better)."""
        if isinstance(self.judge, PIMCPolicy):
            return self.judge.vote(observation, proposed)
        return self.judge.action_scores(observation)

    def act(self, observation: dict, agent: str | None = None) -> int:
        legal = legal_actions(observation)
        if legal.size == 1:
            return int(legal[0])
        ranked, p = self.network.ranked_with_probabilities(observation)
        if self.confident is not None and p[0] >= self.confident:
            self.trusted += 1
            return ranked[0]
        proposed = ranked[: self.top]
        if len(proposed) == 1:
            return proposed[0]
        self.judged += 1
        scores = self.scores(observation, proposed)
        return max(proposed, key=lambda a: scores[a])  # the first of the best: the network's order


def make_guided(table: str | TableConfig, config: dict | None = None, seed: int | None = None, *, checkpoint: str,
                top: int = DEFAULT_TOP, judge: str = "greedy", samples: int | None = None,
                nodes: int | None = None, confident: float | None = None) -> GuidedPolicy:
    """A :class:`GuidedPolicy` of ``checkpoint`` (a shipped name or a path) for ``game``, its
    proposals judged by ``judge`` (``samples`` and ``nodes``: the PIMC judge's budget) where
    the network's top probability is below ``confident`` (every decision when None)."""
    if judge not in JUDGES:
        raise ValueError(f"unknown guided judge {judge!r}; allowed: {list(JUDGES)}")
    if judge != "pimc" and (samples is not None or nodes is not None):
        raise ValueError("samples and nodes are the pimc judge's budget: add judge=pimc, or leave them out")
    _check_confident(confident)
    table = table_config(table, config)
    network = load_policy(checkpoint, game=table.id, config=table.config, seed=seed, name=checkpoint)
    name = f"guided:checkpoint={checkpoint},top={top}"
    if judge == "pimc":
        referee = make_pimc(table, seed=seed, samples=samples, nodes=nodes)
        name += f",judge=pimc,samples={referee.samples},nodes={referee.nodes}"
    else:
        referee = make_greedy(table, seed=seed)
    if confident is not None:
        name += f",confident={confident:g}"
    return GuidedPolicy(network, referee, top=top, name=name, confident=confident)


GUIDED = PolicyKind(
    "guided", "a trained network proposes its top K actions, a search judges them (GuidedPolicy)", make_guided,
    params=(Param("checkpoint", str, "a checkpoint name or path", required=True, metavar="NAME"),
            Param("top", int, f"the network's proposals (default {DEFAULT_TOP})", metavar="K"),
            Param("judge", str, "greedy's look-ahead (default) or PIMC", choices=JUDGES),
            Param("samples", int, "the pimc judge's deals per decision"),
            Param("nodes", int, "the pimc judge's solver budget"),
            Param("confident", float, "ask the judge only where the network's top probability is below P",
                  metavar="P")),
    games=(TheBrainGreedy.GAME,), example="guided:checkpoint=the_brain/ppo_3p_long,top=3",
)

__all__ = ["DEFAULT_TOP", "GUIDED", "JUDGES", "GuidedPolicy", "make_guided"]
