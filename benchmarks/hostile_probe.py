"""A hostile probe of the loaders and the env: every input below is bad, and each must end in
a clear error (a ``ValueError`` subclass with a short message, within a few seconds), never a
crash (any other exception, or a hang) and never a silent accept.

    python benchmarks/hostile_probe.py            # prints the table
    python benchmarks/hostile_probe.py --json     # and the per-probe outcomes as JSON

Families: checkpoint metadata (every key of ``NAME.json`` set to hostile values),
checkpoint archives (truncated, flipped, foreign members, overflowing weights, optimizer
state), training configs (YAML bombs, deep nesting, every numeric field out of range, non-
regular files), env options (``--set``), and actions (every non-integer type at every game).
A "silent accept" is a bad input that loads without an error (or, for a checkpoint seated at
other options, without a warning). Killed saves and killed parents are probed by
``tests/training/test_sudden_death.py`` (50 killed saves, 20 killed parents per command).
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import resource
import sys
import tempfile
import time
import warnings
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load, save

from braincards.envs import SPECS
from braincards.training.agents.checkpoint import (
    CheckpointConfigWarning,
    CheckpointError,
    _optimizer_parts,
    load_optimizer_state,
)
from braincards.training.agents.locations import resolve_checkpoint
from braincards.training.agents.network import _POLICY_CACHE, load_policy
from braincards.training.learning.config import TrainConfig, load_train_config, parse_train_config
from braincards.training.learning.yaml_files import parse_sets

HOSTILE = [None, True, -1, 0, 10**100, 1e308, float("nan"), "x" * 100_000, [], {}, [[[[[]]]]] * 3,
           "chess_v0", [10**12], {"a": 1}]
MAX_MESSAGE = 2000  # a clear error is short
MAX_SECONDS = 5.0


SECONDS: list[float] = []  # of every input, in order


def outcome(fn, *, bad: bool = True) -> str:
    """'clear error', 'crash' (another exception, an overlong message, a hang), 'silent
    accept' (a bad input that passed without error or warning) or 'warned'."""
    t0 = time.perf_counter()
    try:
        return _outcome(fn, bad, t0)
    finally:
        SECONDS.append(time.perf_counter() - t0)


def _outcome(fn, bad: bool, t0: float) -> str:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
        except (CheckpointError, ValueError) as err:  # IllegalActionError and ConfigError are ValueErrors
            slow = time.perf_counter() - t0 > MAX_SECONDS
            return "crash" if slow or len(str(err)) > MAX_MESSAGE else "clear error"
        except Exception:  # noqa: BLE001 - any other exception is what the probe counts
            return "crash"
    if time.perf_counter() - t0 > MAX_SECONDS:
        return "crash"
    if any(issubclass(w.category, CheckpointConfigWarning) for w in caught):
        return "warned"
    return "silent accept" if bad else "accepted"


# ---------------------------------------------------------------------------- checkpoints
def _fresh_copy(src: Path, folder: Path, name: str) -> Path:
    dst = folder / name
    for suffix in (".zip", ".json"):
        dst.with_suffix(suffix).write_bytes(src.with_suffix(suffix).read_bytes())
    return dst


INFORMATIONAL = {"created", "versions", "training", "evaluation", "timesteps", "seed"}


def _valid(key: str, value) -> bool:
    """Edits that leave a valid checkpoint: no history (None, 0 or no key: the default), and
    an env config that is a valid one of the game (it only records what it was trained on)."""
    return (key == "history_k" and value in (None, 0, "DELETE")) or (key == "env_config" and value == {})


def probe_metadata(src: Path, folder: Path) -> Counter:
    meta = json.loads(src.with_suffix(".json").read_text())
    results: Counter = Counter()
    keys = [k for k in meta if k not in INFORMATIONAL]
    for key in keys:
        for k, value in enumerate([*HOSTILE, "DELETE"]):
            edited = copy.deepcopy(meta)
            if value == "DELETE":
                edited.pop(key)
            else:
                edited[key] = value
            ck = _fresh_copy(src, folder, f"m_{key}_{k}")
            ck.with_suffix(".json").write_text(json.dumps(edited))
            results[outcome(lambda ck=ck: load_policy(ck), bad=not _valid(key, value))] += 1
    deep = json.dumps(meta)[:-1] + ', "x": ' + "[" * 50_000 + "]" * 50_000 + "}"
    ck = _fresh_copy(src, folder, "m_deep")
    ck.with_suffix(".json").write_text(deep)
    results[outcome(lambda: load_policy(ck))] += 1
    for kwarg, value in [("net_arch", [10**9]), ("activation_fn", "gelu"), ("features_extractor_class", "os.system"),
                         ("lstm_hidden_size", 10**6), ("ortho_init", "yes")]:
        edited = copy.deepcopy(meta)
        edited["policy"]["kwargs"][kwarg] = value
        ck = _fresh_copy(src, folder, f"k_{kwarg}")
        ck.with_suffix(".json").write_text(json.dumps(edited))
        results[outcome(lambda ck=ck: load_policy(ck))] += 1
    return results


def _rewrite(ck: Path, members: dict, reseal: bool) -> None:
    with zipfile.ZipFile(ck.with_suffix(".zip"), "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    if reseal:  # as one who edits both files would
        meta = json.loads(ck.with_suffix(".json").read_text())
        meta["archive_sha256"] = hashlib.sha256(ck.with_suffix(".zip").read_bytes()).hexdigest()
        ck.with_suffix(".json").write_text(json.dumps(meta))


def probe_archive(src: Path, folder: Path, rng: np.random.Generator) -> Counter:
    results: Counter = Counter()
    data = src.with_suffix(".zip").read_bytes()
    for k, cut in enumerate(sorted(rng.integers(0, len(data), 20))):
        ck = _fresh_copy(src, folder, f"t{k}")
        ck.with_suffix(".zip").write_bytes(data[:cut])
        results[outcome(lambda ck=ck: load_policy(ck))] += 1
    for k, pos in enumerate(rng.integers(0, len(data), 40)):
        ck = _fresh_copy(src, folder, f"f{k}")
        flipped = bytearray(data)
        flipped[pos] ^= 0xFF
        ck.with_suffix(".zip").write_bytes(bytes(flipped))
        results[outcome(lambda ck=ck: load_policy(ck))] += 1
    with zipfile.ZipFile(src.with_suffix(".zip")) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    tensors = load(members["policy.safetensors"])
    edits = {"nan": lambda t: next(iter(t.values())).view(-1).__setitem__(0, float("nan")),
             "huge": lambda t: [v.fill_(3e38) for v in t.values()],
             "missing": lambda t: t.pop(next(iter(t))),
             "extra": lambda t: t.__setitem__("evil", torch.zeros(3))}
    for reseal in (False, True):
        for name, edit in edits.items():
            t = {k: v.clone() for k, v in tensors.items()}
            edit(t)
            ck = _fresh_copy(src, folder, f"w_{name}_{reseal}")
            _rewrite(ck, {**members, "policy.safetensors": save(t)}, reseal)
            results[outcome(lambda ck=ck: load_policy(ck))] += 1
        for k, extra in enumerate([{"data": b"{}"}, {"../evil": b"x"}, {"policy.pth": b"\x80\x04"}]):
            ck = _fresh_copy(src, folder, f"x{k}_{reseal}")
            _rewrite(ck, {**members, **extra}, reseal)
            results[outcome(lambda ck=ck: load_policy(ck))] += 1
    return results


GIANT_NETWORKS = [  # the largest descriptions the metadata's own limits allow, and some in between
    {"class": "RecurrentActorCriticPolicy", "kwargs": {"lstm_hidden_size": 4096, "n_lstm_layers": 8,
                                                      "net_arch": [4096] * 8}},
    {"class": "RecurrentActorCriticPolicy", "kwargs": {"lstm_hidden_size": 2048, "n_lstm_layers": 2}},
    {"class": "MaskableActorCriticPolicy", "kwargs": {"net_arch": [4096] * 8}},
    {"class": "MaskableActorCriticPolicy", "kwargs": {"net_arch": {"pi": [4096] * 8, "vf": []}}},
    {"class": "MaskableActorCriticPolicy", "kwargs": {"net_arch": [2048, 2048]}},
    {"class": "EventReaderPolicy", "kwargs": {"net_arch": [4096] * 8, "history_k": 256, "reader_hidden": 1024,
                                             "reader_positions": 5}},
]


def probe_giant_networks(src: Path, folder: Path) -> Counter:
    """Metadata that declares a giant network over a small archive: refused before building."""
    meta = json.loads(src.with_suffix(".json").read_text())
    results: Counter = Counter()
    for k, policy in enumerate(GIANT_NETWORKS):
        ck = _fresh_copy(src, folder, f"giant{k}")
        ck.with_suffix(".json").write_text(json.dumps({**meta, "policy": policy}))
        _POLICY_CACHE.clear()
        results[outcome(lambda ck=ck: load_policy(ck, game="the_brain_v0", config={"num_players": 2}))] += 1
    return results


def probe_optimizer(folder: Path) -> Counter:
    """Optimizer state (``--resume``): every param-group key set to hostile values."""
    net = torch.nn.Linear(3, 2)
    opt = torch.optim.Adam(net.parameters())
    net(torch.ones(1, 3)).sum().backward()
    opt.step()
    tensors, js = _optimizer_parts(opt)
    results: Counter = Counter()
    for key in js["param_groups"][0]:
        for value in HOSTILE:
            bad = copy.deepcopy(js)
            bad["param_groups"][0][key] = value
            fresh = torch.optim.Adam(torch.nn.Linear(3, 2).parameters())
            same = value == js["param_groups"][0][key] and type(value) is type(js["param_groups"][0][key])
            results[outcome(lambda bad=bad, fresh=fresh: load_optimizer_state(fresh, (tensors, bad), "probe"),
                            bad=not same)] += 1
    return results


STATE_EDITS = {  # a resumed Adam state's fields, each broken one way
    "exp_avg of another shape": lambda t, js: t.update({"state.0.exp_avg": torch.zeros(7)}),
    "exp_avg_sq missing": lambda t, js: t.pop("state.0.exp_avg_sq"),
    "exp_avg NaN": lambda t, js: t.update({"state.0.exp_avg": t["state.0.exp_avg"] * float("nan")}),
    "exp_avg_sq negative": lambda t, js: t.update({"state.0.exp_avg_sq": -1 - t["state.0.exp_avg_sq"]}),
    "exp_avg float64": lambda t, js: t.update({"state.0.exp_avg": t["state.0.exp_avg"].double()}),
    "step negative": lambda t, js: t.update({"state.0.step": torch.tensor(-1.0)}),
    "step 1e308 (tensor)": lambda t, js: t.update({"state.0.step": torch.tensor(1e308, dtype=torch.float64)}),
    "step 1e308 (scalar)": lambda t, js: js["scalars"].update({"0.step": 1e308}),
    "step 2.5": lambda t, js: t.update({"state.0.step": torch.tensor(2.5)}),
    "a parameter that is not there": lambda t, js: t.update({"state.9.step": torch.tensor(1.0)}),
}


def probe_optimizer_fields() -> Counter:
    """Optimizer state (``--resume``): each field of a parameter's Adam state broken."""
    net = torch.nn.Linear(3, 2)
    opt = torch.optim.Adam(net.parameters())
    net(torch.ones(1, 3)).sum().backward()
    opt.step()
    tensors, js = _optimizer_parts(opt)
    js.setdefault("scalars", {})
    results: Counter = Counter()
    for edit in STATE_EDITS.values():
        t, bad = dict(tensors), copy.deepcopy(js)
        edit(t, bad)
        fresh = torch.optim.Adam(torch.nn.Linear(3, 2).parameters())
        results[outcome(lambda t=t, bad=bad, fresh=fresh: load_optimizer_state(fresh, (t, bad), "probe"))] += 1
    return results


def probe_real_observation_weights(src: Path, folder: Path) -> Counter:
    """Weights that pass on the zero observation but overflow on real ones (relu layers of
    1e20 with zero biases), and tanh nets of huge weights: refused at load."""
    with zipfile.ZipFile(src.with_suffix(".zip")) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    results: Counter = Counter()
    for k, (activation, weight) in enumerate([("relu", 1e20), ("relu", 1e30), ("relu", 1e38), ("tanh", 3e38)]):
        t = {name: torch.zeros_like(v) if name.endswith("bias") else torch.full_like(v, weight)
             for name, v in load(members["policy.safetensors"]).items()}
        ck = _fresh_copy(src, folder, f"real{k}")
        _rewrite(ck, {**members, "policy.safetensors": save(t)}, True)
        edited = json.loads(ck.with_suffix(".json").read_text())
        edited["policy"]["kwargs"]["activation_fn"] = activation
        ck.with_suffix(".json").write_text(json.dumps(edited))
        _POLICY_CACHE.clear()
        results[outcome(lambda ck=ck: load_policy(ck))] += 1
    return results


def probe_repeats(src: Path, folder: Path) -> Counter:
    """A zip member or a JSON key given twice (the last one used to win)."""
    with zipfile.ZipFile(src.with_suffix(".zip")) as zf:
        members = [(n, zf.read(n)) for n in zf.namelist()]
    text = src.with_suffix(".json").read_text().rstrip()
    results: Counter = Counter()
    for k, key in enumerate(["game", "policy", "observation_shape", "action_n", "env_config", "history_k"]):
        ck = _fresh_copy(src, folder, f"key{k}")
        meta = json.loads(text)
        ck.with_suffix(".json").write_text(text[:-1] + f", {json.dumps(key)}: {json.dumps(meta[key])}}}")
        results[outcome(lambda ck=ck: load_policy(ck))] += 1
    ck = _fresh_copy(src, folder, "member")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with zipfile.ZipFile(ck.with_suffix(".zip"), "w") as zf:
            for n, b in members + members[:1]:
                zf.writestr(n, b)
    meta = json.loads(ck.with_suffix(".json").read_text())
    meta["archive_sha256"] = hashlib.sha256(ck.with_suffix(".zip").read_bytes()).hexdigest()
    ck.with_suffix(".json").write_text(json.dumps(meta))
    results[outcome(lambda: load_policy(ck))] += 1
    return results


def probe_other_tables() -> Counter:
    """A checkpoint seated at a table it was not trained for must at least warn."""
    results: Counter = Counter()
    for spec in SPECS.values():
        name = next((n for n in ("ppo_solo", "ppo_2p", "ppo_3p") if resolve_checkpoint(f"{spec.name}/{n}")), None)
        path = resolve_checkpoint(f"{spec.name}/{name}")
        trained = json.loads(Path(str(path) + ".json").read_text())["env_config"]
        for n in range(spec.players[0], spec.players[1] + 1):
            if n == trained.get("num_players", spec.default("num_players")):
                continue
            results[outcome(lambda n=n, spec=spec, path=path: load_policy(path, game=spec.id, config={"num_players": n}))] += 1
    return results


# ---------------------------------------------------------------------------- configs
BASE = "game: the_brain_v0\ntotal_timesteps: 1000\n"


def _laughs(depth: int) -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for d in range(1, depth + 1):
        lines.append(f"a{d}: &a{d} [" + ", ".join([f"*a{d - 1}"] * 9) + "]")
    return "junk:\n" + "\n".join("  " + line for line in lines) + f"\nppo: {{n_steps: *a{depth}}}\n"


def _numeric_fields(model=TrainConfig, prefix: str = "") -> list[str]:
    out = []
    for name, field in model.model_fields.items():
        ann = field.annotation
        sub = next((a for a in (ann, *getattr(ann, "__args__", ())) if isinstance(a, type) and hasattr(a, "model_fields")), None)
        if sub is not None:
            out += _numeric_fields(sub, f"{prefix}{name}.")
        elif ("int" in str(ann) or "float" in str(ann)) and not str(ann).startswith("list"):
            out.append(prefix + name)
    return out


def probe_configs(folder: Path) -> Counter:
    results: Counter = Counter()
    texts = [_laughs(d) for d in range(3, 10)]
    texts += ["x: " + "[" * n + "]" * n for n in (100, 1000, 100_000)]
    texts += [BASE + "seed: 1\nseed: 2\n", BASE + "ppo: {n_steps: 64, n_steps: 128}\n", "- a\n- b\n",
              BASE + "x" * (2 << 20), BASE + "junk: !!python/object/apply:os.system ['true']\n"]
    for k, text in enumerate(texts):
        path = folder / f"c{k}.yaml"
        path.write_text(text)
        results[outcome(lambda path=path: load_train_config(path))] += 1
    (folder / "nonutf8.yaml").write_bytes(BASE.encode() + b"\xff\xfe\n")
    (folder / "adir.yaml").mkdir()
    os.mkfifo(folder / "fifo.yaml")
    for name in ("nonutf8.yaml", "adir.yaml", "fifo.yaml", "missing.yaml"):
        results[outcome(lambda name=name: load_train_config(folder / name))] += 1
    for dotted in _numeric_fields():
        for value in (10**30, -(10**30), 1e308, float("nan"), float("inf"), "abc", True, [1]):
            data: dict = {"game": "the_brain_v0", "total_timesteps": 1000}
            node = data
            *parents, leaf = dotted.split(".")
            for part in parents:
                node = node.setdefault(part, {})
            node[leaf] = value
            if dotted.startswith("pretrain."):
                data["pretrain"].setdefault("teacher", "heuristic")
            results[outcome(lambda data=data: parse_train_config(data))] += 1
    return results


def probe_env_options() -> Counter:
    results: Counter = Counter()
    for spec in SPECS.values():
        for option in spec.option_names():
            for value in ("10**100", "-1", "nan", "[1, [2, [3]]]", "{a: 1}", "'x'", "true", "1e308"):
                kind = outcome(lambda spec=spec, option=option, value=value: spec.check_options(
                    parse_sets([f"{option}={value}"])), bad=False)
                results[kind] += 1
    return results


# ---------------------------------------------------------------------------- actions
def probe_actions() -> Counter:
    results: Counter = Counter()
    bad = [lambda a: np.timedelta64(a), lambda a: np.datetime64(a, "s"), lambda a: float(a),
           lambda a: np.float32(a), lambda a: np.bool_(True), lambda a: True, lambda a: str(a),
           lambda a: None, lambda a: [a], lambda a: np.array([a]), lambda a: torch.tensor(float(a)),
           lambda a: torch.tensor(True), lambda a: complex(a), lambda a: 10**100, lambda a: -1 - a,
           lambda a: np.array(np.timedelta64(a))]
    for spec in SPECS.values():
        for make in bad:
            env = spec.raw_env(num_players=max(2, spec.players[0]))
            env.reset(seed=1)
            before = env.state.to_dict()
            action = make(int(env.legal_actions()[0]))
            kind = outcome(lambda env=env, action=action: env.step(action))
            if kind == "clear error" and env.state.to_dict() != before:
                kind = "crash"  # refused, but the state changed
            results[kind] += 1
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true", help="also print the counts as JSON")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    src = Path(str(resolve_checkpoint("the_brain/ppo_2p")))
    rows, slowest, peak = {}, {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "ck").mkdir()
        (folder / "cfg").mkdir()
        _POLICY_CACHE.clear()
        families = {
            "checkpoint metadata (NAME.json)": lambda: probe_metadata(src, folder / "ck"),
            "checkpoint archive (NAME.zip)": lambda: probe_archive(src, folder / "ck", rng),
            "optimizer state (--resume)": lambda: probe_optimizer(folder / "ck"),
            "metadata-declared giant networks": lambda: probe_giant_networks(src, folder / "ck"),
            "optimizer state fields (--resume)": probe_optimizer_fields,
            "weights that overflow on real observations": lambda: probe_real_observation_weights(src, folder / "ck"),
            "repeated zip members and JSON keys": lambda: probe_repeats(src, folder / "ck"),
            "checkpoint at other options": probe_other_tables,
            "training config (YAML)": lambda: probe_configs(folder / "cfg"),
            "env options (--set)": probe_env_options,
            "actions (non-integer types)": probe_actions,
        }
        for name, probe in families.items():
            start = len(SECONDS)
            rows[name] = probe()
            slowest[name] = max(SECONDS[start:], default=0.0)
            peak[name] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("| probe family | inputs | clear errors | warned | crashes | silent accepts | accepted (valid) "
          "| slowest input (s) | peak RSS after it (MB) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, c in rows.items():
        print(f"| {name} | {sum(c.values())} | {c['clear error']} | {c['warned']} | {c['crash']} | "
              f"{c['silent accept']} | {c['accepted']} | {slowest[name]:.3f} | {peak[name]:.0f} |")
    if args.json:
        print(json.dumps({k: dict(v) for k, v in rows.items()}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
