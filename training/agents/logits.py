"""A policy network's action log-probabilities without building a distribution object.

sb3-contrib's :class:`MaskableActorCriticPolicy` answers ``get_distribution`` and
``evaluate_actions`` through a ``MaskableCategorical``: torch's ``Categorical`` built twice
(normalised, then masked and normalised again), argument validation, and an entropy that
behaviour cloning and acting never use. On a batch of one (acting) or 256 rows (the cloning
fit) that Python is a large share of the time. :func:`action_log_probs` and
:func:`values_and_log_prob` compute the same tensors with the same torch operations in the
same order, so the results and their gradients are bit for bit sb3-contrib's (a test checks
it); everything else about the policy (features, heads, sparse first layers) is its own.

A policy class that overrides sb3-contrib's ``get_distribution`` or ``evaluate_actions``
(:func:`is_plain`) keeps its own path.
"""

from __future__ import annotations

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

HUGE_NEG = -1e8  # sb3-contrib's value for a masked-out logit


def is_plain(policy) -> bool:
    """Whether ``policy`` computes its distribution exactly as sb3-contrib's
    :class:`MaskableActorCriticPolicy` does (so the functions here are its results)."""
    cls = type(policy)
    return (isinstance(policy, MaskableActorCriticPolicy) and policy.share_features_extractor
            and cls.get_distribution is MaskableActorCriticPolicy.get_distribution
            and cls.evaluate_actions is MaskableActorCriticPolicy.evaluate_actions)


def _normalised(logits: torch.Tensor) -> torch.Tensor:
    return logits - logits.logsumexp(dim=-1, keepdim=True)


def _masked(log_probs: torch.Tensor, masks) -> torch.Tensor:
    masks = torch.as_tensor(masks, dtype=torch.bool).reshape(log_probs.shape)
    return _normalised(torch.where(masks, log_probs, torch.tensor(HUGE_NEG, dtype=log_probs.dtype)))


def action_log_probs(policy, obs: torch.Tensor, masks=None) -> torch.Tensor:
    """Log-probabilities of every action (rows of ``obs``), masked by ``masks`` if given:
    ``policy.get_distribution(obs, action_masks=masks).distribution.logits``."""
    if not is_plain(policy):
        return policy.get_distribution(obs, action_masks=masks).distribution.logits
    latent = policy.mlp_extractor.forward_actor(policy.extract_features(obs, policy.pi_features_extractor))
    first = _normalised(policy.action_net(latent).view(-1, policy.action_space.n))
    return _normalised(first) if masks is None else _masked(first, masks)


def values_and_log_prob(policy, obs: torch.Tensor, actions: torch.Tensor, masks) -> tuple[torch.Tensor, torch.Tensor]:
    """The value of each row and the log-probability of its action under ``masks``: the
    first two of ``policy.evaluate_actions(obs, actions, action_masks=masks)``."""
    if not is_plain(policy):
        values, log_prob, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
        return values, log_prob
    latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
    log_probs = _masked(_normalised(policy.action_net(latent_pi).view(-1, policy.action_space.n)), masks)
    return policy.value_net(latent_vf), log_probs.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)
