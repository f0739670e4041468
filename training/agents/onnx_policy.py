"""Torch-free inference: :class:`OnnxPolicy` plays a network exported by
``braincards export CHECKPOINT --onnx OUT`` (:mod:`.onnx_export`) with onnxruntime and numpy
only; the policy spec ``onnx:PATH`` seats it anywhere a policy is accepted.

The file's contract (written by :func:`.onnx_export.export_onnx`):

* inputs ``observation`` (float32, ``[batch, observation_size]``: the first
  ``observation_size`` floats of the env's observation; a longer history observation is cut
  to it) and ``action_mask`` (int8, ``[batch, num_actions]``: the env's mask, 1 = legal);
* outputs ``log_probs`` (float32, ``[batch, num_actions]``: the log-probabilities of the
  legal actions, computed with the same operations as the torch policy; an illegal action
  gets about -1e8) and ``action`` (int64, ``[batch]``: the most likely legal action, the
  lowest one on a tie, as the torch policy plays);
* the ONNX metadata property ``braincards`` (JSON): the format and its version, the game, the
  table it was trained at, the observation size, the number of actions, the history length
  and the source checkpoint with its SHA-256.

This module imports neither torch nor stable-baselines3: a deployment needs braincards'
core install, numpy and onnxruntime (the ``onnx`` extra).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from braincards.envs import get_spec

from .policy import PolicySpecError, legal_actions

FORMAT = "braincards-onnx"
FORMAT_VERSION = 1
METADATA_KEY = "braincards"


class OnnxPolicy:
    """An exported network at a seat, played with onnxruntime (no torch). ``deterministic``
    plays the most likely legal action; otherwise it samples from the masked distribution with
    its own seeded generator, as :class:`~.network.CheckpointPolicy` does."""

    def __init__(self, path: str | os.PathLike, game: str | None = None, *, deterministic: bool = True,
                 seed: int | None = None, name: str | None = None):
        try:  # optional: the onnx extra (onnxruntime) plays ONNX files
            import onnxruntime
        except ModuleNotFoundError as err:
            raise PolicySpecError("playing an ONNX policy needs onnxruntime: pip install 'braincards[onnx]'") from err
        path = Path(path)
        if not path.is_file():
            raise PolicySpecError(f"no ONNX file at {str(path)!r}")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        try:
            self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as err:  # onnxruntime raises its own error types for a bad file
            raise PolicySpecError(f"{path} is not a readable ONNX model: {err}") from None
        raw = self.session.get_modelmeta().custom_metadata_map.get(METADATA_KEY)
        self.info = json.loads(raw) if raw else {}
        if self.info.get("format") != FORMAT or self.info.get("version") != FORMAT_VERSION:
            raise PolicySpecError(f"{path} was not written by braincards export --onnx (no {FORMAT} "
                                  f"v{FORMAT_VERSION} metadata)")
        if game is not None and get_spec(game).id != self.info["game"]:
            raise PolicySpecError(f"{path} plays {self.info['game']}, not {get_spec(game).id}")
        self.observation_size = int(self.info["observation_size"])
        self.num_actions = int(self.info["num_actions"])
        self.history_k = int(self.info["history_k"])
        self.deterministic = deterministic
        self.name = name or f"onnx:{path}"
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def log_probs(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(log_probs, action) of a batch: observations ``[B, >= observation_size]``, masks
        ``[B, num_actions]``."""
        obs = np.asarray(observations, dtype=np.float32)
        if obs.ndim != 2 or obs.shape[1] < self.observation_size:
            raise ValueError(f"{self.name} reads {self.observation_size} observation floats per row, "
                             f"got shape {obs.shape}")
        masks = np.asarray(masks, dtype=np.int8)
        if masks.shape != (obs.shape[0], self.num_actions):
            raise ValueError(f"{self.name} takes masks of shape {(obs.shape[0], self.num_actions)}, got {masks.shape}")
        log_probs, action = self.session.run(None, {"observation": obs[:, : self.observation_size],
                                                    "action_mask": masks})
        return log_probs, action

    def act(self, observation: dict, agent: str | None = None) -> int:
        legal = legal_actions(observation)
        log_probs, action = self.log_probs(np.asarray(observation["observation"])[None],
                                           np.asarray(observation["action_mask"])[None])
        if self.deterministic:
            return int(action[0])
        logits = log_probs[0][legal].astype(np.float64)
        p = np.exp(logits - logits.max())
        return int(legal[self._rng.choice(legal.size, p=p / p.sum())])


__all__ = ["FORMAT", "FORMAT_VERSION", "METADATA_KEY", "OnnxPolicy"]
