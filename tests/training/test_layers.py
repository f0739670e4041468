"""The sparse-input first layer (``backend.sparse_input``): the same network as the dense one,
up to float rounding, on the games' real observations; the dense path where it is faster;
refused where it does not apply. The bfloat16 training extractor (``backend.precision``): the
float32 network bit for bit in evaluation mode, close to it with float32 gradients in training
mode."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from braincards.training.agents.layers import (
    MAX_USED_SHARE,
    MIN_ROWS,
    BFloat16TrainingExtractor,
    SparseInputLinear,
    use_bfloat16_training,
    use_sparse_input,
)
from braincards.training.agents.logits import values_and_log_prob
from braincards.training.learning.config import parse_train_config
from braincards.training.learning.sb3 import build_model, make_learner_env, make_vec_env

CONFIG = {"game": "the_brain_v0", "env": {"num_players": 3, "difficulty": "robber"}, "total_timesteps": 256,
          "n_envs": 2, "policy": {"net_arch": [64, 64]}, "ppo": {"n_steps": 64, "batch_size": 64}}


def _observations(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` real The Brain observations and masks from random play."""
    env = make_learner_env(parse_train_config(CONFIG), 0)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    rows, masks = [], []
    while len(rows) < n:
        mask = env.action_masks()
        rows.append(obs.copy())
        masks.append(mask.copy())
        obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if term or trunc:
            obs, _ = env.reset(seed=int(rng.integers(2**31)))
    return np.asarray(rows, np.float32), np.asarray(masks, bool)


def test_the_observation_is_mostly_zeros_so_a_batch_uses_few_columns():
    obs, _ = _observations(256)
    assert (obs != 0).sum(1).max() < 0.05 * obs.shape[1]
    assert (obs != 0).any(0).sum() < MAX_USED_SHARE * obs.shape[1]


def test_sparse_layer_equals_the_dense_one_in_value_and_gradient():
    obs, _ = _observations(256)
    x = torch.as_tensor(obs)
    torch.manual_seed(0)
    dense = nn.Linear(x.shape[1], 32)
    sparse = nn.Linear(x.shape[1], 32)
    sparse.load_state_dict(dense.state_dict())
    sparse.__class__ = SparseInputLinear
    out_d, out_s = dense(x), sparse(x)
    torch.testing.assert_close(out_s, out_d, rtol=1e-5, atol=1e-6)
    out_d.tanh().sum().backward()
    out_s.tanh().sum().backward()
    torch.testing.assert_close(sparse.weight.grad, dense.weight.grad, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(sparse.bias.grad, dense.bias.grad, rtol=1e-5, atol=1e-6)
    unused = ~(x != 0).any(0)
    assert unused.any() and torch.all(sparse.weight.grad[:, unused] == 0)


def test_used_columns_follow_the_input_however_it_is_reused():
    """Both heads read one input, so its used columns are kept for it; a new tensor, or the
    same tensor changed in place, gets its own (the dense product decides)."""
    obs, _ = _observations(64)
    x = torch.as_tensor(obs)
    torch.manual_seed(0)
    layer = SparseInputLinear(x.shape[1], 8)
    first = layer(x)
    assert torch.equal(layer(x), first)  # the kept columns
    unused = int(torch.nonzero(~(x != 0).any(0))[0])
    x[3, unused] = 2.0  # in place: a column no row used before
    torch.testing.assert_close(layer(x), nn.functional.linear(x, layer.weight, layer.bias), rtol=1e-5, atol=1e-6)
    y = x.clone()
    y[:, :] = 0
    assert torch.equal(layer(y), layer.bias.expand(64, 8))


@pytest.mark.parametrize("rows", [1, MIN_ROWS - 1])
def test_small_batches_take_the_dense_path_bit_for_bit(rows):
    obs, _ = _observations(rows)
    x = torch.as_tensor(obs)
    layer = SparseInputLinear(x.shape[1], 8)
    assert torch.equal(layer(x), nn.functional.linear(x, layer.weight, layer.bias))


def test_a_dense_batch_takes_the_dense_path_bit_for_bit():
    x = torch.rand(64, 40) + 0.1  # every column used
    layer = SparseInputLinear(40, 8)
    assert torch.equal(layer(x), nn.functional.linear(x, layer.weight, layer.bias))


def test_an_all_zero_batch_gives_the_bias():
    layer = SparseInputLinear(100, 8)
    out = layer(torch.zeros(MIN_ROWS, 100))
    assert torch.equal(out, layer.bias.expand(MIN_ROWS, 8))


def test_config_switches_both_heads_and_keeps_the_state_dict():
    cfg = parse_train_config({**CONFIG, "policy": {"net_arch": [64, 64]}, "backend": {"sparse_input": True}})
    plain = parse_train_config(CONFIG)
    venv = make_vec_env(cfg)
    model = build_model(cfg, venv, None)
    other = build_model(plain, make_vec_env(plain), None)
    extractor = model.policy.mlp_extractor
    assert type(extractor.policy_net[0]) is SparseInputLinear
    assert type(extractor.value_net[0]) is SparseInputLinear
    assert type(other.policy.mlp_extractor.policy_net[0]) is nn.Linear
    assert list(model.policy.state_dict()) == list(other.policy.state_dict())
    # same seed, same initial weights: the two networks agree on a real batch
    obs, masks = _observations(128)
    with torch.no_grad():
        for net in (model.policy, other.policy):
            net.set_training_mode(False)
        a = model.policy.get_distribution(
            torch.as_tensor(obs), action_masks=masks
        ).distribution.logits
        b = other.policy.get_distribution(
            torch.as_tensor(obs), action_masks=masks
        ).distribution.logits
    torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    assert use_sparse_input(model.policy) == 2  # idempotent: the same two layers


def test_sparse_input_is_refused_for_the_event_reader():
    cfg = {"game": "brilliant_boar_v0", "env": {"num_players": 2}, "history_k": 8, "total_timesteps": 256,
           "policy": {"kind": "event_reader"}, "backend": {"sparse_input": True}}
    with pytest.raises(ValueError, match="backend.sparse_input applies to policy.kind 'mlp'"):
        parse_train_config(cfg)


def test_a_policy_without_mlp_heads_is_left_alone():
    assert use_sparse_input(nn.Sequential(nn.Linear(4, 4))) == 0


def _model_pair(**backend):
    """Two networks with the same initial weights: float32, and with ``backend`` options."""
    cfg = parse_train_config({**CONFIG, "policy": {"net_arch": [64, 64]}, "backend": backend})
    plain = parse_train_config(CONFIG)
    return build_model(cfg, make_vec_env(cfg), None), build_model(plain, make_vec_env(plain), None)


def _loss(policy, obs, masks, actions):
    values, log_prob = values_and_log_prob(policy, obs, actions, masks)
    return -log_prob.mean() + torch.mean(values.flatten() ** 2), values, log_prob


@pytest.mark.parametrize("sparse", [False, True])
def test_bfloat16_training_is_the_float32_network_in_evaluation_mode(sparse):
    fast, plain = _model_pair(precision="bfloat16", sparse_input=sparse)
    assert type(fast.policy.mlp_extractor) is BFloat16TrainingExtractor
    assert type(plain.policy.mlp_extractor) is not BFloat16TrainingExtractor
    if sparse:
        use_sparse_input(plain.policy)
    obs, masks = _observations(128)
    x = torch.as_tensor(obs)
    for net in (fast.policy, plain.policy):
        net.set_training_mode(False)
    with torch.no_grad():
        a = fast.policy.get_distribution(x, action_masks=masks).distribution.logits
        b = plain.policy.get_distribution(x, action_masks=masks).distribution.logits
        assert torch.equal(a, b)
        assert torch.equal(fast.policy.predict_values(x), plain.policy.predict_values(x))
    assert all(p.dtype == torch.float32 for p in fast.policy.parameters())


def test_bfloat16_training_mode_is_close_with_float32_gradients():
    fast, plain = _model_pair(precision="bfloat16")
    obs, masks = _observations(256)
    x, actions = torch.as_tensor(obs), torch.as_tensor(np.argmax(masks, 1))
    for net in (fast.policy, plain.policy):
        net.set_training_mode(True)
    loss_f, values_f, log_prob_f = _loss(fast.policy, x, masks, actions)
    loss_p, values_p, log_prob_p = _loss(plain.policy, x, masks, actions)
    assert values_f.dtype == log_prob_f.dtype == torch.float32
    assert not torch.equal(log_prob_f, log_prob_p)  # bfloat16 really ran
    torch.testing.assert_close(log_prob_f, log_prob_p, rtol=0.02, atol=0.02)
    torch.testing.assert_close(values_f, values_p, rtol=0.02, atol=0.02)
    loss_f.backward()
    loss_p.backward()
    for (name, a), b in zip(fast.policy.named_parameters(), plain.policy.parameters(), strict=True):
        assert a.grad.dtype == torch.float32, name
        cos = torch.nn.functional.cosine_similarity(a.grad.flatten(), b.grad.flatten(), dim=0)
        assert cos > 0.99, (name, float(cos))


def test_bfloat16_training_is_refused_for_the_event_reader():
    cfg = {"game": "brilliant_boar_v0", "env": {"num_players": 2}, "history_k": 8, "total_timesteps": 256,
           "policy": {"kind": "event_reader"}, "backend": {"precision": "bfloat16"}}
    with pytest.raises(ValueError, match="backend.precision=bfloat16 applies to policy.kind 'mlp'"):
        parse_train_config(cfg)
    with pytest.raises(ValueError, match="backend.precision"):
        parse_train_config({**CONFIG, "backend": {"precision": "float16"}})


def test_bfloat16_training_leaves_a_policy_without_an_mlp_extractor_alone():
    assert use_bfloat16_training(nn.Sequential(nn.Linear(4, 4))) is False
    fast, _ = _model_pair()
    assert use_bfloat16_training(fast.policy) is True
    assert use_bfloat16_training(fast.policy) is True  # idempotent
    assert type(fast.policy.mlp_extractor) is BFloat16TrainingExtractor
