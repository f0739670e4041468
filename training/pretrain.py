"""Behaviour cloning before PPO: the learner first imitates a teacher policy.

Sparse, end-of-game rewards make self-play slow to start on The Brain (a random team plays
out about 9 of 36 cards and never wins). With ``pretrain`` in the config, the trainer first
records games in which ``teacher`` (any policy spec: ``heuristic``, a checkpoint, ...) plays
the learner's seats - the same :class:`~braincards.training.learner_env.LearnerEnv` the
learner will train in, so the same seats, opponents and observations - and fits the policy
head to the teacher's actions (masked cross-entropy) and the value head to the discounted
returns of those games (mean squared error). PPO then starts from there.

Games are recorded and fitted in chunks (``chunk_games`` at a time), so memory stays small
whatever ``games`` is. With ``dagger: true`` (DAgger, Ross et al. 2011) every chunk after the
first is played by the learner itself and labelled by the teacher, so the learner also learns
what the teacher would do in the states its own mistakes lead to. The value head then fits
the returns of the learner's own play (the teacher's in the first chunk).
"""

from __future__ import annotations

import numpy as np

from .learner_env import LearnerEnv
from .policies import make_policy


def record_games(env: LearnerEnv, teachers: list, games: int, gamma: float,
                 rng: np.random.Generator, actor=None) -> tuple[np.ndarray, ...]:  # fmt: skip
    """Play ``games`` games at the learner's seats and label every decision with the
    action of ``teachers[seat]``; returns the learner's observations, masks, the teacher's
    actions and the discounted returns. The teachers play, unless ``actor`` (a policy
    network: DAgger) is given - then it plays its most likely action and the teachers only
    label, so that the learner is taught on the states its own play reaches."""
    obs_l, mask_l, act_l, ret_l = [], [], [], []
    base = env.raw.layout.size
    for _ in range(games):
        obs, _ = env.reset(seed=int(rng.integers(2**31)))
        for i, t in enumerate(teachers):
            t.reset(seed=int(rng.integers(2**31)) + i)
        rewards = []
        while True:
            seat = env.agents.index(env.raw.agent_selection if env.mode == "team" else env.learner)
            mask = env.action_masks()
            size = getattr(teachers[seat], "observation_size", base)
            action = teachers[seat].act({"observation": obs[:size], "action_mask": mask.astype(np.int8)},
                                        env.agents[seat])  # fmt: skip
            obs_l.append(obs.copy())
            mask_l.append(mask.copy())
            act_l.append(action)
            if actor is not None:
                played = _argmax_action(actor, obs, mask)
                if played != action and hasattr(teachers[seat], "played"):
                    # a teacher with a memory (Brilliant Boar's heuristic) must remember
                    # the move that was made, not the one it suggested
                    teachers[seat].played(env.agents[seat], played)
                action = played
            obs, reward, term, trunc, _ = env.step(action)
            rewards.append(reward)
            if term or trunc:
                break
        g, rets = 0.0, []
        for r in reversed(rewards):
            g = r + gamma * g
            rets.append(g)
        ret_l.extend(reversed(rets))
    return (np.asarray(obs_l, np.float32), np.asarray(mask_l, bool), np.asarray(act_l, np.int64),
            np.asarray(ret_l, np.float32))  # fmt: skip


def _argmax_action(network, obs: np.ndarray, mask: np.ndarray) -> int:
    import torch

    with torch.no_grad():
        dist = network.get_distribution(torch.as_tensor(obs).reshape(1, -1), action_masks=mask.reshape(1, -1))
        return int(dist.distribution.probs[0].argmax())


def pretrain(model, cfg, env: LearnerEnv, log) -> dict:
    """Behaviour-clone ``cfg.pretrain.teacher`` into ``model.policy`` (see the module
    docstring); returns the final chunk's action agreement after fitting it, its
    ``held_out_agreement`` (the same games before fitting them: the policy's agreement on
    games it had not trained on, on its own states with DAgger) and value loss."""
    import torch

    p = cfg.pretrain
    rng = np.random.default_rng([cfg.seed, 7])
    teachers = [make_policy(p.teacher, cfg.game, cfg.env) for _ in env.agents]
    policy = model.policy
    opt = torch.optim.Adam(policy.parameters(), lr=p.learning_rate)
    done, stats = 0, {}
    while done < p.games:
        n = min(p.chunk_games, p.games - done)
        actor = policy if p.dagger and done > 0 else None  # the first chunk: the teacher plays
        obs, masks, actions, returns = record_games(env, teachers, n, cfg.ppo.gamma, rng, actor)
        done += n
        obs_t, masks_t = torch.as_tensor(obs), torch.as_tensor(masks)
        act_t, ret_t = torch.as_tensor(actions), torch.as_tensor(returns)
        held_out = _agreement(policy, obs_t, masks, act_t) if done > n else None
        policy.set_training_mode(True)
        for _ in range(p.epochs):
            order = torch.as_tensor(rng.permutation(len(obs)))
            for start in range(0, len(obs), p.batch_size):
                idx = order[start : start + p.batch_size]
                values, log_prob, _ = policy.evaluate_actions(obs_t[idx], act_t[idx], action_masks=masks_t[idx])
                loss = -log_prob.mean() + p.value_coef * torch.mean((values.flatten() - ret_t[idx]) ** 2)
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
                opt.step()
        policy.set_training_mode(False)
        agree = _agreement(policy, obs_t, masks, act_t)
        with torch.no_grad():
            values = policy.predict_values(obs_t).flatten()
            vloss = float(torch.mean((values - ret_t) ** 2))
        stats = {"games": done, "samples": len(obs), "agreement": round(agree, 4),
                 "held_out_agreement": None if held_out is None else round(held_out, 4),
                 "value_mse": round(vloss, 4)}  # fmt: skip
        who = "learner-played (DAgger)" if actor is not None else "teacher"
        before = "" if held_out is None else f"{held_out:.4f} on these new games before fitting them, "
        log(f"pretrain: {done}/{p.games} games ({who}), agreement with the teacher {before}"
            f"{agree:.4f} after; value mse {vloss:.4f}")
    return stats


def _agreement(policy, obs_t, masks: np.ndarray, act_t) -> float:
    """Share of the decisions where the policy's most likely action is the teacher's."""
    import torch

    with torch.no_grad():
        dist = policy.get_distribution(obs_t, action_masks=masks)
        return float((dist.distribution.probs.argmax(-1) == act_t).float().mean())
