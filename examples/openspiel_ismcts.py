"""OpenSpiel's ISMCTS plays The Brain as a whole team, next to braincards' greedy and pimc.

The Brain is loaded as an OpenSpiel game (``braincards.envs.openspiel``: the deal as chance
nodes, the env's moves, observations and returns). Every seat is an ISMCTS bot
(``open_spiel.python.algorithms.ismcts.ISMCTSBot``); before each simulation the bot deals the
cards its seat cannot see at random, consistently with what the seat sees: the resampler
reuses braincards' PIMC sampler (``decode_observation`` + ``sample_state``), which reads only
the seat's observation vector. Tree nodes are keyed by (seat, observation string): a sampled
world has no history behind it, and with ``memory="perfect"`` the observation holds every
public fact of the table (display, covered cards, discard pile, domains, hand sizes) and the
seat's own hand; what it drops is the order of past moves, which the rules never consult.

Leaves are valued by rollouts to the end of the game: OpenSpiel's random rollouts
(``RandomRolloutEvaluator``) and, as a second bot, rollouts in which braincards' ``greedy``
plays every seat of the sampled world (a stronger default policy for the same search).
``greedy`` and ``pimc`` play the very same deals through the braincards env: deal ``g`` is
``env.reset(seed=derive_seed(seed, g))``, replayed in OpenSpiel chance outcome by chance
outcome (``new_state_from_seed``), as braincards' ``evaluate`` deals its games.

Run it: ``python examples/openspiel_ismcts.py --json out.json`` (defaults: about 20 minutes
on one core). Needs the interop extra (``open_spiel``).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from importlib.metadata import version

import numpy as np
from open_spiel.python.algorithms.ismcts import ISMCTSBot
from open_spiel.python.algorithms.mcts import Evaluator, RandomRolloutEvaluator
from open_spiel.python.observation import make_observation

from braincards.envs import derive_seed, make
from braincards.envs.openspiel import load_game, new_state_from_seed, state_at
from braincards.envs.the_brain import rules
from braincards.training.agents.search.pimc import decode_observation, sample_state
from braincards.training.agents.specs import make_policy
from braincards.training.evaluation.stats import wilson_interval

GAME = "the_brain_v0"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--num-players", type=int, default=2)
    p.add_argument("--difficulty", default="robber")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--games", type=int, default=100, help="deals, the same for every policy")
    p.add_argument("--simulations", type=int, default=50, help="ISMCTS simulations per decision")
    p.add_argument("--uct-c", type=float, default=1.0)
    p.add_argument("--bots", default="random,greedy",
                   help="ISMCTS rollout policies to run: random (OpenSpiel's), greedy")
    p.add_argument("--json", default=None, help="write the result here")
    return p.parse_args(argv)


def make_resampler(game, rng: random.Random):
    """The ISMCTS resampler: a world consistent with what the acting seat sees."""
    layout = game.observation_layout()
    opts = game.env_options
    draw_optional = opts["draw_rule"] == "optional"

    def resample(state, player):
        obs = np.asarray(state.observation_tensor(player), np.float32)
        seen = decode_observation(obs, layout)
        dealt = sample_state(seen, rng, draw_optional, opts["discard_peek"]).to_dict()
        # the sampler seats the observer at 0; the table seats it at `player`
        n = seen.num_seats
        me = state.rules_state.seat
        for key in ("hands", "domains"):
            dealt[key] = [dealt[key][(k - me) % n] for k in range(n)]
        for key in ("seat", "peek_seat", "last_player"):
            if dealt[key] >= 0:
                dealt[key] = (dealt[key] + me) % n
        return state_at(game, rules.State.from_dict(dealt), state.decisions)

    return resample


class GreedyRollouts(Evaluator):
    """Leaf values from one rollout in which braincards' greedy plays every seat."""

    def __init__(self, game):
        self._policy = make_policy("greedy", GAME, game.env_options)
        self._obs = make_observation(game)
        self._mask = np.zeros(game.num_distinct_actions(), np.int8)

    def evaluate(self, state):
        state = state.clone()
        while not state.is_terminal():
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply_action(legal[0])
                continue
            player = state.current_player()
            self._obs.set_from(state, player)
            self._mask[:] = 0
            self._mask[legal] = 1
            obs = {"observation": self._obs.tensor, "action_mask": self._mask}
            state.apply_action(int(self._policy.act(obs, f"player_{player}")))
        return np.array(state.returns())

    def prior(self, state):
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def play_ismcts(game, bots, deal_seed: int) -> float:
    """One deal played by the ISMCTS bots (one per seat); the team's return."""
    state = new_state_from_seed(game, deal_seed)
    while not state.is_terminal():
        state.apply_action(int(bots[state.current_player()].step(state)))
    return state.returns()[0]


def play_braincards(spec: str, config: dict, deal_seed: int) -> float:
    """One deal played by braincards policy ``spec`` in every seat, through the env."""
    env = make(GAME, **config)
    env.reset(seed=deal_seed)
    policies = {a: make_policy(spec, GAME, config, seed=deal_seed + i)
                for i, a in enumerate(env.possible_agents)}
    team = 0.0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            team = reward if agent == "player_0" else team
            env.step(None)
        else:
            env.step(policies[agent].act(obs, agent))
    return float(team)


def make_bots(game, kind: str, args, seat_seed: int):
    """One ISMCTS bot per seat with leaves valued by ``kind`` rollouts."""
    bots = []
    for seat in range(game.num_players()):
        rs = np.random.RandomState(seat_seed + seat)
        evaluator = (RandomRolloutEvaluator(1, rs) if kind == "random" else GreedyRollouts(game))
        bot = ISMCTSBot(game, evaluator, args.uct_c, args.simulations, random_state=rs,
                        use_observation_string=True)
        bot.set_resampler(make_resampler(game, random.Random(seat_seed + seat)))
        bots.append(bot)
    return bots


def row(name: str, wins: int, games: int) -> dict:
    rate, low, high = wilson_interval(wins, games)
    return {"policy": name, "rate": rate, "low": low, "high": high, "games": games}


def main(argv=None):
    args = parse_args(argv)
    start = time.time()
    config = {"num_players": args.num_players, "difficulty": args.difficulty}
    game = load_game(GAME, **config)
    deals = [derive_seed(args.seed, g) for g in range(args.games)]
    wins = {}
    for kind in [k.strip() for k in args.bots.split(",") if k.strip()]:
        name = f"ismcts ({kind} rollouts, {args.simulations} simulations)"
        t0 = time.time()
        wins[name] = sum(play_ismcts(game, make_bots(game, kind, args, 1000 * g), s) > 0
                         for g, s in enumerate(deals))
        print(f"{name}: {wins[name]}/{args.games} won, {time.time() - t0:.0f} s", flush=True)
    for spec in ("greedy", "pimc"):
        wins[spec] = sum(play_braincards(spec, config, s) > 0 for s in deals)
        print(f"{spec}: {wins[spec]}/{args.games} won", flush=True)
    result = {
        "example": "examples/openspiel_ismcts.py",
        "library": "open_spiel",
        "version": version("open_spiel"),
        "game": GAME,
        "config": config,
        "seed": args.seed,
        "measure": "the team's win rate: the same policy in every seat, the same deals for every row",
        "rows": [row(name, w, args.games) for name, w in wins.items()],
        "seconds": round(time.time() - start, 1),
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return result


if __name__ == "__main__":
    main()
