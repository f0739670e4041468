"""What RLlib's env runners are told: a training config's env-side fields, to and from the plain
mapping RLlib ships (``env_config``). One serializer both ways, so that no field is dropped on
the way (imports nothing from Ray)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from ..learner_env import MODES


@dataclass(frozen=True)
class RunnerConfig:
    """The env-side fields of a run: ``game`` (env id), ``env`` (env options), ``mode``
    (``"team"``/``"seat"``), ``opponents`` (``[{"source", "weight"}]``), ``deterministic``
    (checkpoint and snapshot opponents play their argmax), ``max_snapshots`` and
    ``snapshot_slots`` (the frozen-learner slots and how many hold weights), ``history_k``,
    ``shaping`` and ``seed``."""

    game: str
    env: dict = field(default_factory=dict)
    mode: str = "team"
    opponents: list = field(default_factory=list)
    deterministic: bool = False
    max_snapshots: int = 0
    snapshot_slots: int = 0
    history_k: int = 0
    shaping: float = 0.0
    seed: int | None = None

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")

    @classmethod
    def of(cls, cfg, seed: int, max_snapshots: int) -> RunnerConfig:
        """The runner config of a :class:`~braincards.training.learning.config.TrainConfig`."""
        return cls(game=cfg.game, env=dict(cfg.env), mode=cfg.mode,
                   opponents=[{"source": s.source, "weight": float(s.weight)} for s in cfg.opponents.pool],
                   deterministic=bool(cfg.opponents.deterministic), max_snapshots=int(max_snapshots),
                   history_k=int(cfg.history_k), shaping=float(cfg.shaping), seed=seed)

    def to_env_config(self) -> dict:
        """The plain mapping RLlib ships to its env runners."""
        return asdict(self)

    @classmethod
    def from_env_config(cls, config: dict | None) -> RunnerConfig:
        """Read an ``env_config`` back (a ValueError for an unknown key or a missing game)."""
        config = dict(config or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(config) - known)
        if unknown:
            raise ValueError(f"unknown env_config keys {unknown}; allowed: {sorted(known)}")
        if "game" not in config:
            raise ValueError("env_config needs 'game' (an env id)")
        return cls(**config)
