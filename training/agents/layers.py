"""A first layer that skips the observation's zeros.

The games' observations are long and almost all zeros: The Brain's is 2,260 floats of which
about 20 are set (one-hot cards and piles). An MLP's first layer then spends nearly all of the
network's multiply-adds on zeros: with ``net_arch [256, 256]`` it holds 89% of them, twice
(actor and critic). :class:`SparseInputLinear` multiplies only the columns that some row of
the batch uses (about 400 of the 2,260 in a batch of 256 The Brain decisions), with the same
parameters as :class:`torch.nn.Linear`. The result is the same sum without its zero terms,
so it equals the dense product up to float rounding (the terms are added in another order),
and the weight's gradient is the same (zero in the unused columns). A small batch (acting,
one row per env) or a dense one takes the dense path, which is faster there.

``policy.sparse_input: true`` in a training config turns it on for the first layer of each
head (:func:`use_sparse_input`); checkpoints store plain tensors either way.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

MIN_ROWS = 32  # fewer rows: the dense product is faster
MAX_USED_SHARE = 0.5  # more of the columns used than this: the dense product is faster


class SparseInputLinear(nn.Linear):
    """:class:`torch.nn.Linear` that multiplies only the input columns some row uses (see
    the module docstring); the same parameters, state dict and gradients' support."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() != 2 or x.shape[0] < MIN_ROWS:
            return F.linear(x, self.weight, self.bias)
        used = x.any(0).nonzero().flatten()
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
