"""The limits every number of a training config keeps (so that a run fits the machine), the
config error, and the strict base model of every config section."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ConfigError(ValueError):
    """A training config that cannot be used (names the key and what is allowed)."""


# What the numbers in a config may be (so that a run fits the machine):
MAX_SEED = 2**32 - 1  # numpy's seed range
MAX_TIMESTEPS = 10**10
MAX_N_STEPS = 16_384  # ppo.n_steps (per env)
MAX_BATCH_SIZE = 65_536
MAX_ROLLOUT_STEPS = 262_144  # ppo.n_steps * n_envs
MAX_ROLLOUT_BYTES = 2 << 30  # 2 GiB: the rollout buffer (observations, masks, ...) in memory
MAX_EVAL_GAMES = 100_000  # evaluation.games (per table)
MAX_PRETRAIN_GAMES = 1_000_000
MAX_PRETRAIN_HELD_GAMES = 20_000  # pretrain.chunk_games * pretrain.replay_chunks, held in memory
MAX_SNAPSHOTS = 100
MAX_WEIGHT = 1e6
MAX_TEXT = 1024  # a spec, a path or an address
SHOWN_ERRORS = 20  # the invalid keys listed in one message


class StrictModel(BaseModel):
    """A config section: unknown keys, loose types, infinities and NaN are refused."""

    model_config = ConfigDict(extra="forbid", strict=True, validate_default=True, allow_inf_nan=False)
