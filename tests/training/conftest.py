"""Shared fixtures: a tiny MaskablePPO checkpoint trained on the fly (a few seconds)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory):
    """``(path without suffix)`` of a MaskablePPO The Brain checkpoint (128 solo steps).

    The Brain's observation size does not depend on the player count, so it fits every
    The Brain table with the default observation options."""
    import torch
    from sb3_contrib import MaskablePPO

    from braincards.envs.the_brain import solo_env
    from braincards.training.policies import save_checkpoint

    torch.set_num_threads(1)
    env = solo_env(num_players=1)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [16]}, device="cpu")  # fmt: skip
    model.learn(128)
    path = tmp_path_factory.mktemp("ckpt") / "the_brain" / "tiny"
    save_checkpoint(model, path, "the_brain_v0", {"num_players": 1}, seed=0,
                    training={"note": "test fixture"})  # fmt: skip
    return path

