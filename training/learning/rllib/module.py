"""The action-masking PPO RLModule: RLlib's default PPO module on the flat observation,
with illegal actions' logits pushed to the float minimum.

The env (:mod:`braincards.training.learning.rllib.env`) gives every agent ``{"observations",
"action_mask"}``; the networks are built for the ``"observations"`` box alone and the mask
is applied to the action-distribution inputs in every forward pass (inference,
exploration, training). The model is configured to match stable-baselines3's
``MaskableActorCriticPolicy`` layer for layer (:func:`model_config`): separate policy and
value encoders (no shared layers) of ``net_arch`` hidden units with ``tanh`` (or ``relu``),
then one linear policy head and one linear value head - so a trained module maps onto a
braincards checkpoint exactly (:mod:`braincards.training.learning.rllib.export`).
"""

from __future__ import annotations

import gymnasium as gym
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.utils.torch_utils import FLOAT_MIN

from .env import MASK_KEY, OBS_KEY

ACTIVATIONS = ("tanh", "relu")


def model_config(net_arch, activation: str = "tanh") -> DefaultModelConfig:
    """RLlib's model config for an SB3-shaped actor-critic with ``net_arch`` hidden units."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {ACTIVATIONS}, got {activation!r}")
    hidden = [int(h) for h in net_arch]
    if not hidden or any(h < 1 for h in hidden):
        raise ValueError(f"net_arch must be a non-empty list of positive ints, got {net_arch!r}")
    return DefaultModelConfig(
        fcnet_hiddens=hidden,
        fcnet_activation=activation,
        vf_share_layers=False,  # separate pi / vf encoders, as SB3's mlp_extractor
        head_fcnet_hiddens=[],  # pi and vf heads: one Linear each (action_net, value_net)
    )


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO module whose observation space is ``Dict(observations=Box, action_mask=Box)``."""

    def __init__(self, *, observation_space=None, action_space=None, **kwargs):
        if not (isinstance(observation_space, gym.spaces.Dict)
                and set(observation_space.spaces) == {OBS_KEY, MASK_KEY}):
            raise ValueError(
                f"MaskedPPOTorchRLModule needs a Dict observation space with keys {OBS_KEY!r} "
                f"and {MASK_KEY!r}, got {observation_space}"
            )
        # the default PPO networks are built for the flat observation alone
        self._space_with_mask = observation_space
        super().__init__(observation_space=observation_space[OBS_KEY], action_space=action_space,
                         **kwargs)

    def setup(self):
        super().setup()
        # networks built: from here on the module declares the space the env gives it
        self.observation_space = self._space_with_mask

    @staticmethod
    def _split(batch: dict):
        obs = batch[Columns.OBS]
        if not isinstance(obs, dict):  # already flat (e.g. compute_values after _split)
            return batch, None
        flat = dict(batch)
        flat[Columns.OBS] = obs[OBS_KEY]
        return flat, obs[MASK_KEY]

    @staticmethod
    def _masked(out: dict, mask) -> dict:
        if mask is not None:
            # log(1) = 0 for legal actions, log(0) = -inf -> clamped to the float minimum
            out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(
                torch.log(mask), min=FLOAT_MIN
            )
        return out

    def _forward(self, batch, **kwargs):
        flat, mask = self._split(batch)
        return self._masked(super()._forward(flat, **kwargs), mask)

    def _forward_train(self, batch, **kwargs):
        flat, mask = self._split(batch)
        return self._masked(super()._forward_train(flat, **kwargs), mask)

    def compute_values(self, batch, embeddings=None):
        flat, _ = self._split(batch)
        return super().compute_values(flat, embeddings)

    def unmasked_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """The policy head's raw logits for a batch of flat observations (no mask)."""
        batch = {Columns.OBS: obs}
        with torch.no_grad():
            return DefaultPPOTorchRLModule._forward(self, batch)[Columns.ACTION_DIST_INPUTS]


def learner_module_spec(net_arch, activation: str = "tanh", observation_space=None, action_space=None):
    """The ``RLModuleSpec`` of one masked PPO module."""
    return RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        observation_space=observation_space,
        action_space=action_space,
        model_config=model_config(net_arch, activation),
    )
