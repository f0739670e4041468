"""A trained network with a small search at decision time (spec ``guided``, The Brain).

``guided:checkpoint=NAME,top=K``: at every decision the checkpoint's network ranks the legal
actions (most likely first) and proposes its ``top`` K; the one-ply look-ahead of ``greedy``
(:meth:`~.greedy.TheBrainGreedy.action_scores`: the value of the best whole turn through an
action) picks the best of them, the network's order breaking ties. ``top=1`` is the network
alone; ``top`` at least the number of legal actions lets the look-ahead choose among all of
them, breaking its ties by the network. In between, the network prunes what the search
considers, as a policy prior does - the pure network and the network plus search are
separate specs, so both can sit on the leaderboard. It reads only its observation, like
both of its parts.
"""

from __future__ import annotations

from braincards.envs import the_brain

from ..network import CheckpointPolicy, load_policy
from ..policy import legal_actions, parse_spec_params
from .greedy import TheBrainGreedy, make_greedy

DEFAULT_TOP = 3


class GuidedPolicy:
    """The network proposes its ``top`` most likely legal actions, greedy's look-ahead picks
    one (see the module docstring). Deterministic."""

    def __init__(self, network: CheckpointPolicy, greedy: TheBrainGreedy, top: int = DEFAULT_TOP,
                 name: str = "guided"):  # fmt: skip
        if top < 1:
            raise ValueError(f"top={top}: the network's proposals, an integer >= 1")
        self.network, self.greedy, self.top, self.name = network, greedy, int(top), name

    def reset(self, seed: int | None = None) -> None:
        self.network.reset(seed)
        self.greedy.reset(seed)

    def proposals(self, observation: dict) -> list[int]:
        """The network's ``top`` most likely legal actions, most likely first."""
        return self.network.ranked(observation)[: self.top]

    def act(self, observation: dict, agent: str | None = None) -> int:
        legal = legal_actions(observation)
        if legal.size == 1:
            return int(legal[0])
        proposed = self.proposals(observation)
        if len(proposed) == 1:
            return proposed[0]
        scores = self.greedy.action_scores(observation)
        return max(proposed, key=lambda a: scores[a])  # the first of the best: the network's order


def make_guided(game: str, config: dict | None = None, seed: int | None = None, *, checkpoint: str,
                top: int = DEFAULT_TOP) -> GuidedPolicy:  # fmt: skip
    """A :class:`GuidedPolicy` of ``checkpoint`` (a shipped name or a path) for ``game``."""
    if game != the_brain.SPEC.id:
        raise ValueError(f"the guided policy plays {the_brain.SPEC.title} only ({the_brain.SPEC.id} only), not {game}")
    network = load_policy(checkpoint, game=game, config=config, seed=seed, name=checkpoint)
    return GuidedPolicy(network, make_greedy(game, config, seed=seed), top=top,
                        name=f"guided:checkpoint={checkpoint},top={top}")  # fmt: skip


def guided_spec(params: str):
    """``guided:checkpoint=NAME,top=K`` -> a factory(game, config, seed=...)."""
    items = [p.strip() for p in params.split(",") if p.strip()]
    named = [p for p in items if p.split("=", 1)[0].strip() == "checkpoint"]
    if len(named) != 1 or not named[0].split("=", 1)[1].strip():
        raise ValueError("guided needs one checkpoint=NAME (a shipped name such as the_brain/ppo_3p, or a path), "
                         "e.g. guided:checkpoint=the_brain/ppo_3p,top=3")  # fmt: skip
    checkpoint = named[0].split("=", 1)[1].strip()
    kw = parse_spec_params(",".join(p for p in items if p not in named), {"top": int}, spec="guided")

    def factory(game, config, seed=None):
        return make_guided(game, config, seed=seed, checkpoint=checkpoint, **kw)

    return factory


__all__ = ["DEFAULT_TOP", "GuidedPolicy", "guided_spec", "make_guided"]
