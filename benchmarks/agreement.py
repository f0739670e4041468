"""How often a policy picks what another would, on the policy's own games.

    python benchmarks/agreement.py the_brain the_brain/ppo_3p greedy --set num_players=3 --set difficulty=robber

POLICY sits in every seat and plays; at every decision with two or more legal actions,
TEACHER is asked what it would play (a teacher that remembers its own moves, like Brilliant
Boar's heuristic, is asked at every decision and told the move actually made). Prints the
share of those decisions where both agree, the share of games with at least one
disagreement, and POLICY's team win rate (The Brain; None for the competitive games) over
the same games. Game g is dealt from ``derive_seed(seed, g)``, as in ``braincards evaluate``. This measures imitation on the policy's own states, which is what
decides how close a cloned policy plays to its teacher. As in ``evaluate``, a policy that
reads Brilliant Boar's event history (a ``history_k`` checkpoint, ``heuristic:window=K``)
gets the table behind ``HistoryWrapper`` and the prefix of the observation it reads.
"""

from __future__ import annotations

import argparse
import json

from braincards.envs import derive_seed, get_spec
from braincards.training.agents.policy import history_k_of
from braincards.training.agents.specs import make_policy
from braincards.training.learning.yaml_files import parse_sets


def _prefix(obs: dict, policy, base: int) -> dict:
    """The part of the observation ``policy`` reads (the base vector, or the base vector and
    its own number of event slots)."""
    size = getattr(policy, "observation_size", base)
    if obs["observation"].shape[0] == size:
        return obs
    return {"observation": obs["observation"][:size], "action_mask": obs["action_mask"]}


def agreement(game: str, config: dict, policy: str, teacher: str, games: int, seed: int = 0) -> dict:
    game = get_spec(game).id
    pol = make_policy(policy, game, config)
    ref = make_policy(teacher, game, config)
    env = get_spec(game).table(config, history_k_of([pol, ref]))
    base = env.unwrapped.layout.size
    cooperative = game == "the_brain_v0"
    same = choices = games_apart = won = 0
    for g in range(games):
        env.reset(seed=derive_seed(seed, g))
        pol.reset(seed=derive_seed(seed, g))
        ref.reset(seed=derive_seed(seed, g))
        apart = False
        while not any(env.terminations.values()) and not any(env.truncations.values()):
            agent = env.agent_selection
            obs = env.observe(agent)
            action = pol.act(_prefix(obs, pol, base), agent)
            label = ref.act(_prefix(obs, ref, base), agent)  # asked every time: a teacher may remember its moves
            if label != action and hasattr(ref, "played"):
                ref.played(agent, action)
            if int(obs["action_mask"].sum()) >= 2:
                choices += 1
                same += label == action
                apart = apart or label != action
            env.step(action)
        games_apart += apart
        won += cooperative and env.unwrapped.state.outcome == 1
    return {"game": game, "config": config, "policy": policy, "teacher": teacher, "games": games,
            "seed": seed, "decisions": choices, "agreement": round(same / max(choices, 1), 4),
            "games_with_a_disagreement": round(games_apart / games, 4),
            "team_win_rate": round(won / games, 4) if cooperative else None}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("policy", help="the policy that plays every seat (a policy spec)")
    ap.add_argument("teacher", help="the policy asked at every decision (a policy spec)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="env option")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error(f"--games {args.games} must be >= 1")
    result = agreement(args.game, parse_sets(args.set), args.policy, args.teacher, args.games, args.seed)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
