"""Masked PPO in one file, in the CleanRL style: The Brain's team learns by self-play.

One network plays every seat of a 2-player team of The Brain (the gymnasium team view,
``braincards.training.learning.gym_view.gym_env``). Observations arrive as a dict
``{"observation", "action_mask"}`` through a gymnasium vector env, and the policy gives an
illegal action a logit of -1e8, so it never samples one. The rest is textbook PPO: rollouts of
``--num-steps`` per env, GAE, clipped surrogate, value loss, entropy bonus, annealed learning
rate.

Every ``--eval-every`` updates the policy (its most likely legal action) plays
``--eval-games`` deals that training never sees, through braincards' ``evaluate``; the team's
win rate and cards played out form the curve.

Run it: ``python examples/cleanrl_ppo.py --json run.json`` (defaults: about 8 minutes on one
core). Only braincards' train extra is needed (torch, gymnasium).
"""

from __future__ import annotations

import argparse
import json
import time

import gymnasium as gym
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

from braincards.training.evaluation.evaluate import evaluate
from braincards.training.learning.gym_view import gym_env

GAME = "the_brain_v0"
HELD_OUT = 10_000  # evaluation deals start at seed + HELD_OUT: training never deals them


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--num-players", type=int, default=2)
    p.add_argument("--difficulty", default="amateur")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--total-timesteps", type=int, default=600_000)
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--num-steps", type=int, default=256, help="rollout length per env")
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--shaping", type=float, default=1.0,
                   help="credit c x the share of the cards played out (a training signal only)")
    p.add_argument("--eval-every", type=int, default=50, help="updates between evaluations")
    p.add_argument("--eval-games", type=int, default=400)
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--json", default=None, help="write the result here")
    return p.parse_args(argv)


def layer(n_in, n_out, std=2 ** 0.5):
    linear = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(linear.weight, std)
    nn.init.constant_(linear.bias, 0.0)
    return linear


class Agent(nn.Module):
    def __init__(self, n_obs, n_actions):
        super().__init__()
        self.critic = nn.Sequential(layer(n_obs, 128), nn.Tanh(), layer(128, 128), nn.Tanh(),
                                    layer(128, 1, std=1.0))
        self.actor = nn.Sequential(layer(n_obs, 128), nn.Tanh(), layer(128, 128), nn.Tanh(),
                                   layer(128, n_actions, std=0.01))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, mask, action=None):
        logits = self.actor(x).masked_fill(~mask, -1e8)  # an illegal action is never drawn
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(x)


class Greedy:
    """The agent as a braincards policy: its most likely legal action (for ``evaluate``)."""

    def __init__(self, agent):
        self.agent = agent

    def reset(self, seed=None):
        pass

    def act(self, obs, agent_name):
        with torch.no_grad():
            logits = self.agent.actor(torch.as_tensor(obs["observation"])[None])[0]
        mask = torch.as_tensor(obs["action_mask"]).bool()
        return int(logits.masked_fill(~mask, -1e8).argmax())


def evaluate_agent(agent, args, steps):
    config = {"num_players": args.num_players, "difficulty": args.difficulty}
    team = evaluate(GAME, config, [Greedy(agent)] * args.num_players, games=args.eval_games,
                    seed=args.seed + HELD_OUT, progress=False)["team"]
    rate = team["win_rate"]
    return {"steps": steps, "rate": rate["value"], "low": rate["lo"], "high": rate["hi"],
            "games": args.eval_games, "mean_score": team["mean_score"]["value"]}


def main(argv=None):
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    start = time.time()
    envs = gym.vector.SyncVectorEnv([
        lambda: gym_env(GAME, mode="team", shaping=args.shaping, num_players=args.num_players,
                        difficulty=args.difficulty)
        for _ in range(args.num_envs)])
    n_obs = envs.single_observation_space["observation"].shape[0]
    n_actions = envs.single_action_space.n
    agent = Agent(n_obs, n_actions)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_updates = max(1, args.total_timesteps // batch_size)
    obs = torch.zeros((args.num_steps, args.num_envs, n_obs))
    masks = torch.zeros((args.num_steps, args.num_envs, n_actions), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))

    curve = [evaluate_agent(agent, args, 0)]
    print(f"steps 0: team win rate {curve[-1]['rate']:.3f}, cards played out {curve[-1]['mean_score']:.1f}")
    global_step = 0
    next_obs, _ = envs.reset(seed=args.seed)
    next_done = torch.zeros(args.num_envs)
    for update in range(1, num_updates + 1):
        optimizer.param_groups[0]["lr"] = (1.0 - (update - 1.0) / num_updates) * args.learning_rate
        for step in range(args.num_steps):
            global_step += args.num_envs
            obs[step] = torch.as_tensor(next_obs["observation"])
            masks[step] = torch.as_tensor(next_obs["action_mask"]).bool()
            dones[step] = next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(obs[step], masks[step])
            values[step] = value.flatten()
            actions[step], logprobs[step] = action, logprob
            next_obs, reward, terminated, truncated, _ = envs.step(action.numpy())
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            next_done = torch.as_tensor(np.logical_or(terminated, truncated), dtype=torch.float32)

        # GAE. Gymnasium's vector envs reset a finished env on its next step (autoreset
        # "next step"): the step after a game's last one has a dummy observation and reward 0,
        # and its "done" flag (dones[t]) cuts the bootstrap across games.
        with torch.no_grad():
            next_value = agent.get_value(torch.as_tensor(next_obs["observation"])).flatten()
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    nextnonterminal, nextvalues = 1.0 - next_done, next_value
                else:
                    nextnonterminal, nextvalues = 1.0 - dones[t + 1], values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = (
                    delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam)
            returns = advantages + values

        # a step taken right after a game ended only resets its env: it is no decision
        real = dones.reshape(-1) == 0
        b_obs, b_masks = obs.reshape(-1, n_obs)[real], masks.reshape(-1, n_actions)[real]
        b_actions, b_logprobs = actions.reshape(-1)[real], logprobs.reshape(-1)[real]
        b_advantages, b_returns = advantages.reshape(-1)[real], returns.reshape(-1)[real]
        size = len(b_obs)
        for _ in range(args.update_epochs):
            order = torch.randperm(size)
            for begin in range(0, size, minibatch_size):
                mb = order[begin : begin + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb], b_masks[mb], b_actions[mb])
                ratio = (newlogprob - b_logprobs[mb]).exp()
                adv = b_advantages[mb]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio,
                                    -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((newvalue.flatten() - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        if update % args.eval_every == 0 or update == num_updates:
            curve.append(evaluate_agent(agent, args, global_step))
            print(f"steps {global_step}: team win rate {curve[-1]['rate']:.3f}, "
                  f"cards played out {curve[-1]['mean_score']:.1f}")

    envs.close()
    result = {
        "example": "examples/cleanrl_ppo.py", "library": "gymnasium", "version": gym.__version__,
        "game": GAME, "config": {"num_players": args.num_players, "difficulty": args.difficulty},
        "seed": args.seed,
        "measure": (f"team win rate of the self-play team (most likely legal action) on "
                    f"{args.eval_games} held-out deals; mean_score: cards played out of 36"),
        "curve": curve, "seconds": round(time.time() - start, 1),
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return result


if __name__ == "__main__":
    main()
