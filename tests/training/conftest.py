"""Shared fixtures: a tiny MaskablePPO model trained on the fly (a few seconds) and its
checkpoint."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tiny_model():
    """A MaskablePPO model of The Brain's solo game (128 steps, one 16-unit layer)."""
    import torch
    from sb3_contrib import MaskablePPO

    from braincards.envs.the_brain import solo_env

    torch.set_num_threads(1)
    env = solo_env(num_players=1)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [16]}, device="cpu")
    model.learn(128)
    return model


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory, tiny_model):
    """``(path without suffix)`` of the tiny model's checkpoint (optimizer state included).

    The Brain's observation size does not depend on the player count, so it fits every
    The Brain table with the default observation options."""
    from braincards.training.agents.checkpoint import save_checkpoint

    path = tmp_path_factory.mktemp("ckpt") / "the_brain" / "tiny"
    save_checkpoint(tiny_model, path, "the_brain_v0", {"num_players": 1}, seed=0,
                    training={"note": "test fixture"}, optimizer=True)
    return path


@pytest.fixture()
def warns_solo_at():
    """``warns_solo_at(n)``: expect the warning a solo-trained checkpoint (the tiny one, or a
    copy of it) gives when it is seated at an ``n``-player table: it fits the table's spaces,
    but it was trained for other options."""
    from braincards.training.agents.checkpoint_checks import CheckpointConfigWarning

    return lambda n: pytest.warns(CheckpointConfigWarning, match=f"num_players: trained 1, here {n}")
