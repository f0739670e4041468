"""``export_onnx``: a checkpoint's actor as an ONNX graph with the masking contract built in
(the contract and the torch-free player: :mod:`.onnx_policy`). Exporting needs torch and the
``onnx`` extra (torch's exporter uses ``onnxscript``); playing the file needs neither torch
nor stable-baselines3.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import warnings
from pathlib import Path

import numpy as np
import torch
from torch import nn

from .checkpoint import checkpoint_paths, load_checkpoint_policy
from .locations import resolve_checkpoint
from .logits import HUGE_NEG
from .onnx_policy import FORMAT, FORMAT_VERSION, METADATA_KEY

OPSET = 18


class _Actor(nn.Module):
    """The actor of a MaskablePPO policy network with the mask applied: observation and mask
    in, masked log-probabilities and the most likely legal action out."""

    def __init__(self, policy):
        super().__init__()
        self.policy = policy

    def forward(self, observation: torch.Tensor, action_mask: torch.Tensor):
        p = self.policy
        latent = p.mlp_extractor.forward_actor(p.extract_features(observation, p.pi_features_extractor))
        logits = p.action_net(latent).view(-1, p.action_space.n)
        # normalised twice, as the torch policy's unmasked log-probabilities are (logits.py), so
        # the legal actions keep the float32 order the checkpoint plays by
        first = logits - logits.logsumexp(dim=-1, keepdim=True)
        first = first - first.logsumexp(dim=-1, keepdim=True)
        masked = torch.where(action_mask.bool(), first, torch.full_like(first, HUGE_NEG))
        log_probs = masked - masked.logsumexp(dim=-1, keepdim=True)
        return log_probs, log_probs.argmax(dim=-1)


@contextlib.contextmanager
def _quiet_exporter():
    """torch's exporter logs that torchvision is missing (its ops are not ours) and warns about
    its own internals (a deprecated pytree class and size check, one Dim shared by both inputs,
    a GRU's weights traced as constants): none of it concerns the file written, so none of it
    reaches the user."""
    log = logging.getLogger("torch.onnx._internal.exporter._registration")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r".*LeafSpec.*", category=FutureWarning)
            warnings.filterwarnings("ignore", message=r"# The axis name: batch will not be used", category=UserWarning)
            warnings.filterwarnings("ignore", message=r".*_check_is_size.*", category=FutureWarning)
            # the GRU of Brilliant Boar's event reader: its weights are traced as constants, which
            # is what an exported file wants (the agreement test checks the actions)
            warnings.filterwarnings("ignore", message=r"The tensor attributes .* were assigned during export",
                                    category=UserWarning)
            yield
    finally:
        log.setLevel(level)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def export_onnx(checkpoint: str | os.PathLike, out: str | os.PathLike) -> dict:
    """Write the actor of ``checkpoint`` (a path or a shipped name) to the ONNX file ``out``;
    returns the metadata written into it. A ValueError for a checkpoint it cannot export (a
    recurrent network); a ModuleNotFoundError naming the extra when the exporter is missing."""
    checkpoint = resolve_checkpoint(checkpoint) or checkpoint  # a name, else a path
    zip_path, _ = checkpoint_paths(checkpoint)
    meta, network = load_checkpoint_policy(checkpoint)
    if meta["policy"]["class"] == "RecurrentActorCriticPolicy":
        raise ValueError(f"{zip_path}: a recurrent (LSTM) policy; ONNX export supports feed-forward "
                         "policies only (its hidden state would be a second input and output)")
    size = int(np.prod(meta["observation_shape"]))
    actions = int(network.action_space.n)
    info = {"format": FORMAT, "version": FORMAT_VERSION, "game": meta["game"], "env": meta.get("env_config", {}),
            "observation_size": size, "num_actions": actions, "history_k": int(meta.get("history_k") or 0),
            "checkpoint": zip_path.stem, "checkpoint_sha256": _sha256(zip_path),
            "inputs": {"observation": ["float32", "batch", size], "action_mask": ["int8", "batch", actions]},
            "outputs": {"log_probs": ["float32", "batch", actions], "action": ["int64", "batch"]}}
    actor = _Actor(network).eval()
    example = (torch.zeros(2, size), torch.ones(2, actions, dtype=torch.int8))
    batch = torch.export.Dim("batch", min=1)
    try:
        with torch.no_grad(), _quiet_exporter():
            program = torch.onnx.export(actor, example, input_names=["observation", "action_mask"],
                                        output_names=["log_probs", "action"], dynamo=True, opset_version=OPSET,
                                        dynamic_shapes=({0: batch}, {0: batch}), verbose=False)
    except ModuleNotFoundError as err:
        raise ModuleNotFoundError(f"exporting to ONNX needs {err.name}: pip install 'braincards[onnx]'") from err
    program.model.metadata_props[METADATA_KEY] = json.dumps(info, sort_keys=True)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    program.save(str(out))
    return info


__all__ = ["export_onnx"]
