"""A trained RLlib PPO module -> a braincards checkpoint (tensors + JSON, no pickle).

:class:`~braincards.training.learning.rllib.module.MaskedPPOTorchRLModule` is built as
stable-baselines3's ``MaskableActorCriticPolicy`` is (separate policy / value MLPs with the
same activation after every hidden layer, one linear head each), so its weights copy across
one Linear layer at a time:

=========================================  =========================================
RLlib module                                braincards checkpoint (SB3 layout)
=========================================  =========================================
``encoder.actor_encoder`` Linear k         ``mlp_extractor.policy_net.{2k}``
``encoder.critic_encoder`` Linear k        ``mlp_extractor.value_net.{2k}``
``pi`` Linear                              ``action_net``
``vf`` Linear                              ``value_net``
=========================================  =========================================

The layers are found by walking the modules (not by RLlib's parameter names) and each is
checked: the activations must be the configured one, the shapes must chain. The exported
policy computes the same logits as the module (tests/rllib checks it numerically).
"""

from __future__ import annotations

import os

import torch
from torch import nn

from ...agents.checkpoint import read_checkpoint, write_checkpoint
from ...agents.checkpoint_checks import check_trainable

ALGO = "RLlibPPO"
_ACTIVATION_NAMES = {nn.Tanh: "tanh", nn.ReLU: "relu"}


def _layers(container: nn.Module, where: str) -> tuple[list[nn.Linear], set[str]]:
    """The Linear layers of ``container`` in order, and the names of its activations."""
    linears, acts = [], set()
    for m in container.modules():
        if isinstance(m, nn.Linear):
            linears.append(m)
        elif type(m) in _ACTIVATION_NAMES:
            acts.add(_ACTIVATION_NAMES[type(m)])
        elif isinstance(m, (nn.LayerNorm, nn.Dropout, nn.LSTM, nn.Conv2d, nn.Conv1d)):
            raise ValueError(f"{where} holds a {type(m).__name__}: not an SB3-shaped MLP")
    return linears, acts


def layer_pairs(module, net_arch, activation: str = "tanh") -> list[tuple[str, nn.Linear]]:
    """``(SB3 name prefix, the module's Linear layer)`` for every layer, checked."""
    hidden = [int(h) for h in net_arch]
    encoder = module.encoder
    if not (hasattr(encoder, "actor_encoder") and hasattr(encoder, "critic_encoder")):
        raise ValueError("the module shares its encoder between policy and value "
                         "(vf_share_layers=True); braincards checkpoints need separate ones")
    pairs: list[tuple[str, nn.Linear]] = []
    parts = (
        (encoder.actor_encoder, "mlp_extractor.policy_net", "actor encoder"),
        (encoder.critic_encoder, "mlp_extractor.value_net", "critic encoder"),
    )
    for container, prefix, where in parts:
        linears, acts = _layers(container, where)
        if [lin.out_features for lin in linears] != hidden:
            raise ValueError(f"the {where}'s layers {[lin.out_features for lin in linears]} "
                             f"are not net_arch {hidden}")
        if acts != {activation}:
            raise ValueError(f"the {where} uses {sorted(acts)}, not {activation!r}")
        pairs += [(f"{prefix}.{2 * k}", lin) for k, lin in enumerate(linears)]
    for container, name, where in ((module.pi, "action_net", "policy head"),
                                   (module.vf, "value_net", "value head")):
        linears, acts = _layers(container, where)
        if len(linears) != 1 or acts:
            raise ValueError(f"the {where} must be one Linear layer (head_fcnet_hiddens=[]), "
                             f"found {len(linears)} Linear layers and activations {sorted(acts)}")
        if linears[0].in_features != hidden[-1]:
            raise ValueError(f"the {where} reads {linears[0].in_features} features, not {hidden[-1]}")
        pairs.append((name, linears[0]))
    return pairs


def sb3_state_dict(module, net_arch, activation: str = "tanh") -> dict[str, torch.Tensor]:
    """The module's weights as a flat ``{name: tensor}`` in MaskableActorCriticPolicy's layout."""
    out: dict[str, torch.Tensor] = {}
    for prefix, lin in layer_pairs(module, net_arch, activation):
        out[f"{prefix}.weight"] = lin.weight.detach().clone()
        out[f"{prefix}.bias"] = lin.bias.detach().clone()
    return out


def load_sb3_state_dict(module, tensors: dict, net_arch, activation: str = "tanh") -> None:
    """The inverse of :func:`sb3_state_dict`: copy a checkpoint's tensors into ``module``
    (every layer must be there with the module's shapes; nothing else may be)."""
    pairs = layer_pairs(module, net_arch, activation)
    expected = {f"{p}.{k}" for p, _ in pairs for k in ("weight", "bias")}
    if set(tensors) != expected:
        raise ValueError(f"the checkpoint's tensors {sorted(tensors)} are not the module's "
                         f"{sorted(expected)}")
    with torch.no_grad():
        for prefix, lin in pairs:
            for k in ("weight", "bias"):
                src, dst = tensors[f"{prefix}.{k}"], getattr(lin, k)
                if tuple(src.shape) != tuple(dst.shape):
                    raise ValueError(f"{prefix}.{k}: the checkpoint has shape {tuple(src.shape)}, "
                                     f"the module {tuple(dst.shape)}")
                dst.copy_(src.to(dst.dtype))


def read_policy_weights(path, net_arch, activation: str = "tanh") -> tuple[dict, dict]:
    """(metadata, tensors) of a braincards checkpoint whose policy is the SB3-shaped MLP of
    ``net_arch``/``activation`` (ValueError naming the difference otherwise)."""
    meta, tensors, _ = read_checkpoint(path)
    check_trainable(meta, f"checkpoint {path}")
    want = policy_description(net_arch, activation)
    if meta.get("policy") != want:
        raise ValueError(f"checkpoint {path} holds the policy {meta.get('policy')}, not the "
                         f"config's {want}")
    return meta, tensors


def policy_description(net_arch, activation: str = "tanh") -> dict:
    """The checkpoint's JSON architecture for an SB3 MaskableActorCriticPolicy."""
    hidden = [int(h) for h in net_arch]
    return {
        "class": "MaskableActorCriticPolicy",
        "kwargs": {"net_arch": {"pi": list(hidden), "vf": list(hidden)}, "activation_fn": activation},
    }


def export_checkpoint(
    module,
    path: str | os.PathLike,
    *,
    game: str,
    env_config: dict,
    net_arch,
    activation: str = "tanh",
    timesteps: int,
    seed: int | None = None,
    history_k: int = 0,
    training: dict | None = None,
    evaluation: dict | None = None,
    extra: dict | None = None,
):
    """Write ``module`` (a trained :class:`MaskedPPOTorchRLModule`) as ``NAME.zip`` +
    ``NAME.json``; returns both paths. ``evaluate``, ``crossplay``, ``league``, ``play`` and
    :func:`braincards.training.agents.network.load_policy` then load it like any checkpoint."""
    return write_checkpoint(
        path,
        game=game,
        env_config=dict(env_config),
        algo=ALGO,
        policy=policy_description(net_arch, activation),
        state_dict=sb3_state_dict(module, net_arch, activation),
        timesteps=int(timesteps),
        seed=seed,
        evaluation=evaluation,
        training=training,
        history_k=int(history_k or 0),
        extra=extra,
    )
