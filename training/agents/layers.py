"""Layers that make training cheaper: a first layer that skips the observation's zeros, and
hidden layers that train in bfloat16.

The games' observations are long and almost all zeros: The Brain's is 2,260 floats of which
about 20 are set (one-hot cards and piles). An MLP's first layer then spends nearly all of the
network's multiply-adds on zeros: with ``net_arch [256, 256]`` it holds 89% of them, twice
(actor and critic). :class:`SparseInputLinear` multiplies only the columns that some row of
the batch uses (about 400 of the 2,260 in a batch of 256 The Brain decisions), with the same
parameters as :class:`torch.nn.Linear`. The result is the same sum without its zero terms,
so it equals the dense product up to float rounding (the terms are added in another order),
and the weight's gradient is the same (zero in the unused columns). A small batch (acting,
one row per env) or a dense one takes the dense path, which is faster there.

``backend.sparse_input: true`` in a training config turns it on for the first layer of each
head (:func:`use_sparse_input`); checkpoints store plain tensors either way.

``backend.precision: bfloat16`` (:func:`use_bfloat16_training`) runs the hidden layers of both
heads under ``torch.autocast(bfloat16)`` while the policy is in training mode: the cloning
fit's and PPO's minibatches, forward and backward, where nearly all of training's
multiply-adds are. The weights, Adam's state and the output heads stay float32, the latents
come back as float32, and in evaluation mode (acting, rollouts, evaluations, checkpoints
loaded back) the network is the float32 one bit for bit. On a CPU with native bfloat16
(AVX512-BF16 or AMX) the minibatch costs about 1.6x less; on one without, autocast emulates
it and is slower, so it is off by default.
"""

from __future__ import annotations

import weakref

import torch
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn
from torch.nn import functional as F

MIN_ROWS = 32  # fewer rows: the dense product is faster
MAX_USED_SHARE = 0.5  # more of the columns used than this: the dense product is faster


_last_used: tuple = (lambda: None, -1, None)  # (a weak reference to the input, its version, its used columns)


def _used_columns(x: torch.Tensor) -> torch.Tensor:
    """The columns some row of ``x`` uses. The actor's and the critic's first layers read the
    same input tensor, so the second asks again for the same (unchanged) tensor: the answer
    is kept for it."""
    global _last_used
    last, version, used = _last_used
    if last() is x and version == x._version:
        return used
    used = x.any(0).nonzero().flatten()
    _last_used = (weakref.ref(x), x._version, used)
    return used


class SparseInputLinear(nn.Linear):
    """:class:`torch.nn.Linear` that multiplies only the input columns some row uses (see
    the module docstring); the same parameters, state dict and gradients' support."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() != 2 or x.shape[0] < MIN_ROWS:
            return F.linear(x, self.weight, self.bias)
        used = _used_columns(x)
        if len(used) > MAX_USED_SHARE * x.shape[1]:
            return F.linear(x, self.weight, self.bias)
        return F.linear(x.index_select(1, used), self.weight.index_select(1, used), self.bias)


def use_sparse_input(policy: nn.Module) -> int:
    """Make the first layer of each of ``policy``'s MLP heads (SB3's ``mlp_extractor``) a
    :class:`SparseInputLinear`, in place: the same module and parameters, another
    ``forward``. Returns how many first layers are now sparse-input ones (0 for a policy
    without MLP heads, such as the event reader's actor; a second call changes nothing)."""
    extractor = getattr(policy, "mlp_extractor", None)
    changed = 0
    for name in ("policy_net", "value_net"):
        head = getattr(extractor, name, None)
        if isinstance(head, nn.Sequential) and len(head) and isinstance(head[0], nn.Linear):
            head[0].__class__ = SparseInputLinear
            changed += 1
    return changed


class BFloat16TrainingExtractor(MlpExtractor):
    """SB3's :class:`MlpExtractor` whose heads run under ``torch.autocast(bfloat16)`` in
    training mode and return float32 latents (see the module docstring); in evaluation mode
    it is the float32 extractor, bit for bit."""

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self._run(self.policy_net, features)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self._run(self.value_net, features)

    def _run(self, head: nn.Module, features: torch.Tensor) -> torch.Tensor:
        if not self.training:
            return head(features)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return head(features).float()


def use_bfloat16_training(policy: nn.Module) -> bool:
    """Make ``policy``'s SB3 ``mlp_extractor`` a :class:`BFloat16TrainingExtractor`, in place
    (the same module and parameters); returns whether ``policy`` has one (a second call
    changes nothing)."""
    extractor = getattr(policy, "mlp_extractor", None)
    if not isinstance(extractor, MlpExtractor):
        return False
    extractor.__class__ = BFloat16TrainingExtractor
    return True
