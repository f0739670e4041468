"""Training configs: one YAML file per run, validated by pydantic.

A config names the game and its env options, the algorithm's hyperparameters, the number of
environments, the timesteps and the seed, the opponent pool (competitive games) and the
evaluation schedule. Every key is checked: an unknown key or a bad value is a
:class:`ConfigError` (a ``ValueError``) naming the key, what was given and what is allowed.

    game: the_brain_v0
    env: {num_players: 3, difficulty: robber}
    total_timesteps: 300000
    ppo: {learning_rate: 3.0e-4, n_steps: 256}
    evaluation: {every: 50000, games: 200}

The docs' training page lists every key with its default (generated from these models).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from braincards.envs import SPECS, GameSpec, TableConfig, get_spec, table_config
from braincards.training.messages import SHOWN_CHARS, shorten, shown

from ..agents.checkpoint import read_metadata
from ..agents.locations import resolve_checkpoint
from .backends import BACKENDS, MOVED, RLlibBackend, SB3Backend, has_key, upgrade_training
from .config_limits import (
    MAX_BATCH_SIZE,
    MAX_EVAL_GAMES,
    MAX_N_STEPS,
    MAX_PRETRAIN_GAMES,
    MAX_PRETRAIN_HELD_GAMES,
    MAX_ROLLOUT_BYTES,
    MAX_ROLLOUT_STEPS,
    MAX_SEED,
    MAX_SNAPSHOTS,
    MAX_TEXT,
    MAX_TIMESTEPS,
    MAX_WEIGHT,
    SHOWN_ERRORS,
    ConfigError,
    StrictModel,
)
from .yaml_files import read_yaml


class PolicyConfig(StrictModel):
    """The policy network. ``mlp``: an MLP per head (actor and critic), SB3's
    MaskableActorCriticPolicy. ``event_reader`` (Brilliant Boar behind HistoryWrapper): a GRU
    reads the event slots and a scorer shared by the hand positions plays
    (:mod:`braincards.training.agents.event_reader`); ``net_arch`` is then the critic's."""

    kind: Literal["mlp", "event_reader"] = Field("mlp", description='`mlp`, or `event_reader` (Brilliant Boar behind `HistoryWrapper`)')
    net_arch: list[int] = Field(default_factory=lambda: [128, 128], min_length=1, max_length=8, description='hidden layer widths of each head (actor and critic)')
    activation: Literal["tanh", "relu"] = Field("tanh", description="the hidden layers' activation")
    reader_hidden: int = Field(128, ge=1, le=1024, description="event_reader: the GRU's width")
    reader_positions: int = Field(16, ge=1, le=54, description="event_reader: hand positions it keeps a belief for")

    @field_validator("net_arch")
    @classmethod
    def _widths(cls, v: list[int]) -> list[int]:
        if any(w < 1 or w > 4096 for w in v):
            raise ValueError(f"layer widths must be in 1..4096, got {v}")
        return v


class PPOConfig(StrictModel):
    """sb3-contrib MaskablePPO hyperparameters (``n_steps`` per environment)."""

    learning_rate: float = Field(3e-4, gt=0, le=1, description="Adam's step size")
    n_steps: int = Field(256, ge=8, le=MAX_N_STEPS, description='steps collected per env before each update '
                         f'(n_steps * n_envs at most {MAX_ROLLOUT_STEPS:,}, and a rollout buffer of at most '
                         f'{MAX_ROLLOUT_BYTES >> 30} GiB)')
    batch_size: int = Field(256, ge=2, le=MAX_BATCH_SIZE, description='minibatch size')
    n_epochs: int = Field(4, ge=1, le=100, description='passes over each rollout')
    gamma: float = Field(0.995, gt=0, le=1, description='discount factor')
    gae_lambda: float = Field(0.95, ge=0, le=1, description="GAE's lambda")
    clip_range: float = Field(0.2, gt=0, le=1, description="PPO's clipping of the probability ratio")
    ent_coef: float = Field(0.01, ge=0, le=1, description='entropy bonus weight')
    vf_coef: float = Field(0.5, ge=0, le=10, description='value loss weight')
    max_grad_norm: float = Field(0.5, gt=0, le=1000, description='gradient norm clip')


class OpponentSource(StrictModel):
    """One source of opponents: ``random``, ``heuristic`` (or any built-in spec),
    ``snapshots`` (frozen copies of the learner) or a checkpoint name/path; drawn with
    probability proportional to ``weight``."""

    source: str = Field(min_length=1, max_length=MAX_TEXT, description='`random`, `heuristic` (or any built-in spec), `snapshots`, or a checkpoint name or path')
    weight: float = Field(1.0, gt=0, le=MAX_WEIGHT, description='relative probability of drawing this source')


class OpponentsConfig(StrictModel):
    """Competitive games: who sits at the other seats (drawn per seat, per episode)."""

    pool: list[OpponentSource] = Field(
        default_factory=lambda: [OpponentSource(source="heuristic", weight=1.0)], min_length=1, max_length=64,
        description='the sources the other seats are drawn from, each with a weight')
    snapshot_every: int | None = Field(None, ge=1, le=MAX_TIMESTEPS, description="add a snapshot every N timesteps")
    snapshot_win_rate: float | None = Field(
        None, gt=0, le=1, description="add a snapshot when the learner's recent win rate reaches it"
    )
    snapshot_window: int = Field(200, ge=10, le=100_000, description="episodes in the recent win rate")
    max_snapshots: int = Field(10, ge=1, le=MAX_SNAPSHOTS, description='snapshots kept; the oldest is dropped beyond it')
    deterministic: bool = Field(False, description="checkpoint and snapshot opponents play their argmax")

    @model_validator(mode="after")
    def _snapshots_need_a_schedule(self):
        has = any(s.source == "snapshots" for s in self.pool)
        scheduled = self.snapshot_every is not None or self.snapshot_win_rate is not None
        if has and not scheduled:
            raise ValueError("the pool has a 'snapshots' source but neither snapshot_every nor "
                             "snapshot_win_rate is set, so no snapshot would ever be taken")
        if has and all(s.source == "snapshots" for s in self.pool):
            raise ValueError("the pool has only 'snapshots': add a source for the games played "
                             "before the first snapshot (e.g. random or heuristic)")
        return self


class EvaluationConfig(StrictModel):
    """Periodic evaluation through :func:`braincards.training.evaluation.evaluate.evaluate`.

    Cooperative games: the learner's team (every seat) and, per entry of ``partners``, the
    learner at one seat with that partner at the others. Competitive games: the learner at
    one seat against ``opponents`` at the others (seats rotate)."""

    every: int = Field(50_000, ge=1, le=MAX_TIMESTEPS, description="timesteps between evaluations")
    games: int = Field(200, ge=1, le=MAX_EVAL_GAMES, description='games per evaluation table')
    seed: int = Field(12345, ge=0, le=MAX_SEED, description="the evaluations' seed (the same deals at every evaluation)")
    opponents: list[str] = Field(default_factory=lambda: ["heuristic", "random"], max_length=32, description='competitive games: one table per opponent spec')
    partners: list[str] = Field(default_factory=lambda: ["heuristic"], max_length=32, description='cooperative games: one table per partner spec (the learner at one seat, the partner at the others), beside the team table in team mode')


class PretrainConfig(StrictModel):
    """Behaviour cloning before PPO (:mod:`braincards.training.learning.pretrain`): the learner first
    imitates ``teacher`` on ``games`` games it plays at the learner's seats."""

    teacher: str = Field(min_length=1, max_length=MAX_TEXT, description="a policy spec, e.g. heuristic")
    games: int = Field(500, ge=1, le=MAX_PRETRAIN_GAMES, description='games recorded for cloning')
    chunk_games: int = Field(100, ge=1, le=MAX_PRETRAIN_HELD_GAMES, description='games per recorded chunk (each chunk is fitted before the next is played; '
                             f'chunk_games * replay_chunks at most {MAX_PRETRAIN_HELD_GAMES:,}, the games held in memory)')
    epochs: int = Field(4, ge=1, le=100, description='passes over each chunk (with its replayed chunks)')
    batch_size: int = Field(256, ge=1, le=MAX_BATCH_SIZE, description='minibatch size of the cloning fit')
    learning_rate: float = Field(1e-3, gt=0, le=1, description="the cloning fit's Adam step size")
    final_learning_rate: float | None = Field(None, gt=0, le=1, description="if set, the learning "
                                              "rate goes linearly from learning_rate (first chunk) to this (last chunk)")
    value_coef: float = Field(0.5, ge=0, le=100, description="weight of the value head's loss (discounted returns of the games)")
    dagger: bool = Field(False, description="after the first chunk the learner plays, the teacher labels")
    dagger_after: int | None = Field(None, ge=1, le=MAX_PRETRAIN_GAMES, description="with dagger: the games the teacher "
                                     "plays before the learner takes over (default: one chunk)")
    replay_chunks: int = Field(1, ge=1, le=1000, description="fit each chunk together with the "
                               "games of the previous replay_chunks - 1 chunks (DAgger's aggregation)")
    hand_coef: float = Field(0.0, ge=0, le=100, description="event_reader: weight of the auxiliary loss that "
                             "teaches its hand belief the replay of its own draws and plays")
    fused_adam: bool = Field(False, description="the cloning fit's Adam updates all weights in one fused kernel "
                             "(`torch.optim.Adam(fused=True)`): the same algorithm, faster, equal up to float rounding; "
                             "always on in `braincards train`'s portable kernel mode (`BRAINCARDS_KERNELS`)")
    record_ahead: bool = Field(False, description="a second process records the next chunk while this one is "
                               "fitted (with dagger its learner is then one fit behind; the first DAgger chunk waits "
                               "for the first fit): recording and fitting share two cores instead of taking turns")


    @model_validator(mode="after")
    def _dagger_after(self):
        if self.dagger_after is not None:
            if not self.dagger:
                raise ValueError(f"pretrain.dagger_after={self.dagger_after} needs pretrain.dagger: true")
            if self.dagger_after >= self.games:
                raise ValueError(f"pretrain.dagger_after={self.dagger_after} leaves no DAgger games: it must "
                                 f"be less than pretrain.games ({self.games})")
        held = self.chunk_games * self.replay_chunks
        if held > MAX_PRETRAIN_HELD_GAMES:
            raise ValueError(f"pretrain.chunk_games * pretrain.replay_chunks = {self.chunk_games} * "
                             f"{self.replay_chunks} = {held:,} games held in memory; the limit is "
                             f"{MAX_PRETRAIN_HELD_GAMES:,}")
        return self

    def learner_plays(self, done: int) -> bool:
        """Whether DAgger's learner plays the chunk that starts after ``done`` games."""
        first = self.chunk_games if self.dagger_after is None else self.dagger_after
        return self.dagger and done >= first


class TrainConfig(StrictModel):
    """One training run (see the module docstring)."""

    game: str = Field(max_length=MAX_TEXT, description='the env id or name (`the_brain_v0` or `the_brain`)')
    env: dict[str, Any] = Field(default_factory=dict, description="the env's options, as `braincards.envs.make(game, **env)` takes them")
    mode: Literal["team", "seat"] | None = Field(
        None, description="team: one policy plays every seat (cooperative); seat: the learner "
        "plays one seat drawn per episode against the opponent pool (default: by game)"
    )
    history_k: int = Field(0, ge=0, le=256, description="Brilliant Boar: HistoryWrapper slots")
    shaping: float = Field(0.0, ge=0, le=10, description="The Brain: reward += shaping x the "
                           "share of the 36 cards played out since the learner's last step")
    seed: int = Field(0, ge=0, le=MAX_SEED, description="seeds the envs, the network's initialisation and the opponent draws")
    total_timesteps: int = Field(ge=1, le=MAX_TIMESTEPS, description="the learner's decisions to train for (`--timesteps` overrides it)")
    n_envs: int = Field(4, ge=1, le=256, description='copies of the learner env in the vectorised env')
    vec_env: Literal["dummy", "subproc"] = Field("dummy", description='`dummy` (one process) or `subproc` (one process per env)')
    torch_threads: int = Field(1, ge=1, le=256, description='torch threads per process (`--torch-threads`); 1 is fastest for small batches')
    policy: PolicyConfig = Field(default_factory=PolicyConfig, description='the network (PolicyConfig)')
    ppo: PPOConfig = Field(default_factory=PPOConfig, description="PPO's hyperparameters (PPOConfig)")
    opponents: OpponentsConfig = Field(default_factory=OpponentsConfig, description='the opponent pool of seat mode (OpponentsConfig)')
    evaluation: EvaluationConfig = Field(default_factory=EvaluationConfig, description='the evaluation schedule (EvaluationConfig)')
    pretrain: PretrainConfig | None = Field(None, description='behaviour cloning before PPO (PretrainConfig); none: PPO from scratch')
    backend: Annotated[SB3Backend | RLlibBackend, Field(discriminator="name")] = Field(
        default_factory=SB3Backend, description="the trainer and the options only it has: `name: sb3` "
        "(SB3Backend, the default) or `name: rllib` (RLlibBackend)")

    _spec: GameSpec = PrivateAttr()
    _table: TableConfig = PrivateAttr()
    _num_players: int = PrivateAttr()

    @model_validator(mode="before")
    @classmethod
    def _layout(cls, data: Any) -> Any:
        """A key of the old layout is named with where it moved; a ``backend`` mapping without
        ``name`` is the sb3 one."""
        if not isinstance(data, dict):
            return data
        moved = [f"{'.'.join(old)} is now backend.{new}" for old, new in MOVED.items() if has_key(data, old)]
        if "rllib" in data:
            moved.append("rllib.* is now backend.* (with backend.name: rllib)")
        if moved:
            raise ValueError("keys of the old layout: " + "; ".join(moved))
        backend = data.get("backend")
        if isinstance(backend, dict) and "name" not in backend:
            data = {**data, "backend": {"name": "sb3", **backend}}
        return data

    @field_validator("game")
    @classmethod
    def _known_game(cls, v: str) -> str:
        return get_spec(v).id

    @field_validator("env")
    @classmethod
    def _env_options(cls, v: dict, info) -> dict:
        game = info.data.get("game")
        return get_spec(game).check_options(v) if game else v  # every option, by the game itself

    @model_validator(mode="after")
    def _consistent(self):
        spec = self._spec = get_spec(self.game)
        self._table = table_config(spec, self.env)
        self._num_players = spec.num_players(self.env)
        solo = self._num_players == 1
        if self.mode is None:
            self.mode = "team" if spec.cooperative or solo else "seat"
        if self.mode == "seat" and solo:
            raise ValueError("mode 'seat' needs at least 2 players; a solo game trains in 'team' mode")
        if self.history_k and spec.history_wrapper is None:
            with_one = [s for s in _games() if get_spec(s).history_wrapper is not None]
            raise ValueError(f"{self.game} has no history wrapper; games with one: {with_one} "
                             f"(set history_k 0)")
        backend = self.backend
        if backend.name == "rllib" and self.policy.kind != "mlp":
            raise ValueError(f"policy.kind {self.policy.kind!r} trains with the sb3 backend only; backend rllib "
                             f"builds an MLP (policy.kind 'mlp')")
        if backend.name == "sb3" and backend.sparse_input and self.policy.kind != "mlp":
            raise ValueError(f"backend.sparse_input applies to policy.kind 'mlp' (its heads' first layers); "
                             f"policy.kind is {self.policy.kind!r}")
        if backend.name == "sb3" and backend.precision != "float32" and self.policy.kind != "mlp":
            raise ValueError(f"backend.precision={backend.precision} applies to policy.kind 'mlp' (its heads' "
                             f"hidden layers); policy.kind is {self.policy.kind!r}")
        if self.policy.kind == "event_reader" and not self.history_k:
            raise ValueError("policy.kind 'event_reader' reads HistoryWrapper's event slots: set history_k >= 1")
        if self.pretrain is not None and self.pretrain.hand_coef and self.policy.kind != "event_reader":
            raise ValueError(f"pretrain.hand_coef={self.pretrain.hand_coef} trains the event reader's hand "
                             f"belief; policy.kind is {self.policy.kind!r} (set hand_coef 0)")
        if self.shaping and spec.progress is None:
            raise ValueError(f"shaping={self.shaping}: {self.game} has no progress measure; "
                             f"set 0 for {self.game}")
        if self.mode == "seat" and spec.cooperative and not self.evaluation.partners:
            raise ValueError("mode 'seat' in a cooperative game evaluates the learner with each "
                             "evaluation.partners entry: name at least one partner")
        _no_evaluation_only_partner(self)
        rollout = self.ppo.n_steps * self.n_envs
        if rollout > MAX_ROLLOUT_STEPS:
            raise ValueError(f"ppo.n_steps * n_envs = {self.ppo.n_steps} * {self.n_envs} = {rollout:,} steps "
                             f"in a rollout; the limit is {MAX_ROLLOUT_STEPS:,}")
        need = max(_rollout_bytes(spec.spaces(variant, self.history_k), rollout)
                   for variant in spec.variants(self.env))
        if need > MAX_ROLLOUT_BYTES:
            raise ValueError(f"ppo.n_steps * n_envs = {self.ppo.n_steps} * {self.n_envs} = {rollout:,} steps "
                             f"need a rollout buffer of {need / 2**30:.1f} GiB for {self.game} "
                             f"(history_k {self.history_k}); the limit is {MAX_ROLLOUT_BYTES >> 30} GiB: "
                             f"lower ppo.n_steps or n_envs")
        if self.ppo.batch_size > rollout:
            raise ValueError(f"ppo.batch_size={self.ppo.batch_size} is larger than a rollout "
                             f"(ppo.n_steps * n_envs = {rollout})")
        return self

    @property
    def spec(self) -> GameSpec:
        """The game's spec (what every layer reads instead of branching on the game id)."""
        return self._spec

    @property
    def table(self) -> TableConfig:
        """The game and its options, resolved once (what the learner envs are built from)."""
        return self._table

    @property
    def num_players(self) -> int:
        return self._num_players


def _no_evaluation_only_partner(cfg: TrainConfig) -> None:
    """A ValueError when the run would train with a test-split proxy (``braincards proxy
    fit``'s ``proxy_test``): it is kept for evaluation, so that a score with it measures play
    with people no training run saw."""
    used = [("opponents.pool", s.source) for s in cfg.opponents.pool if s.source != "snapshots"]
    if cfg.pretrain is not None:
        used.append(("pretrain.teacher", cfg.pretrain.teacher))
    if cfg.backend.name == "sb3" and cfg.backend.init_from:
        used.append(("backend.init_from", cfg.backend.init_from))
    for key, spec in used:
        path = resolve_checkpoint(spec)
        if path is not None and (read_metadata(path).get("proxy") or {}).get("split") == "test":
            raise ValueError(f"{key} {spec!r} is a test-split proxy, kept for evaluation only; train with "
                             f"the train-split proxy (proxy_train) instead")


def _games() -> list[str]:
    return sorted(SPECS)


def _rollout_bytes(spaces: dict, steps: int) -> int:
    """The memory of MaskablePPO's rollout buffer for ``steps`` transitions: float32
    observations and action masks, an int64 action and six float32 scalars per step."""
    obs = 1
    for n in spaces["observation_shape"]:
        obs *= n
    return steps * (4 * (obs + spaces["action_n"]) + 8 + 6 * 4)


def _describe(err: ValidationError, source: str) -> str:
    """One line per invalid key (the first SHOWN_ERRORS): the key, what is allowed and the
    given value, truncated, so that a huge value never makes a huge message."""
    lines = []
    errors = err.errors(include_url=False)
    for e in errors[:SHOWN_ERRORS]:
        loc, tag = _untagged(e["loc"])
        key = shorten(".".join(str(p) for p in loc)) or "(top level)"
        msg = shorten(e["msg"].removeprefix("Value error, "), 4 * SHOWN_CHARS)
        if e["type"] == "extra_forbidden":
            parent = _model_at(e["loc"][:-1])
            allowed = sorted(parent.model_fields) if parent else []
            msg = f"unknown key{f' for backend {tag}' if tag else ''}; allowed keys here: {allowed}"
        elif e["type"] == "missing":
            msg = "required key is missing"
        got = e.get("input")
        if e["type"] in ("missing", "extra_forbidden") or isinstance(got, dict):
            lines.append(f"  {key}: {msg}")
            continue
        if isinstance(got, str) and len(got) < 64 and _is_number(got):
            msg += " (YAML reads 3e-4 as text: write 3.0e-4)"
        lines.append(f"  {key}: {msg} (got {shown(got)})")
    if len(errors) > SHOWN_ERRORS:
        lines.append(f"  ... and {len(errors) - SHOWN_ERRORS} more")
    return f"{source}: invalid training config:\n" + "\n".join(lines)


def _untagged(loc: tuple) -> tuple[tuple, str | None]:
    """A validation error's location without the backend's tag (``backend.rllib.x`` is the key
    ``backend.x`` of the rllib backend), and the tag."""
    if len(loc) > 1 and loc[0] == "backend" and loc[1] in BACKENDS:
        return (loc[0], *loc[2:]), loc[1]
    return tuple(loc), None


def _model_at(loc) -> type[BaseModel] | None:
    """The config model at a location of a validation error (for listing allowed keys)."""
    loc, tag = _untagged(tuple(loc))
    if tag is not None:
        model: type[BaseModel] | None = SB3Backend if tag == "sb3" else RLlibBackend
        loc = loc[1:]
    else:
        model = TrainConfig
    for part in loc:
        if isinstance(part, int) or model is None:
            continue
        field = model.model_fields.get(part)
        if field is None:
            return None
        candidates = [field.annotation, *get_args(field.annotation)]
        model = next((c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)), None)
    return model


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def parse_train_config(data: Any, source: str = "config") -> TrainConfig:
    """Validate a mapping as a :class:`TrainConfig` (ConfigError naming every bad key)."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: a training config is a mapping, got {type(data).__name__}")
    try:
        return TrainConfig.model_validate(data)
    except ValidationError as err:
        raise ConfigError(_describe(err, source)) from None


def stored_train_config(meta: dict, source: str = "checkpoint") -> TrainConfig:
    """The training config a checkpoint's metadata stores (``meta["training"]``), read in
    today's layout whatever version wrote it (:func:`upgrade_training`)."""
    return parse_train_config(upgrade_training(meta.get("training")), f"{source} training")


def set_key(data: dict, dotted: str, value: Any) -> None:
    """``set_key(d, "ppo.learning_rate", 1e-4)``: set a nested key (mappings made as needed)."""
    parts = dotted.split(".")
    if not all(parts):
        raise ConfigError(f"bad key {dotted!r}: expected names separated by dots, e.g. ppo.n_steps")
    node = data
    for part in parts[:-1]:
        nxt = node.setdefault(part, {})
        if not isinstance(nxt, dict):
            raise ConfigError(f"cannot set {dotted!r}: {part!r} is not a mapping")
        node = nxt
    node[parts[-1]] = value


def load_train_config(path: str | Path, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """Read a YAML training config and apply ``overrides`` (dotted keys -> values)."""
    data = read_yaml(path, "training config")
    if isinstance(data, dict):
        for key, value in (overrides or {}).items():
            set_key(data, key, value)
    return parse_train_config(data, str(path))


def config_dict(cfg: TrainConfig) -> dict:
    """The fully resolved config as plain JSON-safe data (defaults filled in)."""
    return cfg.model_dump(mode="json")
