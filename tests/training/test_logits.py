"""The lean log-probabilities (:mod:`braincards.training.agents.logits`) are sb3-contrib's
bit for bit: the same values, log-probabilities, masked and unmasked distributions, and the
same gradients, for the dense and the sparse-input network; a policy that computes its
distribution its own way keeps it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from braincards.training.agents.layers import use_sparse_input
from braincards.training.agents.logits import action_log_probs, is_plain, values_and_log_prob
from braincards.training.learning.config import parse_train_config
from braincards.training.learning.sb3 import build_model, make_vec_env

from .test_layers import CONFIG, _observations


def _model(sparse: bool, kind: str = "mlp"):
    raw = {**CONFIG, "policy": {"net_arch": [64, 64], "kind": kind}}
    if kind == "event_reader":
        raw = {"game": "brilliant_boar_v0", "env": {"num_players": 2}, "total_timesteps": 256, "n_envs": 2,
               "history_k": 8, "policy": {"kind": "event_reader"}, "ppo": {"n_steps": 64, "batch_size": 64}}
    cfg = parse_train_config(raw)
    torch.manual_seed(0)
    model = build_model(cfg, make_vec_env(cfg), None)
    if sparse:
        assert use_sparse_input(model.policy) == 2
    return model.policy


@pytest.mark.parametrize("sparse", [False, True])
def test_values_and_log_prob_are_evaluate_actions_bit_for_bit(sparse):
    policy = _model(sparse)
    assert is_plain(policy)
    obs, masks = _observations(300)
    obs_t, masks_t = torch.as_tensor(obs), torch.as_tensor(masks)
    rng = np.random.default_rng(1)
    actions = torch.as_tensor([int(rng.choice(np.flatnonzero(m))) for m in masks])
    values, log_prob, _ = policy.evaluate_actions(obs_t, actions, action_masks=masks_t)
    lean_values, lean_log_prob = values_and_log_prob(policy, obs_t, actions, masks_t)
    assert torch.equal(values, lean_values) and torch.equal(log_prob, lean_log_prob)

    def grads(v, lp):
        policy.zero_grad()
        (0.5 * v.square().mean() - lp.mean()).backward()
        return [p.grad.clone() for p in policy.parameters()]

    sb3 = grads(values, log_prob)
    lean = grads(*values_and_log_prob(policy, obs_t, actions, masks_t))
    assert all(torch.equal(a, b) for a, b in zip(sb3, lean, strict=True))
    assert any(g.abs().sum() > 0 for g in lean)  # a real gradient, not two empty ones


@pytest.mark.parametrize("sparse", [False, True])
def test_action_log_probs_are_the_distributions_logits_bit_for_bit(sparse):
    policy = _model(sparse)
    obs, masks = _observations(100, seed=3)
    obs_t = torch.as_tensor(obs)
    with torch.no_grad():
        for rows in (obs_t[:1], obs_t):  # acting (one row) and a batch
            plain = policy.get_distribution(rows).distribution.logits
            assert torch.equal(plain, action_log_probs(policy, rows))
        masked = policy.get_distribution(obs_t, action_masks=masks).distribution
        lean = action_log_probs(policy, obs_t, masks)
        assert torch.equal(masked.logits, lean)
        assert torch.equal(masked.probs, torch.nn.functional.softmax(lean, dim=-1))
        assert bool((lean[~torch.as_tensor(masks)] < -1e7).all())  # illegal actions masked out


def test_the_event_readers_log_probs_are_its_distributions():
    policy = _model(False, kind="event_reader")
    obs = torch.zeros((4, policy.observation_space.shape[0]))
    masks = np.ones((4, policy.action_space.n), bool)
    with torch.no_grad():
        expected = policy.get_distribution(obs, action_masks=masks).distribution.logits
        assert torch.equal(action_log_probs(policy, obs, masks), expected)


def test_a_policy_that_overrides_its_distribution_keeps_its_own():
    policy = _model(False)

    class Own(type(policy)):
        def get_distribution(self, obs, action_masks=None):
            self.asked = True
            return super().get_distribution(obs, action_masks=action_masks)

    policy.__class__ = Own
    assert not is_plain(policy)
    obs, masks = _observations(8)
    with torch.no_grad():
        action_log_probs(policy, torch.as_tensor(obs), masks)
    assert policy.asked
    assert not is_plain(torch.nn.Linear(2, 2))
