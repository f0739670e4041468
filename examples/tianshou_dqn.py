"""DQN against random play on Oh My Brain (2 players) inside Tianshou, measured with braincards.

Tianshou's ``PettingZooEnv`` wraps the braincards AEC env: each step it hands over the
observation of the seat whose turn it is as ``{"agent_id", "obs", "mask"}`` (``mask``: the
seat's legal actions) and the rewards of all seats as one vector. Its multi-agent manager
(``MultiAgentOffPolicyAlgorithm``, Tianshou 2's name for the former
``MultiAgentPolicyManager``) sends each step to the algorithm of the seat in ``agent_id``:
here a DQN learner in seat ``player_0`` and Tianshou's masked random player in ``player_1``,
as in Tianshou's tic-tac-toe example. The DQN policy puts the lowest value on every action
outside ``mask``, so it never picks an illegal move, exploring or not.

One thing to know: the replay buffer holds the steps of both seats in the env's order, so the
"next observation" of a learner step is often the opponent's, seen from the opponent's seat.
A short n-step target would bootstrap from that observation with the learner's network. The
example sets the n-step horizon well beyond a game's length (about 80 steps), so every
target is the learner's own final reward (+1 or -1, paid to both seats at the last step,
whoever made it): a Monte Carlo target, never a value read from the other seat's view.

Every epoch the greedy network (eps 0) sits at braincards' tables through ``evaluate``; its
win rate against ``random`` makes the curve, and at the end also against ``heuristic``. Run
with no arguments for the documented run (about ten minutes on one core); ``--json OUT``
writes the result.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from importlib.metadata import version

import numpy as np
import torch
from tianshou.algorithm import (
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from braincards.envs import make
from braincards.training.evaluation.evaluate import evaluate

GAME = "oh_my_brain_v0"
LEARNER = 0  # the learner's seat index: player_0; player_1 plays random legal moves


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=8, help="epochs (a curve point after each)")
    p.add_argument("--epoch-steps", type=int, default=15_000, help="env steps per epoch")
    p.add_argument("--envs", type=int, default=8, help="training envs (DummyVectorEnv)")
    p.add_argument("--collect-steps", type=int, default=64, help="env steps per collect")
    p.add_argument("--updates-per-step", type=float, default=0.25, help="gradient steps per env step")
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--buffer", type=int, default=50_000, help="replay buffer size (env steps)")
    p.add_argument("--hidden", type=int, nargs="*", default=[128, 128])
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--n-step", type=int, default=200, help="n-step horizon (beyond a game: Monte "
                   "Carlo targets)")
    p.add_argument("--target-update", type=int, default=200, help="gradient steps between target "
                   "network copies")
    p.add_argument("--eps", type=float, default=0.1, help="exploration while collecting")
    p.add_argument("--eval-games", type=int, default=400, help="games per curve point")
    p.add_argument("--final-games", type=int, default=1000, help="games per final row")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", default=None, help="write the result here")
    return p.parse_args(argv)


def get_env(config: dict) -> PettingZooEnv:
    """The braincards AEC env as Tianshou's multi-agent env."""
    return PettingZooEnv(make(GAME, **config))


def make_algorithm(env: PettingZooEnv, args) -> tuple[MultiAgentOffPolicyAlgorithm, Net]:
    """DQN in the learner's seat, Tianshou's masked random player in the other."""
    n_obs = env.observation_space["observation"].shape[0]
    net = Net(state_shape=n_obs, action_shape=env.action_space.n, hidden_sizes=args.hidden)
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                     eps_training=args.eps, eps_inference=0.0)
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=args.lr), gamma=args.gamma,
                  n_step_return_horizon=args.n_step, target_update_freq=args.target_update)
    seats = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)]
    seats.insert(LEARNER, learner)
    return MultiAgentOffPolicyAlgorithm(algorithms=seats, env=env), net


class GreedyTianshouPolicy:
    """The trained Q-network as a braincards policy: its highest-valued legal action."""

    name = "tianshou_dqn"

    def __init__(self, net: Net):
        self.net = net

    def reset(self, seed=None):
        pass

    def act(self, observation, agent=None):
        with torch.no_grad():
            q = self.net(observation["observation"][None])[0][0].numpy()
        q[observation["action_mask"] == 0] = -np.inf
        return int(np.argmax(q))


def win_rate(policy, config: dict, opponent: str, games: int, seed: int) -> dict:
    """The policy's win rate (Wilson 95%) against ``opponent``, seats rotated."""
    policy.net.eval()
    result = evaluate(GAME, config, seats=[policy, opponent], games=games, seed=seed,
                      progress=False)
    policy.net.train()
    rate = result["policies"][policy.name]["win_rate"]
    return {"rate": rate["value"], "low": rate["lo"], "high": rate["hi"], "games": games}


def main(argv=None) -> dict:
    args = parse_args(argv)
    start = time.perf_counter()
    torch.set_num_threads(1)
    # the collectors' statistics warn on every episode that the returns have one column per seat
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    config = {"num_players": 2}
    algorithm, net = make_algorithm(get_env(config), args)
    train_envs = DummyVectorEnv([lambda: get_env(config) for _ in range(args.envs)])
    test_envs = DummyVectorEnv([lambda: get_env(config) for _ in range(2)])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 1)
    train_collector = Collector[CollectStats](
        algorithm, train_envs, VectorReplayBuffer(args.buffer, args.envs), exploration_noise=True)
    test_collector = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    train_collector.reset()
    train_collector.collect(n_step=args.batch_size * args.envs)  # warm-up: fill the buffer a bit
    greedy, curve = GreedyTianshouPolicy(net), []

    def point(epoch: int, env_step: int | None) -> None:  # Tianshou calls it before each test
        rate = win_rate(greedy, config, "random", args.eval_games, seed=10_000 + epoch)
        curve.append({"steps": int(env_step or 0), **rate})
        print(f"epoch {epoch:3d} steps {env_step or 0:8d} vs random {rate['rate']:.3f}", flush=True)

    algorithm.run_training(OffPolicyTrainerParams(
        training_collector=train_collector, test_collector=test_collector,
        max_epochs=args.epochs, epoch_num_steps=args.epoch_steps,
        collection_step_num_env_steps=args.collect_steps, test_step_num_episodes=2,
        batch_size=args.batch_size, test_fn=point,
        update_step_num_gradient_steps_per_sample=args.updates_per_step,
        multi_agent_return_reduction=lambda rews: rews[:, LEARNER],
        verbose=False, show_progress=False,
    ))
    rows = [{"policy": f"tianshou_dqn vs {opp}",
             **win_rate(greedy, config, opp, args.final_games, seed=20_000)}
            for opp in ("random", "heuristic")]
    result = {
        "example": "examples/tianshou_dqn.py", "library": "tianshou",
        "version": version("tianshou"), "game": GAME, "config": config, "seed": args.seed,
        "measure": "win rate of the greedy DQN network (trained in one seat against random "
                   "play): the curve against random, the rows against the named policy; "
                   "seats rotated",
        "curve": curve, "rows": rows, "seconds": round(time.perf_counter() - start, 1),
    }
    for row in rows:
        print(f"{row['policy']}: {row['rate']:.3f} [{row['low']:.3f}, {row['high']:.3f}] "
              f"({row['games']} games, {result['seconds']:.0f} s)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return result


if __name__ == "__main__":
    main()
