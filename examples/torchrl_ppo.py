"""PPO self-play on Oh My Brain (2 players) inside TorchRL, measured against braincards' policies.

The braincards env is a PettingZoo AEC env: one seat acts at a time, its legal moves in
``observe(agent)["action_mask"]``. TorchRL's ``PettingZooWrapper(use_mask=True)`` turns it into
a TensorDict env; with both seats in one group ("players") every step carries, per seat:

* ``("players", "observation", "observation")``: the seat's observation vector;
* ``("players", "action_mask")``: the seat's legal actions (for the seat that does not act,
  TorchRL 0.14 gives an all-True mask; older versions gave all-False, pytorch/rl#1471);
* ``("players", "mask")``: True for the one seat that acts at this step.

One network plays both seats (shared parameters, self-play). Its actions are drawn from a
``MaskedCategorical`` over the legal moves of the seat; the seat that waits gets an all-True
mask (whatever the library put there), so its distribution is always valid and its action,
which the env ignores, is never trained on. PPO needs each seat's own decisions in order:
after each batch of games the example keeps, per seat, the steps where that seat acted, sums
the rewards it got until its next decision (the final +1/-1 may arrive on the other seat's
turn), and runs GAE over that sequence. ``ClipPPOLoss`` then trains on the pooled decisions.

Every few iterations the greedy network (its most likely legal action) is seated at
braincards' tables through ``evaluate`` and its win rate against ``random`` is recorded; at
the end also against ``heuristic``. Run with no arguments for the documented run (about ten
minutes on one core); ``--json OUT`` writes the result.
"""

from __future__ import annotations

import argparse
import json
import time
from importlib.metadata import version

import numpy as np
import torch
from tensordict import TensorDict
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import ExplorationType, set_exploration_type
from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value.functional import generalized_advantage_estimate

from braincards.envs import make
from braincards.training.evaluation.evaluate import evaluate

GAME = "oh_my_brain_v0"
GROUP = "players"  # both seats in one TorchRL group: one network, one forward for both
SEATS = ["player_0", "player_1"]
OBS = (GROUP, "observation", "observation")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=80, help="PPO iterations")
    p.add_argument("--games-per-iteration", type=int, default=24, help="self-play games per batch")
    p.add_argument("--epochs", type=int, default=4, help="passes over each batch")
    p.add_argument("--minibatch", type=int, default=512, help="decisions per gradient step")
    p.add_argument("--hidden", type=int, default=128, help="width of the two hidden layers")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=1.0, help="discount per own decision")
    p.add_argument("--lmbda", type=float, default=0.95, help="GAE lambda")
    p.add_argument("--entropy", type=float, default=0.01, help="entropy bonus coefficient")
    p.add_argument("--eval-every", type=int, default=20, help="iterations between curve points")
    p.add_argument("--eval-games", type=int, default=400, help="games per curve point")
    p.add_argument("--final-games", type=int, default=1000, help="games per final row")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", default=None, help="write the result here")
    return p.parse_args(argv)


def make_env(config: dict, seed: int) -> PettingZooWrapper:
    """The braincards AEC env inside TorchRL: action masks on, both seats in one group."""
    return PettingZooWrapper(make(GAME, **config), group_map={GROUP: SEATS}, use_mask=True,
                             categorical_actions=True, seed=seed)


def make_modules(n_obs: int, n_actions: int, hidden: int):
    """The masked actor and the critic, on flat keys (one row per decision)."""
    def mlp(n_out):
        return nn.Sequential(nn.Linear(n_obs, hidden), nn.Tanh(), nn.Linear(hidden, hidden),
                             nn.Tanh(), nn.Linear(hidden, n_out))

    logits = TensorDictModule(mlp(n_actions), in_keys=["observation"], out_keys=["logits"])
    actor = ProbabilisticActor(logits, in_keys={"logits": "logits", "mask": "action_mask"},
                               out_keys=["action"], distribution_class=MaskedCategorical,
                               return_log_prob=True)
    critic = ValueOperator(mlp(1), in_keys=["observation"])
    return actor, critic


def seat_rows(td: TensorDict) -> TensorDict:
    """The group's per-seat entries of one or more env steps as flat rows (batch [..., seat]).

    The workaround of pytorch/rl#1471: a seat that does not act gets an all-True mask, so
    its distribution is valid whatever the wrapper gives it (all-False in old TorchRL)."""
    acting = td[GROUP, "mask"]
    legal = td[GROUP, "action_mask"] | ~acting.unsqueeze(-1)
    return TensorDict({"observation": td[OBS], "action_mask": legal, "acting": acting},
                      batch_size=acting.shape)


def collect_policy(actor):
    """The env.rollout policy: the actor samples an action for both seats; the env plays
    the acting seat's."""
    def policy(td):
        rows = actor(seat_rows(td))
        td[GROUP, "action"] = rows["action"]
        td[GROUP, "action_log_prob"] = rows["action_log_prob"]
        return td
    return policy


def seat_decisions(game: TensorDict, critic, gamma: float, lmbda: float) -> list[TensorDict]:
    """Per seat, the steps where it acted, with the rewards it got until its next decision,
    and GAE over that sequence (advantage, value_target)."""
    rows = seat_rows(game)  # [T, 2]
    with torch.no_grad():
        values = critic(rows.select("observation"))["state_value"]  # [T, 2, 1]
        last = critic(TensorDict({"observation": game[("next", *OBS)][-1]}, batch_size=[2]))
    rewards = game["next", GROUP, "reward"]  # [T, 2, 1]
    terminated = bool(game["next", "terminated"][-1])
    out = []
    for s in range(len(SEATS)):
        steps = rows["acting"][:, s].nonzero().squeeze(-1)
        if len(steps) == 0:
            continue
        total = torch.cat([torch.zeros(1), rewards[:, s, 0].cumsum(0)])
        ends = torch.cat([steps[1:], torch.tensor([len(rows)])])
        reward = (total[ends] - total[steps]).unsqueeze(-1)
        value = values[steps, s]
        next_value = torch.cat([value[1:], last["state_value"][s : s + 1]])
        done = torch.zeros_like(reward, dtype=torch.bool)
        done[-1] = True
        ended = done & terminated
        adv, target = generalized_advantage_estimate(gamma, lmbda, value, next_value, reward,
                                                     done, ended)
        seat = rows[steps, s].exclude("acting")
        seat.update({"action": game[GROUP, "action"][steps, s],
                     "action_log_prob": game[GROUP, "action_log_prob"][steps, s],
                     "state_value": value, "advantage": adv, "value_target": target})
        out.append(seat)
    return out


def ppo_update(loss_fn, optim, data: TensorDict, epochs: int, minibatch: int) -> None:
    """Clipped PPO on the pooled decisions, advantages normalised per batch."""
    adv = data["advantage"]
    data["advantage"] = (adv - adv.mean()) / (adv.std() + 1e-8)
    for _ in range(epochs):
        for idx in torch.randperm(len(data)).split(minibatch):
            losses = loss_fn(data[idx])
            loss = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
            optim.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(loss_fn.parameters(), 0.5)
            optim.step()


class GreedyTorchRLPolicy:
    """The trained actor as a braincards policy: its most likely legal action."""

    name = "torchrl_ppo"

    def __init__(self, logits: nn.Module):
        self.logits = logits

    def reset(self, seed=None):
        pass

    def act(self, observation, agent=None):
        with torch.no_grad():
            out = self.logits(torch.as_tensor(observation["observation"])).numpy()
        out[observation["action_mask"] == 0] = -np.inf
        return int(np.argmax(out))


def win_rate(policy, config: dict, opponent: str, games: int, seed: int) -> dict:
    """The policy's win rate (Wilson 95%) against ``opponent``, seats rotated."""
    result = evaluate(GAME, config, seats=[policy, opponent], games=games, seed=seed,
                      progress=False)
    rate = result["policies"][policy.name]["win_rate"]
    return {"rate": rate["value"], "low": rate["lo"], "high": rate["hi"], "games": games}


def main(argv=None) -> dict:
    args = parse_args(argv)
    start = time.perf_counter()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    config = {"num_players": 2}
    env = make_env(config, args.seed)
    n_obs, n_actions = env.observation_spec[OBS].shape[-1], env.full_action_spec[GROUP, "action"].n
    actor, critic = make_modules(n_obs, n_actions, args.hidden)
    loss_fn = ClipPPOLoss(actor, critic, clip_epsilon=0.2, entropy_coeff=args.entropy,
                          critic_coeff=0.5, loss_critic_type="l2")
    optim = torch.optim.Adam(loss_fn.parameters(), lr=args.lr)
    greedy = GreedyTorchRLPolicy(actor.module[0].module)
    policy, steps, curve = collect_policy(actor), 0, []
    for it in range(args.iterations + 1):
        if it % args.eval_every == 0 or it == args.iterations:
            point = win_rate(greedy, config, "random", args.eval_games, seed=10_000 + it)
            curve.append({"steps": steps, **point})
            print(f"iteration {it:4d} steps {steps:8d} vs random {point['rate']:.3f}", flush=True)
        if it == args.iterations:
            break
        decisions = []
        with set_exploration_type(ExplorationType.RANDOM), torch.no_grad():
            for _ in range(args.games_per_iteration):
                game = env.rollout(100_000, policy, break_when_any_done=True)
                steps += len(game)
                decisions += seat_decisions(game, critic, args.gamma, args.lmbda)
        ppo_update(loss_fn, optim, torch.cat(decisions), args.epochs, args.minibatch)
    rows = [{"policy": f"torchrl_ppo vs {opp}",
             **win_rate(greedy, config, opp, args.final_games, seed=20_000)}
            for opp in ("random", "heuristic")]
    result = {
        "example": "examples/torchrl_ppo.py", "library": "torchrl", "version": version("torchrl"),
        "game": GAME, "config": config, "seed": args.seed,
        "measure": "win rate of the greedy PPO network (one network for both seats, trained "
                   "by self-play): the curve against random, the rows against the named "
                   "policy; seats rotated",
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
