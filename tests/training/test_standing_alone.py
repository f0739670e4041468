"""A project that keeps its promises on someone else's machine: configs found by name, the
CPU kernels a training run pins, documented ranges a run is compared with, the line that shows
what PPO changed, a quiet and quick entry point, and the compiled search cached on disk."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from braincards.training import kernels
from braincards.training.learning import ranges
from braincards.training.learning.config import load_train_config
from braincards.training.learning.sb3 import format_summary, ppo_change
from braincards.training.learning.yaml_files import config_path, read_yaml, shipped_configs

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------- configs by name
def test_a_shipped_config_is_found_by_name_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert "the_brain/train_3p_quick" in shipped_configs() and "oh_my_brain/train_2p" in shipped_configs()
    assert config_path("the_brain/train_3p_quick") == ROOT / "configs" / "the_brain" / "train_3p_quick.yaml"
    assert config_path("the_brain/train_3p_quick.yaml") == config_path("the_brain/train_3p_quick")
    assert load_train_config("oh_my_brain/train_2p").game == "oh_my_brain_v0"
    # a file that exists wins over a name
    (tmp_path / "the_brain").mkdir()
    (tmp_path / "the_brain" / "train_3p_quick.yaml").write_text("game: oh_my_brain_v0\n")
    assert config_path("the_brain/train_3p_quick.yaml") == Path("the_brain/train_3p_quick.yaml")


def test_an_unknown_config_name_lists_the_shipped_ones_and_no_name_climbs_out(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"training config the_brain/nope does not exist: it is neither a file "
                                         r"nor the name of a shipped config \(.*the_brain/train_3p_quick"):
        load_train_config("the_brain/nope")
    # '..' cannot reach outside the shipped configs' folder (experiments.yaml sits one level up)
    assert config_path("the_brain/../../pyproject") == Path("the_brain/../../pyproject")
    with pytest.raises(ValueError, match="does not exist"):
        read_yaml("the_brain/../../pyproject")


# ---------------------------------------------------------------------------- CPU kernels
def test_training_pins_the_cpu_kernels_unless_they_are_set(monkeypatch):
    """avx2 by default (the kernels every recorded run used); portable (MKL's compatible path,
    which it honours on Intel and AMD alike, and a fused Adam) and native on request; a
    variable the user set stays."""
    monkeypatch.setattr(kernels.platform, "machine", lambda: "x86_64")
    env: dict = {}
    assert kernels.pin_cpu_kernels(env) == {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2"}
    assert env["BRAINCARDS_KERNELS"] == "avx2" and not kernels.adam_fused(env)
    assert kernels.describe(env) == "kernels ATEN_CPU_CAPABILITY=avx2, MKL_CBWR=AVX2"  # as ranges.yaml records it
    env = {"BRAINCARDS_KERNELS": "portable"}
    assert kernels.pin_cpu_kernels(env) == {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "COMPATIBLE"}
    assert kernels.adam_fused(env)
    assert kernels.describe(env) == "kernels ATEN_CPU_CAPABILITY=avx2, MKL_CBWR=COMPATIBLE, Adam fused"
    env = {"BRAINCARDS_KERNELS": "native"}
    assert kernels.pin_cpu_kernels(env) == {"ATEN_CPU_CAPABILITY": None, "MKL_CBWR": None}
    assert kernels.describe(env) == "kernels native"
    env = {"ATEN_CPU_CAPABILITY": "avx512"}
    assert kernels.pin_cpu_kernels(env)["ATEN_CPU_CAPABILITY"] == "avx512"  # the user's choice stays
    with pytest.raises(ValueError, match="BRAINCARDS_KERNELS='fast' is not a kernel mode; allowed: avx2, portable, "
                                         "native"):
        kernels.pin_cpu_kernels({"BRAINCARDS_KERNELS": "fast"})
    monkeypatch.setattr(kernels.platform, "machine", lambda: "arm64")
    env = {}
    assert kernels.pin_cpu_kernels(env) == {"ATEN_CPU_CAPABILITY": None, "MKL_CBWR": None} and env == {}
    assert not kernels.adam_fused(env)


def test_portable_kernels_fuse_every_adam_of_the_run(monkeypatch, tmp_path):
    """The unfused Adam's square root comes from MKL's vector math, which differs by CPU: in
    the portable mode PPO's Adam is fused whatever the config says (the cloning fit's takes
    the same switch, :func:`braincards.training.kernels.adam_fused`)."""
    from braincards.training.learning.config import parse_train_config
    from braincards.training.learning.sb3 import build_model, make_vec_env

    cfg = parse_train_config({"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64,
                              "n_envs": 1, "policy": {"net_arch": [8]}})
    assert cfg.backend.fused_adam is False
    for mode, fused in (("portable", True), ("avx2", None), ("native", None)):
        monkeypatch.setenv("BRAINCARDS_KERNELS", mode)
        model = build_model(cfg, make_vec_env(cfg), None)
        assert model.policy.optimizer.defaults.get("fused") is fused, mode


def test_portable_kernels_fuse_the_cloning_fits_adam(monkeypatch, tmp_path):
    import torch

    from braincards.training.learning.config import parse_train_config
    from braincards.training.learning.sb3 import train

    made = []
    real = torch.optim.Adam

    def spy(params, **kwargs):
        made.append(kwargs.get("fused"))
        return real(params, **kwargs)

    monkeypatch.setattr(torch.optim, "Adam", spy)
    monkeypatch.setenv("BRAINCARDS_KERNELS", "portable")
    cfg = parse_train_config({"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64, "n_envs": 1,
                              "policy": {"net_arch": [8]}, "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1},
                              "pretrain": {"teacher": "heuristic", "games": 2, "chunk_games": 2},
                              "evaluation": {"every": 64, "games": 2}})
    train(cfg, tmp_path / "run", progress=False, log=lambda *a, **k: None)
    assert made and all(made), made  # the cloning fit's Adam (and any other the run made) is fused


def _launch(argv: list[str], **extra) -> subprocess.CompletedProcess:
    code = ("import os, sys; sys.argv = ['braincards', *sys.argv[1:]]; import braincards.training.cli.launch; "
            "print(os.environ.get('ATEN_CPU_CAPABILITY'), os.environ.get('MKL_CBWR'))")
    env = {k: v for k, v in os.environ.items() if k not in ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "BRAINCARDS_KERNELS")}
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, env={**env, **extra})


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the kernels are pinned on x86-64 only")
def test_only_braincards_train_pins_the_kernels_and_piped_output_gets_no_starting_line():
    train = _launch(["train"])
    assert train.stdout.split() == ["avx2", "AVX2"]
    other = _launch(["evaluate"])
    assert other.stdout.split() == ["None", "None"]
    assert "starting" not in train.stderr + other.stderr  # stderr is a pipe here: no progress line
    wrong = _launch(["train"], BRAINCARDS_KERNELS="fast")
    assert wrong.returncode == 2 and not wrong.stdout
    assert wrong.stderr.strip() == ("braincards train: BRAINCARDS_KERNELS='fast' is not a kernel mode; "
                                    "allowed: avx2, portable, native")


def test_reproduce_cpus_names_the_emulator_it_needs(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    from benchmarks import reproduce

    monkeypatch.setattr(reproduce.shutil, "which", lambda name: None)
    with pytest.raises(SystemExit, match="qemu-x86_64 is not installed .*apt-get install qemu-user"):
        reproduce.main(["cpus"])


# ---------------------------------------------------------------------------- ranges
def _entry(value: float, lo: float, hi: float, timesteps: int = 0) -> dict:
    return {"timesteps": timesteps, "primary": value,
            "vs heuristic": {"win_rate": {"value": value, "lo": lo, "hi": hi}, "games": 300}}


def test_a_run_of_a_recorded_recipe_is_told_where_it_falls(tmp_path, monkeypatch):
    cfg = load_train_config("oh_my_brain/train_2p")
    summary = {"start": _entry(0.05, 0.03, 0.08), "best": _entry(0.69, 0.63, 0.74, 150),
               "last": _entry(0.67, 0.62, 0.72, 300)}
    record = ranges.seed_record(0, summary)
    assert record["table"] == "vs heuristic" and record["start"]["value"] == 0.05
    entry = {"config_sha256": ranges.recipe_sha256(cfg), "machine": "m",
             "seeds": [record, ranges.seed_record(1, {**summary, "last": _entry(0.6, 0.55, 0.65, 300)})]}
    (tmp_path / "ranges.yaml").write_text(json.dumps({"oh_my_brain/ppo_2p": entry}))
    monkeypatch.setattr(ranges, "ranges_path", lambda: tmp_path / "ranges.yaml")
    assert ranges.expected_range(entry) == (0.55, 0.72)
    line = ranges.range_line(cfg, summary)
    assert line.startswith("oh_my_brain/ppo_2p, vs heuristic: this run ended at 0.670 [0.620, 0.720], inside the "
                           "expected range 0.550-0.720 (recorded runs ended at 0.670 (seed 0), 0.600 (seed 1)")
    assert "OUTSIDE" in ranges.range_line(cfg, {**summary, "last": _entry(0.3, 0.25, 0.35, 300)})
    # another seed is the same recipe; other steps are another
    assert ranges.range_line(load_train_config("oh_my_brain/train_2p", {"seed": 9}), summary) is not None
    assert ranges.range_line(load_train_config("oh_my_brain/train_2p", {"total_timesteps": 1000}), summary) is None


def test_a_solo_game_that_is_never_lost_keeps_its_range_on_the_mean_score(monkeypatch):
    """Brilliant Boar's solo game is scored, never won or lost (R-W8): its win rate is 1 in every
    game, so a range of it says nothing. Its recipes keep the mean score; The Brain's solo game
    is won or lost and keeps the win rate."""
    boar = load_train_config("brilliant_boar/train_solo")
    assert ranges.range_metric(boar) == "mean_score"
    assert ranges.range_metric(load_train_config("the_brain/train_solo")) == "win_rate"
    assert ranges.range_metric(load_train_config("brilliant_boar/train_2p")) == "win_rate"

    def solo(score, lo, hi):
        return {"timesteps": 0, "primary": 1.0 + score / 1000,
                "solo": {"win_rate": {"value": 1.0, "lo": 0.987, "hi": 1.0},
                         "mean_score": {"value": score, "lo": lo, "hi": hi}, "games": 300}}

    record = ranges.seed_record(0, {"start": solo(30.0, 29.5, 30.5), "best": solo(35.0, 34.6, 35.4),
                                    "last": solo(35.0, 34.6, 35.4)}, "mean_score")
    assert record["last"] == {"value": 35.0, "lo": 34.6, "hi": 35.4} and record["start"]["value"] == 30.0
    entry = {"config": "configs/brilliant_boar/train_solo.yaml", "config_sha256": ranges.recipe_sha256(boar),
             "metric": "mean_score", "machine": "m", "seeds": [record, {**record, "seed": 1}, {**record, "seed": 2}]}
    monkeypatch.setattr(ranges, "load_ranges", lambda: {"brilliant_boar/ppo_solo": entry})
    line = ranges.range_line(boar, {"last": solo(33.0, 32.5, 33.5)})
    assert line.startswith("brilliant_boar/ppo_solo, solo mean score: this run ended at 33.00 [32.50, 33.50], "
                           "OUTSIDE the expected range 34.60-35.40 (recorded runs ended at 35.00 (seed 0)")
    assert "| solo (mean score) | 0, 1, 2 | 30.00, 30.00, 30.00 | 35.00, 35.00, 35.00 |" in ranges.ranges_table()
    monkeypatch.syspath_prepend(str(ROOT))
    from benchmarks.reproduce import merged

    with pytest.raises(SystemExit, match="the recorded seeds keep the win_rate, these the mean_score"):
        merged({**entry, "metric": "win_rate"}, entry)


def test_record_append_adds_seeds_to_a_recipe_and_refuses_another_version_of_it(monkeypatch):
    """benchmarks/reproduce.py record --append: records of one seed each, run side by side,
    make one entry; a seed run again replaces its record; seeds of a changed config are refused."""
    monkeypatch.syspath_prepend(str(ROOT))  # benchmarks/ is importable for this test only
    from benchmarks.reproduce import merged

    def entry(sha, machine, *seeds):
        return {"config": "c.yaml", "config_sha256": sha, "machine": machine,
                "seeds": [{"seed": s, "last": {"value": s / 10}} for s in seeds]}

    both = merged(entry("a", "m1", 0, 1), entry("a", "m2", 2, 1))
    assert [s["seed"] for s in both["seeds"]] == [0, 1, 2]
    assert both["machine"] == "m1; m2"
    with pytest.raises(SystemExit, match="another version of the recipe"):
        merged(entry("a", "m1", 0), entry("b", "m1", 1))


def test_record_reuse_reads_only_a_finished_run_of_the_same_config(monkeypatch, tmp_path):
    """record --reuse: a run directory counts only when its config is this recipe's at this seed
    and the run ended (closing speed figures, a last checkpoint)."""
    monkeypatch.syspath_prepend(str(ROOT))
    from benchmarks.reproduce import finished
    from braincards.training.learning.config import config_dict

    cfg = load_train_config(config_path("oh_my_brain/train_2p"), {"seed": 1})
    (tmp_path / "config.json").write_text(json.dumps(config_dict(cfg)))
    (tmp_path / "evaluations.json").write_text(json.dumps({"history": []}))
    assert not finished(tmp_path, cfg)  # still running: no closing figures
    (tmp_path / "evaluations.json").write_text(json.dumps({"history": [], "speed": {}}))
    assert not finished(tmp_path, cfg)  # no last checkpoint
    (tmp_path / "last.zip").write_bytes(b"")
    assert finished(tmp_path, cfg)
    assert not finished(tmp_path, load_train_config(config_path("oh_my_brain/train_2p"), {"seed": 2}))
    assert not finished(tmp_path / "missing", cfg)


def test_a_rerun_is_compared_with_the_shipped_checkpoints_of_its_exact_config(monkeypatch, tmp_path):
    """reproduce.py check/record say whether a seed's run gave a shipped checkpoint's weights bit
    for bit: the checkpoints of exactly that config, seed included (a recipe shipped on several
    seeds has one per seed), compared tensor by tensor on the actor (play-only copies hold no critic)."""
    import shutil

    import torch

    monkeypatch.syspath_prepend(str(ROOT))
    from benchmarks import reproduce

    careful = load_train_config(config_path("the_brain/train_3p_careful"), {"seed": 1})
    assert reproduce.shipped_of(careful) == ["the_brain/ppo_3p_careful_s1"]
    assert reproduce.shipped_of(load_train_config(config_path("the_brain/train_2p_careful"), {"seed": 1})) == []
    cfg = load_train_config(config_path("the_brain/train_2p_careful"))
    shipped = ROOT / "checkpoints" / "the_brain"
    shutil.copy(shipped / "ppo_2p_cautious.zip", tmp_path / "best.zip")  # same network shape, other weights
    assert reproduce.shipped_weights(cfg, tmp_path) == {"the_brain/ppo_2p_careful": "other weights"}
    shutil.copy(shipped / "ppo_2p_careful.zip", tmp_path / "last.zip")
    found = reproduce.shipped_weights(cfg, tmp_path)
    assert found == {"the_brain/ppo_2p_careful": "last"}
    assert reproduce.shipped_lines(0, found) == [
        "seed 0: the weights of the shipped the_brain/ppo_2p_careful, bit for bit (the run's last)"]
    weights = reproduce.actor_weights(tmp_path / "last.zip")
    assert weights and not any(key.startswith(("value_net.", "mlp_extractor.value_net.")) for key in weights)
    one_bit = {k: v.clone() for k, v in weights.items()}
    key = sorted(one_bit)[0]
    one_bit[key].view(torch.int32).view(-1)[0] ^= 1  # the lowest bit of one float
    assert reproduce.same_weights(weights, weights) and not reproduce.same_weights(weights, one_bit)
    assert not reproduce.same_weights(weights, {k: v for k, v in weights.items() if k != key})


def test_check_trains_the_configs_own_seed_and_says_what_the_rerun_gave(monkeypatch, tmp_path, capsys):
    """reproduce.py check NAME trains the seed of NAME's config (the shipped _s1 is seed 1 of its
    recipe) unless --seed says another, then prints where the run fell and the weights line."""
    monkeypatch.syspath_prepend(str(ROOT))
    from benchmarks import reproduce

    trained = []

    def fake_run(name, seed, reuse=False):
        trained.append(seed)
        cfg = load_train_config(config_path("the_brain/train_3p_careful"), {"seed": seed})
        team = {"timesteps": 100352, "primary": 0.56, "team": {"win_rate": {"value": 0.56, "lo": 0.5, "hi": 0.62}}}
        return cfg, {"start": team, "best": team, "last": team}

    monkeypatch.setattr(reproduce, "run", fake_run)
    monkeypatch.setattr(reproduce, "RUNS", tmp_path)  # no run there: other weights than the shipped one
    assert reproduce.main(["check", "the_brain/ppo_3p_careful_s1"]) == 0
    out = capsys.readouterr().out
    assert trained == [1]
    assert "this run ended at 0.560 [0.500, 0.620], inside the expected range" in out
    assert "seed 1: other weights than the shipped the_brain/ppo_3p_careful_s1" in out
    assert reproduce.main(["check", "the_brain/ppo_3p_careful_s1", "--seed", "7"]) == 0
    assert trained == [1, 7] and "shipped" not in capsys.readouterr().out  # no checkpoint of seed 7


def test_the_shipped_ranges_name_recipes_that_exist():
    for name, entry in ranges.load_ranges().items():
        cfg = load_train_config(ROOT / entry["config"])
        assert ranges.recipe_sha256(cfg) == entry["config_sha256"], f"{name}: its config changed since it was recorded"
        assert len(entry["seeds"]) >= 3, name


# ---------------------------------------------------------------------------- what PPO changed
def test_the_summary_says_what_ppo_changed_beyond_the_intervals():
    start, last = _entry(0.05, 0.03, 0.08), _entry(0.67, 0.62, 0.72, 300)
    assert ppo_change("vs heuristic", start, last).endswith("(PPO improved it: the 95% intervals do not overlap)")
    assert "made it worse" in ppo_change("vs heuristic", last, start)
    assert "no change beyond" in ppo_change("vs heuristic", last, _entry(0.7, 0.65, 0.75, 300))
    text = format_summary({"out": "o", "start": start, "best": last, "last": last, "baseline": {},
                           "speed": {"timesteps": 300, "wall_seconds": 1, "steps_per_second": 300, "env_share": 0.5,
                                     "run_seconds": 2, "pretrain_seconds": 0, "evaluation_seconds": 1}})
    assert "| vs heuristic | 0.050 [0.030, 0.080] | 0.670 [0.620, 0.720] | 0.670 [0.620, 0.720] | - |" in text


# ---------------------------------------------------------------------------- the search's cache
def test_the_compiled_search_is_loaded_from_numbas_cache_in_a_second_process(tmp_path):
    """The search used to be recompiled in every process (numba cannot cache a self-recursive
    function); with its own stack of frames, a second process loads it from the cache."""
    code = ("from braincards.training.agents.search import fast_win\n"
            "from braincards.training.evaluation.oracle import oracle_cell\n"
            "r = oracle_cell({'num_players': 2, 'difficulty': 'robber'}, deals=2, seed=3)\n"
            "print(r['winnable'], r['mean_nodes'], fast_win.win.stats.cache_hits.__len__())\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert first.stdout.split()[:2] == second.stdout.split()[:2]
    assert first.stdout.split()[2] == "0" and second.stdout.split()[2] == "1", (first.stdout, second.stdout)


# ---------------------------------------------------------------------------- start-up
def _modules_after(code: str) -> set:
    result = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sorted(sys.modules)))"],
                            capture_output=True, text=True, check=True)
    return set(result.stdout.split())


def test_help_and_oracle_load_no_torch_and_only_their_own_command():
    """The command line imports a command's module when that command runs: `--help` lists
    every command without importing them, and `oracle` (The Brain's solver) never loads torch."""
    helped = _modules_after("from braincards.training.cli.main import main\n"
                            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass")
    assert "torch" not in helped and "braincards.training.cli.evaluation" not in helped
    solved = _modules_after("from braincards.training.cli.main import main\n"
                            "main(['oracle', 'the_brain', '--players', '2', '--deals', '1'])")
    assert "braincards.training.cli.oracle" in solved
    assert "torch" not in solved and "braincards.training.cli.train" not in solved


def test_the_listed_commands_match_their_modules():
    """`--help` lists each command from the table in main; the full parser from the modules."""
    from braincards.training.cli.main import COMMANDS, build_parser

    def listed(parser):
        sub = next(a for a in parser._actions if a.dest == "command")
        return {a.dest: a.help for a in sub._choices_actions}

    assert listed(build_parser("")) == listed(build_parser()) == {k: v[1] for k, v in COMMANDS.items()}
