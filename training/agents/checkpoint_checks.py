"""What a checkpoint may hold, and the checks that refuse anything else: the whitelisted
policy classes and keyword arguments, size and nesting limits for its JSON, finite weights
and outputs, an optimizer state of the optimizer's own shape and types, and whether a
checkpoint fits a table (:func:`check_fits`, :func:`config_differences`).

:mod:`.checkpoint` reads and writes checkpoints through these; every refusal is a
:class:`CheckpointError` naming the file and what was wrong.
"""

from __future__ import annotations

import functools
import json
import math

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from sb3_contrib.common.recurrent.policies import RecurrentActorCriticPolicy

from braincards.envs import get_spec
from braincards.training.messages import shown

from .event_reader import EventReaderPolicy
from .play_only import is_critic

# who trained it (informational; loading depends on the policy class only)
ALGORITHMS = ("MaskablePPO", "RecurrentPPO", "RLlibPPO")
# the policy classes a checkpoint may name; nothing else is ever built
POLICY_CLASSES = {
    cls.__name__: cls for cls in (MaskableActorCriticPolicy, RecurrentActorCriticPolicy, EventReaderPolicy)
}
ACTIVATIONS = ("tanh", "relu")
# policy keyword arguments a checkpoint may set, with their JSON types
POLICY_KWARGS = {
    "net_arch": (list, dict),
    "activation_fn": (str,),
    "ortho_init": (bool,),
    "lstm_hidden_size": (int,),
    "n_lstm_layers": (int,),
    "shared_lstm": (bool,),
    "enable_critic_lstm": (bool,),
    "history_k": (int,),
    "reader_hidden": (int,),
    "reader_positions": (int,),
}
READER_KWARGS = ("history_k", "reader_hidden", "reader_positions")  # EventReaderPolicy's, all required
MAX_LAYER = 4096  # widest hidden layer / LSTM a checkpoint may ask for
MAX_LAYERS = 8
MAX_MEMBER_BYTES = 512 * 2**20  # refuse larger archive members before reading them
MAX_PARAMETERS = 50_000_000  # the largest network a checkpoint may describe (200 MB of float32)
MAX_JSON_BYTES = 4 * 2**20  # NAME.json and optimizer.json (a real one is a few KB)
MAX_OBSERVATION = 2**20  # observation floats a checkpoint may declare (the envs use < 3,000)
MAX_ACTIONS = 2**16  # actions a checkpoint may declare (the envs use < 300)
MAX_JSON_DEPTH = 32  # nesting of those files (a real one nests 5 deep)

# the members of a checkpoint archive (``NAME.zip``): tensors and JSON, nothing else
POLICY_MEMBER = "policy.safetensors"
OPTIMIZER_MEMBERS = ("optimizer.safetensors", "optimizer.json")
ALLOWED_MEMBERS = (POLICY_MEMBER, *OPTIMIZER_MEMBERS)


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: missing, corrupt, unsafe, or made for another env."""


def check_network_description(spec, where: str) -> None:
    """Validate a policy description from metadata (CheckpointError naming what is wrong)."""
    if not isinstance(spec, dict) or set(spec) != {"class", "kwargs"}:
        raise CheckpointError(f"{where}: 'policy' must be a mapping with 'class' and 'kwargs', got {shown(spec)}")
    if spec["class"] not in POLICY_CLASSES:
        raise CheckpointError(f"{where}: policy class {shown(spec['class'])} is not allowed; allowed: "
                              f"{sorted(POLICY_CLASSES)}")
    kwargs = spec["kwargs"]
    if not isinstance(kwargs, dict):
        raise CheckpointError(f"{where}: policy kwargs must be a mapping, got {shown(kwargs)}")
    for key, value in kwargs.items():
        if key not in POLICY_KWARGS:
            raise CheckpointError(f"{where}: policy kwarg {shown(key)} is not allowed; allowed: {sorted(POLICY_KWARGS)}")
        types = POLICY_KWARGS[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise CheckpointError(f"{where}: policy kwarg {key}={shown(value)} has the wrong type")
    if "activation_fn" in kwargs and kwargs["activation_fn"] not in ACTIVATIONS:
        raise CheckpointError(f"{where}: activation_fn {shown(kwargs['activation_fn'])}; allowed: {list(ACTIVATIONS)}")
    arch = kwargs.get("net_arch", [])
    layers = [arch] if isinstance(arch, list) else list(arch.values())
    if isinstance(arch, dict) and not set(arch) <= {"pi", "vf"}:
        raise CheckpointError(f"{where}: net_arch keys {sorted(arch)}; allowed: 'pi', 'vf'")
    for lay in layers:
        if not (isinstance(lay, list) and len(lay) <= MAX_LAYERS
                and all(type(w) is int and 1 <= w <= MAX_LAYER for w in lay)):
            raise CheckpointError(f"{where}: net_arch {shown(arch)} must be lists of at most {MAX_LAYERS} "
                                  f"layer widths in 1..{MAX_LAYER}")
    for key in ("lstm_hidden_size", "n_lstm_layers"):
        if key in kwargs and not 1 <= kwargs[key] <= (MAX_LAYER if key == "lstm_hidden_size" else MAX_LAYERS):
            raise CheckpointError(f"{where}: {key}={kwargs[key]} is out of range")
    reader = [key for key in READER_KWARGS if key in kwargs]
    if spec["class"] == "EventReaderPolicy" and len(reader) != len(READER_KWARGS):
        raise CheckpointError(f"{where}: EventReaderPolicy needs the kwargs {list(READER_KWARGS)}, got {sorted(kwargs)}")
    if spec["class"] != "EventReaderPolicy" and reader:
        raise CheckpointError(f"{where}: {reader} are EventReaderPolicy kwargs, not {spec['class']}'s")


def check_members(names: list[str], zip_path) -> None:
    """A checkpoint archive's members: each allowed one at most once, the policy's present."""
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise CheckpointError(f"checkpoint {zip_path} holds {repeated} more than once: each member appears "
                              f"once (which copy would count?)")
    foreign = [n for n in names if n not in ALLOWED_MEMBERS]
    if foreign:
        hint = (" - it looks like a stable-baselines3 model.save() archive, whose 'data' entry "
                "can hold pickled Python objects" if "data" in names else "")
        raise CheckpointError(
            f"checkpoint {zip_path} holds {foreign}{hint}; a braincards checkpoint holds only "
            f"{list(ALLOWED_MEMBERS)} (tensors and JSON), and nothing else is ever loaded"
        )
    if POLICY_MEMBER not in names:
        raise CheckpointError(f"checkpoint {zip_path} is corrupt: it lacks {POLICY_MEMBER}")


class _RepeatedKey(ValueError):
    """A JSON object that names a key twice (json.loads would keep the last one silently)."""


def _unique_keys(pairs: list) -> dict:
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise _RepeatedKey(key)
        seen[key] = value
    return seen


def load_json_limited(data: bytes, where: str, max_bytes: int = MAX_JSON_BYTES) -> object:
    """Parse checkpoint JSON (``NAME.json``, ``optimizer.json``) within size and nesting
    limits: CheckpointError naming ``where`` for anything else."""
    if len(data) > max_bytes:
        raise CheckpointError(f"{where} is {len(data)} bytes, over the {max_bytes}-byte limit")
    try:
        value = json.loads(data, object_pairs_hook=_unique_keys)
    except _RepeatedKey as err:
        raise CheckpointError(f"{where} repeats the key {shown(str(err))}: each key appears once "
                              f"(which one would count?)") from None
    except RecursionError:
        raise CheckpointError(f"{where} is nested deeper than {MAX_JSON_DEPTH} levels") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CheckpointError(f"{where} is not valid JSON: {err}") from None
    stack = [(value, 1)]
    while stack:  # iterative: the depth check itself must not recurse
        node, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise CheckpointError(f"{where} is nested deeper than {MAX_JSON_DEPTH} levels")
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return value


def check_finite(tensors: dict, where: str) -> None:
    for name, t in tensors.items():
        if t.is_floating_point() and not bool(torch.isfinite(t).all()):
            raise CheckpointError(f"{where}: tensor {shown(name)} holds non-finite values (NaN or inf)")


PROBE_OBSERVATIONS = 16  # real observations the load check feeds a network, besides the zero one


@functools.lru_cache(maxsize=64)
def probe_observations(game: str, options: str, history_k: int) -> np.ndarray:
    """The zero observation and :data:`PROBE_OBSERVATIONS` observations of a game at the given
    table (``options``: its JSON), from seeded random play: the same set every time, for every
    checkpoint of that table."""
    spec = get_spec(game)
    env = spec.table(spec.check_options(json.loads(options)), history_k)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    rows = []
    while len(rows) < PROBE_OBSERVATIONS:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.reset(seed=len(rows) + 1)
            continue
        obs = env.observe(agent)
        rows.append(np.asarray(obs["observation"], np.float32))
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return np.stack([np.zeros_like(rows[0]), *rows])


def check_forward(policy, meta: dict, where: str) -> None:
    """A forward pass on the zero observation and on observations of seeded play at the
    checkpoint's own table (:func:`probe_observations`): weights that are finite but overflow
    (all 3e38; relu layers of 1e20) are refused here, not at the first ``act()``."""
    try:
        seen = probe_observations(meta["game"], json.dumps(meta["env_config"], sort_keys=True),
                                  int(meta.get("history_k") or 0))
    except (KeyError, ValueError, TypeError):  # a learner's snapshot names no table; a table
        # the game refuses is check_fits' to say
        seen = np.zeros((1, math.prod(meta["observation_shape"])), np.float32)
    obs = torch.as_tensor(seen[:, : math.prod(meta["observation_shape"])])
    try:
        with torch.no_grad():
            if isinstance(policy, RecurrentActorCriticPolicy):
                n, _, hidden = policy.lstm_hidden_state_shape
                state = (torch.zeros(n, len(obs), hidden), torch.zeros(n, len(obs), hidden))
                dist, _ = policy.get_distribution(obs, state, torch.ones(len(obs)))
                value = torch.zeros(1)
            else:
                dist = policy.get_distribution(obs)
                value = policy.predict_values(obs)
            logits = dist.distribution.logits
    except (ValueError, RuntimeError) as err:  # torch's Categorical refuses NaN logits
        raise CheckpointError(f"{where}: the network's output on the zero observation and observations of "
                              f"seeded play is not a distribution: {str(err)[:200]}") from None
    if not (bool(torch.isfinite(logits).all()) and bool(torch.isfinite(value).all())):
        raise CheckpointError(f"{where}: the network's outputs on the zero observation and observations of "
                              f"seeded play are not finite (NaN or inf): its weights overflow")


def check_optimizer_json(optimizer, js, where: str) -> None:
    """The optimizer's JSON must have the live optimizer's shape and types: the same param
    groups with the same keys, each value of the type the optimizer itself holds there, and
    every number finite (``"lr": "abc"`` or ``"lr": NaN`` is refused, not passed on)."""
    if not isinstance(js, dict) or not isinstance(js.get("param_groups"), list):
        raise CheckpointError(f"{where}: optimizer.json must be a mapping with a 'param_groups' list")
    live = optimizer.state_dict()["param_groups"]
    groups = js["param_groups"]
    if len(groups) != len(live):
        raise CheckpointError(f"{where}: optimizer.json has {len(groups)} param groups, the "
                              f"optimizer {len(live)}")
    for g, (group, want) in enumerate(zip(groups, live, strict=True)):
        if not isinstance(group, dict) or set(group) != set(want):
            got = sorted(group) if isinstance(group, dict) else type(group).__name__
            raise CheckpointError(f"{where}: optimizer param group {g} has keys {shown(got)}; "
                                  f"the optimizer's are {sorted(want)}")
        if group["params"] != want["params"]:
            raise CheckpointError(f"{where}: optimizer param group {g} lists params "
                                  f"{shown(group['params'])}, the optimizer {shown(want['params'])}")
        for key, value in group.items():
            if not _same_kind(value, want[key]):
                raise CheckpointError(f"{where}: optimizer param group {g}: {key}={shown(value)} "
                                      f"is not a {_kind(want[key])}")
            _check_hyperparameter(key, value, want[key], f"{where}: optimizer param group {g}")
    scalars = js.get("scalars", {})
    if not isinstance(scalars, dict) or not all(_is_number(v) for v in scalars.values()):
        raise CheckpointError(f"{where}: optimizer.json's 'scalars' must map names to finite numbers")


# Adam's hyperparameters a resumed optimizer may hold (anything else must be the optimizer's own)
HYPERPARAMETER_RANGES = {"lr": (0.0, 1.0), "eps": (0.0, 1.0), "weight_decay": (0.0, 1.0)}


def _check_hyperparameter(key: str, value, live, where: str) -> None:
    """``lr``, ``eps`` and ``weight_decay`` in their ranges, ``betas`` in [0, 1); every flag
    (``amsgrad``, ``foreach``, ``fused``...) as the optimizer braincards builds has it."""
    if key in HYPERPARAMETER_RANGES:
        lo, hi = HYPERPARAMETER_RANGES[key]
        ok = (lo < value <= hi) if key != "weight_decay" else (lo <= value <= hi)
        if not ok:
            bound = "[" if key == "weight_decay" else "("
            raise CheckpointError(f"{where}: {key}={shown(value)} is out of range {bound}{lo:g}, {hi:g}]")
    elif key == "betas":
        if not all(0.0 <= b < 1.0 for b in value):
            raise CheckpointError(f"{where}: betas={shown(value)} must each be in [0, 1)")
    elif key != "params" and value != live:
        raise CheckpointError(f"{where}: {key}={shown(value)}, but braincards' optimizer has {key}={shown(live)}")


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _kind(ref) -> str:
    if isinstance(ref, (list, tuple)):
        return f"list of {len(ref)} {_kind(ref[0]) if ref else 'values'}"
    return {bool: "bool", type(None): "null"}.get(type(ref), "finite number")


def _same_kind(value, ref) -> bool:
    """``value`` from JSON is of the kind of the live optimizer's ``ref``."""
    if isinstance(ref, bool):
        return isinstance(value, bool)
    if ref is None:
        return isinstance(value, bool) or value is None  # e.g. foreach: None or a bool
    if isinstance(ref, (int, float)):
        return _is_number(value)
    if isinstance(ref, (list, tuple)):
        return (isinstance(value, list) and len(value) == len(ref)
                and all(_same_kind(v, r) for v, r in zip(value, ref, strict=True)))
    return False  # a kind of value braincards never stores


def check_fits(meta: dict, game: str | None, config: dict | None, where: str = "checkpoint") -> None:
    """Raise CheckpointError unless a checkpoint's game and spaces fit ``game``/``config``."""
    if game is None:
        return
    if meta["game"] != game:
        raise CheckpointError(f"{where} was trained for {meta['game']}, not {game}")
    k = meta.get("history_k", 0)
    try:
        spaces = get_spec(game).spaces(meta["env_config"] if config is None else config, k)
    except (TypeError, ValueError) as err:
        if config is not None:
            raise
        raise CheckpointError(f"{where}: its metadata's env_config {meta['env_config']} does "
                              f"not make a {game} env: {err}") from None
    have = {"observation_shape": list(meta["observation_shape"]), "action_n": int(meta["action_n"])}
    if spaces != have:
        raise CheckpointError(
            f"{where} does not fit {game} with config {config}: the checkpoint has observation "
            f"{have['observation_shape']} and {have['action_n']} actions, the env has observation "
            f"{spaces['observation_shape']} and {spaces['action_n']} actions (trained with env "
            f"config {meta['env_config']}, history_k={k})"
        )


class CheckpointConfigWarning(UserWarning):
    """A checkpoint seated at a table whose game options differ from the ones it was trained
    with (the spaces fit, so it plays, but maybe not well). Silence it with
    ``warnings.filterwarnings("ignore", category=CheckpointConfigWarning)`` or the CLI's
    ``--no-config-warning``."""


def config_differences(meta: dict, config: dict | None) -> list[str]:
    """How a table's options differ from those a checkpoint was trained with (the options
    that decide the game: not reward shaping, rendering or the cycle cap), as
    ``"num_players: trained 1, here 2"`` lines; empty if they are the same game."""
    spec = get_spec(meta["game"])
    try:
        trained = spec.table_options(meta["env_config"])
        here = spec.table_options(config)
    except ValueError:
        return []  # an option the env does not know: check_fits has refused it already
    return [f"{k}: trained {shown(trained[k])}, here {shown(here[k])}"
            for k in trained if trained[k] != here[k]]


def declared_parameters(meta: dict) -> int:
    """A lower bound on the parameters of the network ``meta`` describes, from its numbers
    alone (the weight matrices of its LSTMs and hidden layers; biases and heads left out), so
    that a description is weighed before anything is built."""
    kwargs, features = meta["policy"]["kwargs"], int(meta["observation_shape"][0])
    total, critic_lstm = 0, False
    if meta["policy"]["class"] == "RecurrentActorCriticPolicy":
        hidden, layers = int(kwargs.get("lstm_hidden_size", 256)), int(kwargs.get("n_lstm_layers", 1))
        one = 4 * hidden * (features + hidden) + (layers - 1) * 4 * hidden * 2 * hidden
        critic_lstm = not kwargs.get("shared_lstm", False) and kwargs.get("enable_critic_lstm", True)
        total, features = one * (2 if critic_lstm else 1), hidden
    elif meta["policy"]["class"] == "EventReaderPolicy":  # its reader checks its own numbers, first thing
        features = 0  # the reader's summary, whose width varies
    arch = kwargs.get("net_arch", [])
    heads = [arch.get("pi", []), arch.get("vf", [])] if isinstance(arch, dict) else [arch, arch]
    if meta.get("play_only"):  # the actor alone: no value layers, no critic LSTM
        heads, total = heads[:1], total // 2 if critic_lstm else total
    for sizes in heads:
        widths = [features, *(int(w) for w in sizes)]
        total += sum(a * b for a, b in zip(widths, widths[1:], strict=False))
    return total


def check_declared_budget(meta: dict, where: str) -> None:
    """Refuse a network description over :data:`MAX_PARAMETERS`, from the metadata alone
    (before the archive is read, let alone the network built)."""
    declared = declared_parameters(meta)
    if declared > MAX_PARAMETERS:
        raise CheckpointError(f"{where}: its network would have at least {declared:,} parameters, over the "
                              f"{MAX_PARAMETERS:,} a checkpoint may describe")


def check_declared_size(meta: dict, tensors: dict, where: str) -> None:
    """Refuse a network description over :data:`MAX_PARAMETERS` or larger than the weights
    that come with it, before it is built (building it is what costs)."""
    check_declared_budget(meta, where)
    declared = declared_parameters(meta)
    held = sum(int(t.numel()) for t in tensors.values())
    if declared > held:
        raise CheckpointError(f"{where}: its network would have at least {declared:,} parameters but its "
                              f"archive holds {held:,}: the description and the weights do not match")


def load_weights(policy, tensors: dict, play_only: bool, where: str) -> None:
    """Copy ``tensors`` into ``policy``: every weight it has, or for a play-only checkpoint
    every weight but the critic's (which keeps its initial values and is never read to play);
    CheckpointError naming what does not fit."""
    wanted = set(policy.state_dict())
    if play_only:
        critic = {name for name in wanted if is_critic(name)}
        missing, foreign = sorted(wanted - critic - set(tensors)), sorted(set(tensors) - (wanted - critic))
        if missing or foreign:
            raise CheckpointError(f"{where}: the play-only weights do not fit the described network's actor: "
                                  f"missing {missing[:5]}, not the actor's {foreign[:5]}")
    try:
        policy.load_state_dict(tensors, strict=not play_only)
    except RuntimeError as err:
        raise CheckpointError(f"{where}: the weights do not fit the described network: {err}") from None


def check_trainable(meta: dict, where: str) -> None:
    """Refuse to train from a play-only checkpoint (its critic is not there), naming the full
    checkpoint it came from."""
    if meta.get("play_only"):
        raise CheckpointError(f"{where} is a play-only copy (the actor without the critic, as the wheel ships "
                              f"it): it plays, but a training run needs the full checkpoint, the one whose "
                              f"archive has SHA-256 {meta.get('full_archive_sha256')}, from the braincards "
                              f"repository's checkpoints/ folder")


MAX_OPTIMIZER_STEP = 10**12  # Adam's step count a resumed state may hold (a run is < 10**10 timesteps)


def check_optimizer_state(optimizer, state: dict, where: str) -> None:
    """Each parameter's resumed Adam state against the live optimizer: the parameter exists,
    its state has Adam's fields, each moment has the parameter's shape and dtype and is
    finite (the second moment not negative), and ``step`` is a whole number in
    0..:data:`MAX_OPTIMIZER_STEP` (CheckpointError naming the field otherwise)."""
    params = [p for group in optimizer.param_groups for p in group["params"]]
    fields = {"step", "exp_avg", "exp_avg_sq"}
    if any(group.get("amsgrad") for group in optimizer.param_groups):
        fields.add("max_exp_avg_sq")
    for idx, st in sorted(state.items()):
        at = f"{where}: optimizer state of parameter {idx}"
        if not 0 <= idx < len(params):
            raise CheckpointError(f"{at}: the optimizer has {len(params)} parameters")
        if set(st) != fields:
            raise CheckpointError(f"{at} has {sorted(st)}; Adam's are {sorted(fields)}")
        for name in sorted(fields - {"step"}):
            t, want = st[name], params[idx]
            if not torch.is_tensor(t) or tuple(t.shape) != tuple(want.shape) or t.dtype != want.dtype:
                got = f"{tuple(t.shape)} {t.dtype}" if torch.is_tensor(t) else type(t).__name__
                raise CheckpointError(f"{at}: {name} is {got}, the parameter {tuple(want.shape)} {want.dtype}")
            if not bool(torch.isfinite(t).all()) or (name != "exp_avg" and bool((t < 0).any())):
                raise CheckpointError(f"{at}: {name} holds non-finite{'' if name == 'exp_avg' else ' or negative'} values")
        step = st["step"]
        value = float(step) if (torch.is_tensor(step) and step.numel() == 1) or _is_number(step) else None
        if value is None or not (math.isfinite(value) and value == int(value) and 0 <= value <= MAX_OPTIMIZER_STEP):
            raise CheckpointError(f"{at}: step={shown(step if value is None else value)} is not a whole number "
                                  f"in 0..{MAX_OPTIMIZER_STEP:,}")


def checked_optimizer_state(optimizer, parts: tuple, where: str) -> dict:
    """The per-parameter state of ``read_checkpoint(..., optimizer=True)``'s parts, its JSON
    and every field checked against ``optimizer`` (:func:`check_optimizer_json`,
    :func:`check_optimizer_state`)."""
    tensors, js = parts
    check_optimizer_json(optimizer, js, where)
    state: dict = {}
    try:
        for key, t in tensors.items():
            _, idx, name = key.split(".", 2)
            state.setdefault(int(idx), {})[name] = t
        for key, v in js.get("scalars", {}).items():
            idx, name = key.split(".", 1)
            state.setdefault(int(idx), {})[name] = v
    except (KeyError, ValueError, TypeError) as err:
        raise CheckpointError(f"{where}: the optimizer state does not fit: {err}") from None
    check_optimizer_state(optimizer, state, where)
    return state


def reread_history(meta: dict, history_k: int, where: str, *, resume: bool = False) -> dict:
    """A warm start of the event reader at another history length: its weights do not depend
    on ``k`` (the GRU reads any number of event slots, one at a time), so a reader trained on
    40 events can start a run that reads 80. Returns the checkpoint's metadata as it would be
    at ``history_k``: the same network, the event slots added or removed from its observation.
    CheckpointError when the run resumes (it continues the same network on the same spaces),
    when the checkpoint is not an event reader (other networks' first layer has one weight per
    observation float) or when ``history_k`` is not allowed."""
    policy = meta.get("policy", {})
    have = f"{where}: trained with history_k={meta.get('history_k', 0)}, the config has history_k={history_k}"
    if resume:
        raise CheckpointError(f"{have}; a resumed run keeps its history_k")
    if policy.get("class") != "EventReaderPolicy":
        raise CheckpointError(f"{have}; only an event_reader network can start a run that reads another "
                              f"number of events than it was trained with, this one is a {policy.get('class')}")
    if not (isinstance(history_k, int) and history_k >= 1):
        raise CheckpointError(f"{have}; the event reader needs an integer history_k >= 1")
    try:  # the observation the same env makes behind HistoryWrapper(k=history_k)
        shape = get_spec(meta["game"]).spaces(meta["env_config"], history_k)["observation_shape"]
    except (KeyError, TypeError, ValueError) as err:
        raise CheckpointError(f"{have}: {err}") from None
    old = int(meta["history_k"])
    kwargs = dict(policy["kwargs"], history_k=history_k)
    return dict(meta, history_k=history_k, observation_shape=list(shape), trained_history_k=old,
                policy=dict(policy, kwargs=kwargs))
