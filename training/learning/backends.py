"""The ``backend`` section of a training config: which trainer runs it (``name: sb3`` or
``name: rllib``) and the options only that trainer has, so that a backend's option is valid in
that backend only. :func:`upgrade_training` reads a stored config of the older layout, in
which those options sat in the shared sections (:data:`MOVED`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .config_limits import MAX_ROLLOUT_STEPS, MAX_TEXT, StrictModel


class SB3Backend(StrictModel):
    """``backend.name: sb3`` (the default): sb3-contrib's MaskablePPO on this machine, and the
    options only it has."""

    name: Literal["sb3"] = Field("sb3", description="`sb3`: MaskablePPO on this machine")
    init_from: str | None = Field(None, min_length=1, max_length=MAX_TEXT, description="warm start: the network's "
                                  "weights from this checkpoint (a shipped name such as `brilliant_boar/ppo_solo`, or "
                                  "a path) before pretraining and PPO; the same game, spaces and network, other options "
                                  "allowed (an `event_reader` may also read another `history_k`: its weights do not "
                                  "depend on it); its optimizer and timesteps are not taken (that is `--resume`)")
    sparse_input: bool = Field(False, description="`policy.kind: mlp`: the first layer of each head multiplies only "
                               "the observation columns a batch uses (`braincards.training.agents.layers`): the same "
                               "network, about 1.7x faster cloning fits per sample on mostly-zero observations, equal "
                               "up to float rounding")
    precision: Literal["float32", "bfloat16"] = Field("float32", description="`policy.kind: mlp`: `bfloat16` runs the "
                                                      "hidden layers of the training passes (the cloning fit, PPO's "
                                                      "updates) under `torch.autocast(bfloat16)`; weights, optimizer, "
                                                      "acting and evaluation stay float32 "
                                                      "(`braincards.training.agents.layers`). About 1.6x cheaper "
                                                      "minibatches on a CPU with native bfloat16, slower on one without")
    fused_adam: bool = Field(False, description="PPO's Adam updates all weights in one fused kernel "
                             "(`torch.optim.Adam(fused=True)`, sb3's eps 1e-5 kept): the same algorithm, faster, "
                             "equal up to float rounding; always on in `braincards train`'s portable "
                             "kernel mode (`BRAINCARDS_KERNELS`)")
    target_kl: float | None = Field(None, gt=0, le=100, description="stop an update's epochs early past this KL "
                                    "between the old and the new policy (none: never)")
    background_evaluation: bool = Field(False, description="evaluations (and the heuristic reference, from the "
                                        "start) play in a second process while training goes on (each result is "
                                        "the one the weights evaluated get inline; `best` is chosen when it comes "
                                        "back; deterministic under the seed, but not the same run as inline "
                                        "evaluations)")


class RLlibBackend(StrictModel):
    """``backend.name: rllib``: Ray RLlib's multi-agent PPO (the rllib extra), and where and how
    wide it runs."""

    name: Literal["rllib"] = Field(description="`rllib`: Ray RLlib (`braincards[rllib]`)")
    num_env_runners: int = Field(1, ge=0, le=1024, description='RLlib env runners (sampling processes); 0 samples in the driver')
    num_learners: int = Field(0, ge=0, le=256, description='RLlib learners; 0 learns in the driver')
    address: str | None = Field(None, max_length=MAX_TEXT, description='`ray.init(address=...)`: `auto`, `HEAD_IP:6379`, `ray://HEAD_IP:10001`; none starts a local Ray')
    train_batch_size: int | None = Field(None, ge=1, le=MAX_ROLLOUT_STEPS, description='steps per training iteration (default `n_steps * n_envs`)')


BACKENDS = ("sb3", "rllib")
# where each key of the old layout went (TrainConfig.backend): a stored training config of an
# older checkpoint is upgraded (upgrade_training), a config file is told where its key moved
MOVED = {("policy", "sparse_input"): "sparse_input", ("policy", "precision"): "precision",
         ("ppo", "fused_adam"): "fused_adam", ("ppo", "target_kl"): "target_kl",
         ("evaluation", "background"): "background_evaluation", ("init_from",): "init_from"}


def has_key(data: dict, path: tuple[str, ...]) -> bool:
    node = data
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def upgrade_training(data: Any) -> Any:
    """A stored training config (a checkpoint's ``training``) in today's layout: the keys that
    only one backend has moved into ``backend`` (:data:`MOVED`; ``rllib.*`` and the RLlib
    trainer's ``backend: rllib`` into ``backend`` with ``name: rllib``). A config already in
    today's layout (or not a mapping) is returned as it is; the input is never changed."""
    if not isinstance(data, dict) or isinstance(data.get("backend"), dict):
        return data
    data = {k: (dict(v) if isinstance(v, dict) else v) for k, v in data.items()}
    rllib = data.pop("rllib", None) or {}
    name = data.pop("backend", None) or "sb3"
    backend: dict[str, Any] = {"name": name}
    for old, new in MOVED.items():
        if not has_key(data, old):
            continue
        parent = data
        for part in old[:-1]:
            parent = parent[part]
        value = parent.pop(old[-1])
        if name == "sb3" or value != SB3Backend.model_fields[new].default:
            backend[new] = value  # an rllib run had them at their defaults: refused otherwise
    if name == "rllib":
        backend.update(rllib)
    data["backend"] = backend
    return data
