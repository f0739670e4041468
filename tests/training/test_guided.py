"""The ``guided`` spec (The Brain): a checkpoint's network proposes its top K actions and a
judge picks one: greedy's look-ahead by default, or PIMC's votes over the proposals only
(judge=pimc). top=1 is the network alone; every move is among the network's proposals and
the best of them by the judge's scores (the network's order breaking ties); with every legal
action proposed the look-ahead chooses among them all. Bad specs are refused with what is
allowed."""

from __future__ import annotations

import numpy as np
import pytest

from braincards.envs import make
from braincards.training.agents.network import load_policy
from braincards.training.agents.policy import PolicySpecError
from braincards.training.agents.search.greedy import make_greedy
from braincards.training.agents.search.guided import GuidedPolicy
from braincards.training.agents.search.pimc import PIMCPolicy, make_pimc
from braincards.training.agents.specs import make_policy
from braincards.training.evaluation.evaluate import evaluate

GAME, CONFIG, CHECKPOINT = "the_brain_v0", {"num_players": 3, "difficulty": "robber"}, "the_brain/ppo_3p"


def _decisions(policy, games: int = 4, seed: int = 0):
    """(observation, action) of every decision ``policy`` takes at all seats of ``games`` games."""
    env = make(GAME, **CONFIG)
    for g in range(games):
        env.reset(seed=seed + g)
        policy.reset(seed + g)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = policy.act(obs, agent)
            yield obs, action
            env.step(action)


@pytest.mark.parametrize("top", [1, 2, 3, 50])
def test_guided_picks_the_best_of_the_networks_proposals(top):
    network = load_policy(CHECKPOINT, game=GAME, config=CONFIG)
    greedy = make_greedy(GAME, CONFIG)
    guided = GuidedPolicy(network, greedy, top=top)
    chosen = 0
    for obs, action in _decisions(guided):
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        assert action in legal
        ranked = network.ranked(obs)
        assert sorted(ranked) == legal and ranked[0] == network.act(obs)
        if top == 1:
            assert action == ranked[0]  # the network alone
            continue
        if len(legal) == 1:
            continue
        proposed = ranked[:top]
        scores = greedy.action_scores(obs)
        best = max(scores[a] for a in proposed)
        assert action in proposed and scores[action] == best
        assert action == next(a for a in proposed if scores[a] == best)  # ties: the network's order
        if top >= len(legal):
            assert scores[action] == max(scores.values())  # the look-ahead chose among all
        chosen += action != ranked[0]
    if top > 1:
        assert chosen > 0  # the search overruled the network somewhere


def test_the_pimc_judge_votes_over_the_proposals_only_and_the_most_votes_win():
    network = load_policy(CHECKPOINT, game=GAME, config=CONFIG)
    judge = make_pimc(GAME, CONFIG, seed=0, samples=4, nodes=200)
    guided = GuidedPolicy(network, judge, top=3)
    overruled = 0
    for obs, action in _decisions(guided, games=2):
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        ranked = network.ranked(obs)
        if len(legal) == 1:
            assert action == legal[0]
            continue
        proposed = ranked[:3]
        votes = judge.last_votes
        assert sorted(votes) == sorted(proposed)  # only the proposals were searched
        assert all(0 <= v <= judge.samples for v in votes.values())
        best = max(votes.values())
        assert action == next(a for a in proposed if votes[a] == best)  # ties: the network's order
        overruled += action != ranked[0]
    assert overruled > 0


def test_the_pimc_judge_is_reproducible_under_a_seed_and_pimc_alone_plays_as_before():
    seats = [f"guided:checkpoint={CHECKPOINT},top=2,judge=pimc,samples=2,nodes=100"] * 3
    a = evaluate(GAME, CONFIG, seats=seats, games=3, seed=5, progress=False)
    b = evaluate(GAME, CONFIG, seats=seats, games=3, seed=5, progress=False)
    assert a["team"] == b["team"] and a["policies"] == b["policies"] and a["mean_length"] == b["mean_length"]
    # PIMCPolicy.act is its votes over every legal action, greedy breaking ties
    pimc, same = make_pimc(GAME, CONFIG, samples=3, nodes=150), make_pimc(GAME, CONFIG, seed=3, samples=3, nodes=150)  # _decisions resets it to seed 3
    for obs, action in _decisions(pimc, games=1, seed=3):
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        if len(legal) == 1:
            continue
        votes = same.vote(obs, legal)
        assert votes == pimc.last_votes
        liking = same.fallback.action_scores(obs)
        assert action == max(legal, key=lambda x: (votes[x], liking.get(x, -float("inf")), -x))


def test_a_confident_network_plays_alone_and_an_unsure_one_asks_the_judge():
    """confident=P: the judge is asked exactly where the network's top probability is below P."""
    network = load_policy(CHECKPOINT, game=GAME, config=CONFIG)
    greedy = make_greedy(GAME, CONFIG)
    guided = GuidedPolicy(network, greedy, top=3, confident=0.9)
    unsure = overruled = 0
    for obs, action in _decisions(guided, games=6):
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        ranked, p = network.ranked_with_probabilities(obs)
        assert ranked == network.ranked(obs) and p.sum() == pytest.approx(1.0)
        assert list(p) == sorted(p, reverse=True)
        if len(legal) == 1:
            assert action == legal[0]
        elif p[0] >= 0.9:
            assert action == ranked[0]  # left to the network
        else:
            unsure += 1
            scores = greedy.action_scores(obs)
            best = max(scores[a] for a in ranked[:3])
            assert action == next(a for a in ranked[:3] if scores[a] == best)
            overruled += action != ranked[0]
    assert guided.trusted > 0 and guided.judged == unsure > 0 and overruled > 0
    always = GuidedPolicy(network, greedy, top=3, confident=1.0)  # 1.0: asked unless certain
    never = GuidedPolicy(network, greedy, top=3)
    assert [a for _, a in _decisions(always, games=2)] == [a for _, a in _decisions(never, games=2)]


def test_guided_spec_builds_and_plays_a_team():
    pol = make_policy(f"guided:checkpoint={CHECKPOINT},top=2", GAME, CONFIG)
    assert isinstance(pol, GuidedPolicy) and pol.top == 2 and pol.name == f"guided:checkpoint={CHECKPOINT},top=2"
    assert make_policy(f"guided:checkpoint={CHECKPOINT}", GAME, CONFIG).top == 3  # the default
    judged = make_policy(f"guided:checkpoint={CHECKPOINT},judge=pimc,samples=4", GAME, CONFIG)
    assert isinstance(judged.judge, PIMCPolicy) and (judged.judge.samples, judged.judge.nodes) == (4, 300)
    assert judged.name == f"guided:checkpoint={CHECKPOINT},top=3,judge=pimc,samples=4,nodes=300"
    unsure = make_policy(f"guided:checkpoint={CHECKPOINT},judge=pimc,confident=0.95", GAME, CONFIG)
    assert unsure.confident == 0.95 and unsure.name.endswith(",judge=pimc,samples=8,nodes=300,confident=0.95")
    r = evaluate(GAME, CONFIG, seats=[f"guided:checkpoint={CHECKPOINT},top=2"] * 3, games=6, seed=0, progress=False)
    assert r["games"] == 6 and 0.0 <= r["team"]["win_rate"]["value"] <= 1.0


@pytest.mark.parametrize("spec, game, message", [
    ("guided", GAME, "guided needs one checkpoint=NAME"),
    ("guided:top=2", GAME, "guided needs one checkpoint=NAME"),
    (f"guided:checkpoint={CHECKPOINT},checkpoint=the_brain/ppo_2p", GAME, "guided takes one checkpoint=NAME"),
    ("guided:checkpoint=", GAME, "guided parameter checkpoint is empty"),
    (f"guided:checkpoint={CHECKPOINT},top=0", GAME, "guided parameter top=0 must be >= 1"),
    (f"guided:checkpoint={CHECKPOINT},depth=2", GAME,
     "unknown guided parameter 'depth'; allowed: \\['checkpoint', 'confident', 'judge', 'nodes', 'samples', 'top'\\]"),
    (f"guided:checkpoint={CHECKPOINT},confident=0", GAME, "confident=0.0: the network's probability above which"),
    (f"guided:checkpoint={CHECKPOINT},confident=1.5", GAME, "a number in \\(0, 1\\]"),
    (f"guided:checkpoint={CHECKPOINT},confident=nan", GAME, "confident=nan"),
    (f"guided:checkpoint={CHECKPOINT},confident=high", GAME, "guided parameter confident='high' must be a number"),
    (f"guided:checkpoint={CHECKPOINT},judge=oracle", GAME, "unknown guided judge 'oracle'; allowed: \\['greedy', 'pimc'\\]"),
    (f"guided:checkpoint={CHECKPOINT},judge=pimc,judge=greedy", GAME, "guided takes one judge="),
    (f"guided:checkpoint={CHECKPOINT},samples=4", GAME, "samples and nodes are the pimc judge's budget"),
    (f"guided:checkpoint={CHECKPOINT},judge=pimc,nodes=0", GAME, "guided parameter nodes=0 must be >= 1"),
    (f"guided:checkpoint={CHECKPOINT},top=x", GAME, "guided parameter top='x' must be an integer"),
    (f"guided:checkpoint={CHECKPOINT}", "oh_my_brain_v0", "plays The Brain only"),
])
def test_guided_spec_errors_say_what_is_allowed(spec, game, message):
    with pytest.raises(PolicySpecError, match=message):
        make_policy(spec, game, {"num_players": 3})


def test_guided_refuses_a_checkpoint_that_does_not_exist_or_fit():
    with pytest.raises(PolicySpecError, match="the_brain/nope does not exist"):
        make_policy("guided:checkpoint=the_brain/nope", GAME, CONFIG)
    with pytest.raises(PolicySpecError, match="trained for oh_my_brain_v0, not the_brain_v0"):
        make_policy("guided:checkpoint=oh_my_brain/ppo_2p", GAME, CONFIG)
    with pytest.raises(ValueError, match="top=0"):
        GuidedPolicy(load_policy(CHECKPOINT, game=GAME, config=CONFIG), make_greedy(GAME, CONFIG), top=0)
    with pytest.raises(TypeError, match="the judge is a TheBrainGreedy or a PIMCPolicy, not str"):
        GuidedPolicy(load_policy(CHECKPOINT, game=GAME, config=CONFIG), "greedy")
