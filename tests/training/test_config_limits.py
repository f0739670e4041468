"""Hostile training configs: the loader refuses them quickly, in one clear error that names
the file or the key, the limit and (truncated) what was given - never a hang, a traceback or
a huge message. The limits are in docs/training.md ("Limits")."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from braincards.training.cli.main import main
from braincards.training.learning.config import (
    MAX_ROLLOUT_STEPS,
    ConfigError,
    load_train_config,
    parse_train_config,
)
from braincards.training.learning.yaml_files import (
    MAX_CONFIG_BYTES,
    MAX_CONFIG_DEPTH,
    MAX_CONFIG_NODES,
    load_env_config,
    parse_sets,
    read_yaml,
)

ROOT = Path(__file__).resolve().parents[2]
BASE = "game: the_brain\ntotal_timesteps: 100\n"


def laughs(levels: int, use: str = "ppo: {n_steps: *a%d}") -> str:
    """A billion-laughs config: anchors nested ``levels`` deep under a throwaway key (each
    level 9 aliases of the one before), then one use of the last; 9**(levels+1) values once
    expanded."""
    lines = ["junk:", "  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, levels + 1):
        lines.append(f"  a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]")
    return BASE + "\n".join(lines) + "\n" + (use % levels if "%d" in use else use) + "\n"


def write(tmp_path: Path, text: str | bytes, name: str = "cfg.yaml") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def refused(path, loader=load_train_config) -> tuple[str, float]:
    """The message of the ValueError ``loader(path)`` raises, and the seconds it took."""
    start = time.perf_counter()
    with pytest.raises(ValueError) as info:
        loader(path)
    return str(info.value), time.perf_counter() - start


# ------------------------------------------------------------------------ the YAML text
def test_billion_laughs_is_refused_fast_with_a_short_message(tmp_path):
    # 455 bytes that expand to 9**7 = 4.8 million values: the old loader validated them and
    # put the whole expanded list in a 35 MB message
    path = write(tmp_path, laughs(6))
    message, seconds = refused(path)
    assert seconds < 2
    assert len(message) < 300
    assert str(path) in message and f"more than {MAX_CONFIG_NODES:,} values" in message


def test_billion_laughs_anywhere_in_the_file_is_refused(tmp_path):
    # never used by a key, still refused: every value of the file counts
    message, _ = refused(write(tmp_path, laughs(9, use="seed: 1")))
    assert "aliases are expanded" in message


def test_recursive_alias_is_refused(tmp_path):
    message, _ = refused(write(tmp_path, BASE + "ppo: &x {n_steps: [*x]}\n"))
    assert "recursive" in message and "line 3" in message


def test_nesting_100000_deep_is_a_value_error_not_a_recursion_error(tmp_path):
    path = write(tmp_path, BASE + "policy: {net_arch: " + "[" * 100_000 + "]" * 100_000 + "}\n")
    message, seconds = refused(path)
    assert f"nests deeper than {MAX_CONFIG_DEPTH} levels" in message and str(path) in message
    assert seconds < 5


def test_depth_counts_through_aliases(tmp_path):
    half = MAX_CONFIG_DEPTH // 2 + 2
    text = BASE + "junk: &deep " + "[" * half + "]" * half + "\nmore: " + "[" * half + "*deep" + "]" * half + "\n"
    message, _ = refused(write(tmp_path, text))
    assert "once its aliases are expanded" in message


@pytest.mark.parametrize("text, key, lines", [
    (BASE + "seed: 1\nseed: 2\n", "'seed'", "line 3 and line 4"),
    (BASE + "ppo:\n  n_steps: 64\n  gamma: 0.9\n  n_steps: 128\n", "'n_steps'", "line 4 and line 6"),
    (BASE + "env: {num_players: 3, num_players: 2}\n", "'num_players'", "line 3 and line 3"),
])
def test_duplicate_keys_are_refused(tmp_path, text, key, lines):
    message, _ = refused(write(tmp_path, text))
    assert f"has the key {key} twice" in message and lines in message


def test_merge_keys_may_be_overridden(tmp_path):
    # `<<: *base` then a key of base is an override, not a duplicate
    text = BASE + "x-ppo: &base {n_steps: 64, batch_size: 64}\nppo:\n  <<: *base\n  n_steps: 128\n"
    assert read_yaml(write(tmp_path, text))["ppo"] == {"n_steps": 128, "batch_size": 64}


def test_a_directory_is_named_as_one(tmp_path):
    message, _ = refused(tmp_path)
    assert message == f"training config {tmp_path} is a directory, not a regular file"


def test_a_fifo_is_named_as_one_and_never_blocks(tmp_path):
    fifo = tmp_path / "cfg.yaml"
    os.mkfifo(fifo)
    outcome: list = []

    def load():
        try:
            load_train_config(fifo)
        except ValueError as err:
            outcome.append(str(err))

    reader = threading.Thread(target=load, daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():  # blocked in open(): a writer releases it, then the test fails
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(10)
        pytest.fail("opening the FIFO blocked")
    assert outcome == [f"training config {fifo} is a FIFO (named pipe), not a regular file"]


def test_non_utf8_file_is_named(tmp_path):
    path = write(tmp_path, BASE.encode() + b"# caf\xe9\n")
    message, _ = refused(path)
    assert str(path) in message and "not UTF-8" in message and "0xe9" in message


def test_oversized_file_is_refused_before_it_is_parsed(tmp_path):
    # a valid config padded with a comment past the limit
    path = write(tmp_path, BASE + "#" * MAX_CONFIG_BYTES + "\n")
    message, _ = refused(path)
    assert str(path) in message and f"larger than {MAX_CONFIG_BYTES:,} bytes" in message


def test_env_configs_and_set_values_share_the_limits(tmp_path):
    message, _ = refused(write(tmp_path, laughs(6)), lambda p: load_env_config(str(p), []))
    assert "aliases are expanded" in message
    message, _ = refused(tmp_path, lambda p: load_env_config(str(p), []))
    assert "is a directory" in message
    for value, expected in [("{a: 1, a: 2}", "has the key 'a' twice"),
                            ("[" * 10_000 + "]" * 10_000, "nests deeper than"),
                            ("&x [1, *x]", "recursive"),
                            ("9" * 5000, "cannot be read")]:
        message, _ = refused([f"ppo.n_steps={value}"], parse_sets)
        assert message.startswith("--set 'ppo.n_steps=") and expected in message
        assert len(message) < 400


# ---------------------------------------------------------------------- the numbers
def test_n_steps_of_a_million_is_refused_naming_the_bound():
    with pytest.raises(ConfigError) as info:
        parse_train_config({"game": "the_brain", "total_timesteps": 100, "ppo": {"n_steps": 1_000_000}})
    assert "ppo.n_steps: Input should be less than or equal to 16384 (got 1000000)" in str(info.value)


@pytest.mark.parametrize("data, message", [
    # each field is within its bound, the product is not
    ({"n_envs": 256, "ppo": {"n_steps": 16_384}}, rf"ppo.n_steps \* n_envs = 16384 \* 256 = 4,194,304 steps in "
                                                  rf"a rollout; the limit is {MAX_ROLLOUT_STEPS:,}"),
    # Brilliant Boar behind 256 history slots: 23,332 floats an observation
    ({"game": "brilliant_boar", "history_k": 256, "n_envs": 16, "ppo": {"n_steps": 8192}},
     r"need a rollout buffer of 11\.\d GiB for brilliant_boar_v0 \(history_k 256\); the limit is 2 GiB"),
    ({"pretrain": {"teacher": "greedy", "games": 100_000, "chunk_games": 5000, "replay_chunks": 10}},
     r"pretrain: pretrain.chunk_games \* pretrain.replay_chunks = 5000 \* 10 = 50,000 games held in memory; "
     r"the limit is 20,000"),
])
def test_memory_of_a_run_is_bounded(data, message):
    with pytest.raises(ConfigError, match=message):
        parse_train_config({"game": "the_brain", "total_timesteps": 100, **data})


def test_seed_past_numpys_range_is_refused_at_once(tmp_path):
    start = time.perf_counter()
    with pytest.raises(ConfigError) as info:
        load_train_config(write(tmp_path, BASE + "seed: 4294967296\n"))
    assert time.perf_counter() - start < 1
    assert "  seed: Input should be less than or equal to 4294967295 (got 4294967296)" in str(info.value)
    with pytest.raises(ConfigError, match=r"evaluation.seed: Input should be less than or equal to 4294967295"):
        parse_train_config({"game": "the_brain", "total_timesteps": 100, "evaluation": {"seed": 2**32}})


@pytest.mark.parametrize("key, value", [
    ("total_timesteps", 10**11), ("backend.train_batch_size", 10**9), ("ppo.batch_size", 10**6),
    ("evaluation.games", 10**9), ("evaluation.every", 10**11), ("pretrain.games", 10**9),
    ("opponents.max_snapshots", 10**6), ("opponents.snapshot_window", 10**9), ("backend.num_env_runners", 10**6),
    ("ppo.max_grad_norm", float("inf")), ("pretrain.value_coef", float("inf")),
])
def test_every_number_has_an_upper_bound(key, value):
    data: dict = {"game": "oh_my_brain", "total_timesteps": 100}
    if key.startswith("pretrain."):
        data["pretrain"] = {"teacher": "heuristic"}
    if key.startswith("backend."):
        data["backend"] = {"name": "rllib"}
    head, _, leaf = key.rpartition(".")
    (data.setdefault(head, {}) if head else data)[leaf] = value
    with pytest.raises(ConfigError, match=rf"  {key}: Input should be"):
        parse_train_config(data)


def test_messages_stay_short_whatever_the_input():
    huge = "x" * 500_000
    data = {"game": "the_brain", "total_timesteps": huge, "ppo": {"n_steps": [huge] * 10_000},
            **{f"unknown_{i}": i for i in range(1000)}}
    with pytest.raises(ConfigError) as info:
        parse_train_config(data)
    message = str(info.value)
    assert len(message) < 5000
    assert "total_timesteps: Input should be a valid integer (got 'xxxx" in message
    assert "... and" in message and "more" in message  # the rest of the 1002 errors are counted
    with pytest.raises(ConfigError) as info:
        parse_train_config({"game": huge, "total_timesteps": 100})
    assert len(str(info.value)) < 500 and "game: String should have at most 1024 characters" in str(info.value)


# --------------------------------------------------------------------------- the CLI
def test_cli_train_says_one_line_and_exits_non_zero(tmp_path, capsys):
    for path in (write(tmp_path, laughs(6)), tmp_path):
        rc = main(["train", str(path), "--quiet"])
        out, err = capsys.readouterr()
        assert rc != 0 and out == ""
        assert err.startswith(f"braincards: error: training config {path} ")
        assert err.count("\n") == 1 and len(err) < 300
    rc = main(["train", str(write(tmp_path, BASE + "seed: 4294967296\n", "seed.yaml")), "--quiet"])
    err = capsys.readouterr().err
    assert rc != 0 and "seed: Input should be less than or equal to 4294967295" in err and len(err) < 300


def test_cli_train_refuses_a_billion_laughs_without_hanging(tmp_path):
    # 9 levels: a billion values once expanded; the old loader hung on it
    path = write(tmp_path, laughs(9))
    proc = subprocess.run([sys.executable, "-m", "braincards.training.cli.main", "train", str(path), "--quiet"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"braincards: error: training config {path} holds more than")
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


# ------------------------------------------------------------------ the shipped configs
@pytest.mark.parametrize("path", sorted((ROOT / "configs").glob("*/*.yaml")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_shipped_configs_are_within_the_limits(path):
    data = read_yaml(path)
    if "total_timesteps" in data:
        load_train_config(path)
