"""The trainer (issue 8): every shipped training config trains for a few hundred steps,
saves, loads back as a partner/opponent in evaluate and play, and resumes; config errors
name the key; training is deterministic under a seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from braincards.training.agents.checkpoint import CheckpointError, read_checkpoint, read_metadata
from braincards.training.agents.network import load_policy
from braincards.training.cli.main import main
from braincards.training.evaluation.evaluate import evaluate
from braincards.training.learning.config import (
    ConfigError,
    RLlibBackend,
    config_dict,
    load_train_config,
    parse_train_config,
    stored_train_config,
    upgrade_training,
)
from braincards.training.learning.sb3 import Trainer, train

ROOT = Path(__file__).resolve().parents[2]
TRAIN_CONFIGS = sorted(ROOT.glob("configs/*/train_*.yaml"))
# a few hundred steps: enough to run every part of the pipeline
SHORT = {"total_timesteps": 128, "n_envs": 2, "ppo.n_steps": 32, "ppo.batch_size": 32,
         "ppo.n_epochs": 1, "evaluation.every": 64, "evaluation.games": 4}


def _quiet(*_a, **_k):
    pass


def test_every_game_has_a_training_config():
    assert {p.parent.name for p in TRAIN_CONFIGS} == {"the_brain", "oh_my_brain", "brilliant_boar"}


@pytest.mark.parametrize("path", TRAIN_CONFIGS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_config_trains_saves_loads_and_plays(path, tmp_path, monkeypatch, capsys):
    overrides = dict(SHORT)
    cfg = load_train_config(path, overrides)
    if cfg.opponents.snapshot_every:
        overrides["opponents.snapshot_every"] = 40  # a snapshot is taken within the short run
    if cfg.pretrain is not None:  # a few teacher games (DAgger's learner-played chunk too)
        overrides.update({"pretrain.games": 4, "pretrain.chunk_games": 2, "pretrain.epochs": 1})
        if cfg.pretrain.dagger_after is not None:  # the learner still plays the second chunk
            overrides["pretrain.dagger_after"] = 2
    cfg = load_train_config(path, overrides)
    summary = train(cfg, tmp_path / "run", progress=False, log=_quiet)
    out = tmp_path / "run"
    for name in ("best.zip", "best.json", "last.zip", "last.json", "learning_curve.png",
                 "evaluations.json", "config.json"):
        assert (out / name).is_file(), name
    assert list((out / "tb").rglob("events.out.tfevents.*"))
    meta = read_metadata(out / "best")
    assert meta["game"] == cfg.game and meta["env_config"] == cfg.env
    assert meta["history_k"] == cfg.history_k
    assert meta["evaluation"]["timesteps"] in (0, 64, 128)
    assert meta["training"]["ppo"]["n_steps"] == 32
    speed = summary["speed"]
    assert speed["steps_per_second"] > 0 and 0 <= speed["env_share"] <= 1
    # training time excludes the evaluations that run inside learn(); the whole run holds all
    assert speed["evaluation_seconds"] > 0  # one evaluation at 64 timesteps, inside learn()
    assert speed["run_seconds"] >= speed["wall_seconds"] + speed["evaluation_seconds"] + speed["pretrain_seconds"]
    evaluations = json.loads((out / "evaluations.json").read_text())
    # the curve starts with an evaluation at 0 steps: the clone, the warm start or the fresh network
    assert [h["timesteps"] for h in evaluations["history"]] == [0, 64, 128]
    assert (evaluations["pretrain"] is not None) == (cfg.pretrain is not None)
    # loaded back as a partner/opponent through evaluate (a spec path) ...
    n = cfg.num_players
    seats = [str(out / "best")] + ["heuristic"] * (n - 1)
    result = evaluate(cfg.game, cfg.env, seats=seats, games=2, seed=0, progress=False)
    assert result["games"] == 2
    # ... and through play (a person at another seat; input ends at once -> abandoned cleanly)
    if n > 1:
        monkeypatch.setattr("sys.stdin", _Empty())
        argv = ["play", cfg.game, "--seat", "human", *["--seat", str(out / "last")] * (n - 1), "--seed", "1"]
        for key, value in cfg.env.items():
            argv += ["--set", f"{key}={value}"]
        assert main(argv) == 3  # abandoned: its own exit status
        assert "abandoned" in capsys.readouterr().out


class _Empty:
    def readline(self):
        return ""


def test_resume_continues_the_run(tmp_path):
    cfg = parse_train_config({"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64,
                              "n_envs": 2, "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1},
                              "evaluation": {"every": 64, "games": 2}})
    train(cfg, tmp_path / "a", progress=False, log=_quiet)
    assert read_metadata(tmp_path / "a" / "last")["timesteps"] == 64
    more = cfg.model_copy(update={"total_timesteps": 128})
    logs = []
    train(more, tmp_path / "b", resume_from=str(tmp_path / "a" / "last"), progress=False, log=logs.append)
    assert any("resumed from" in line and "at 64 timesteps" in line for line in logs)
    assert read_metadata(tmp_path / "b" / "last")["timesteps"] == 128
    # the resumed run started from the saved weights: continuing 64 more steps from them is
    # exactly what a single 128-step run would not be guaranteed to do, but the weights moved
    a = read_checkpoint(tmp_path / "a" / "last")[1]
    b = read_checkpoint(tmp_path / "b" / "last")[1]
    assert a.keys() == b.keys() and any(not torch.equal(a[k], b[k]) for k in a)
    with pytest.raises(ValueError, match="nothing to train"):
        train(cfg, tmp_path / "c", resume_from=str(tmp_path / "b" / "last"), progress=False, log=_quiet)
    other = cfg.model_copy(update={"policy": cfg.policy.model_copy(update={"net_arch": [8]})})
    with pytest.raises(CheckpointError, match="differs from the config"):
        train(other.model_copy(update={"total_timesteps": 256}), tmp_path / "d",
              resume_from=str(tmp_path / "b" / "last"), progress=False, log=_quiet)


def test_resume_puts_back_the_snapshots_taken_by_the_checkpoint(tmp_path, monkeypatch):
    """Seat mode: every snapshot is saved as snapshots/<timesteps>; --resume DIR/last puts the
    ones taken by last's timesteps back into every env's pool (the newest max_snapshots,
    oldest first) and copies them into the new run's folder."""
    cfg = parse_train_config({"game": "oh_my_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64,
                              "n_envs": 2, "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1},
                              "opponents": {"pool": [{"source": "heuristic"}, {"source": "snapshots"}],
                                            "snapshot_every": 40, "max_snapshots": 2},
                              "evaluation": {"every": 64, "games": 2}})
    train(cfg, tmp_path / "a", progress=False, log=_quiet)
    snaps = tmp_path / "a" / "snapshots"
    assert sorted(p.name for p in snaps.iterdir()) == ["40.json", "40.zip"]
    assert read_metadata(snaps / "40")["timesteps"] == 40
    # two older snapshots (only the newest 2 of the 3 fit max_snapshots) and one taken after
    # the checkpoint (by a run that went on past its last evaluation): not put back
    for ts in ("10", "20", "1000"):
        for ext in (".zip", ".json"):
            (snaps / (ts + ext)).write_bytes((snaps / ("40" + ext)).read_bytes())
    pools: list = []
    restore = Trainer.restore_snapshots

    def spy(self, resumed):
        restore(self, resumed)
        pools.append(self.venv.env_method("snapshot_labels"))

    monkeypatch.setattr(Trainer, "restore_snapshots", spy)
    logs: list = []
    more = cfg.model_copy(update={"total_timesteps": 128})
    train(more, tmp_path / "b", resume_from=str(tmp_path / "a" / "last"), progress=False, log=logs.append)
    assert pools == [[["snapshot@20", "snapshot@40"]] * 2]
    assert any("restored 2 snapshot(s) taken by 64 timesteps" in line and ": 20, 40" in line for line in logs)
    copied = {p.stem for p in (tmp_path / "b" / "snapshots").glob("*.zip")}
    assert copied == {"20", "40", "104"}  # the two put back, and the resumed run's own at 64 + 40
    # a snapshot file that is not a checkpoint is an error naming it, not a silent skip
    (snaps / "30.json").write_text("{not json")
    (snaps / "30.zip").write_bytes(b"junk")
    with pytest.raises(CheckpointError, match="30"):
        train(more, tmp_path / "c", resume_from=str(tmp_path / "a" / "last"), progress=False, log=_quiet)


def test_training_is_deterministic_under_a_seed(tmp_path):
    data = {"game": "oh_my_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64, "n_envs": 2,
            "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 2},
            "opponents": {"pool": [{"source": "random"}, {"source": "heuristic"}]},
            "evaluation": {"every": 64, "games": 2}}
    for run in ("x", "y"):
        train(parse_train_config(data), tmp_path / run, progress=False, log=_quiet)
    x = read_checkpoint(tmp_path / "x" / "last")[1]
    y = read_checkpoint(tmp_path / "y" / "last")[1]
    assert all(torch.equal(x[k], y[k]) for k in x)
    data["seed"] = 1
    train(parse_train_config(data), tmp_path / "z", progress=False, log=_quiet)
    z = read_checkpoint(tmp_path / "z" / "last")[1]
    assert any(not torch.equal(x[k], z[k]) for k in x)


def test_evaluation_workers_change_no_result(tmp_path):
    """--eval-workers 2: the evaluations (and so best/last and the weights) are the serial ones."""
    data = {"game": "oh_my_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64, "n_envs": 2,
            "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1},
            "evaluation": {"every": 32, "games": 12}}
    for run, workers in (("one", 1), ("two", 2)):
        train(parse_train_config(data), tmp_path / run, progress=False, log=_quiet, eval_workers=workers)
    one, two = (json.loads((tmp_path / r / "evaluations.json").read_text()) for r in ("one", "two"))
    assert one["history"] and one["history"] == two["history"] and one["baseline"] == two["baseline"]
    x, y = (read_checkpoint(tmp_path / r / "best")[1] for r in ("one", "two"))
    assert all(torch.equal(x[k], y[k]) for k in x)
    with pytest.raises(ValueError, match="eval_workers=0"):
        train(parse_train_config(data), tmp_path / "zero", progress=False, log=_quiet, eval_workers=0)


def test_background_evaluation_is_deterministic_and_scores_what_it_saves(tmp_path):
    """backend.background_evaluation: the evaluations play in a second process while PPO goes on.
    Two runs give the same history and weights whatever the timing; every evaluation after
    the clone is a real one (on weights that moved); `best` holds the weights its evaluation
    played (evaluated again inline, they score the same) and `last` the final ones, with their
    own evaluation once it has come back. The
    heuristic reference, played in its own process from the start, is the inline one."""
    from braincards.training.learning.schedule import baseline_evaluation, run_evaluation

    data = {"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 192, "n_envs": 2,
            "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1, "learning_rate": 3e-3},
            "evaluation": {"every": 64, "games": 10, "partners": ["heuristic"]},
            "backend": {"background_evaluation": True},
            "pretrain": {"teacher": "heuristic", "games": 6, "chunk_games": 3}}
    logs: dict = {}
    for run in ("x", "y"):
        logs[run] = []
        train(parse_train_config(data), tmp_path / run, progress=False, log=logs[run].append)
    x, y = (json.loads((tmp_path / r / "evaluations.json").read_text()) for r in ("x", "y"))
    assert [e["timesteps"] for e in x["history"]] == [0, 64, 128, 192]  # the clone, ..., after the last update
    assert x["history"] == y["history"]
    assert [ln for ln in logs["x"] if ln.startswith("[")] == [ln for ln in logs["y"] if ln.startswith("[")]
    for name in ("best", "last"):
        a, b = (read_checkpoint(tmp_path / r / name)[1] for r in ("x", "y"))
        assert all(torch.equal(a[k], b[k]) for k in a), name
    meta = read_metadata(tmp_path / "x" / "best")
    assert meta["training"]["backend"] == {**meta["training"]["backend"], "name": "sb3", "background_evaluation": True}
    assert meta["evaluation"] == max(x["history"], key=lambda e: e["primary"])
    cfg = parse_train_config(data)
    again = run_evaluation(load_policy(tmp_path / "x" / "best", name="learner"), cfg)
    assert {"timesteps": meta["timesteps"], **again} == meta["evaluation"]
    last = read_metadata(tmp_path / "x" / "last")
    assert last["timesteps"] == 192
    assert last["evaluation"] == x["history"][-1]  # its own evaluation, saved when it came back
    again = run_evaluation(load_policy(tmp_path / "x" / "last", name="learner"), cfg)
    assert {"timesteps": 192, **again} == last["evaluation"]
    assert x["baseline"] == y["baseline"] == baseline_evaluation(cfg)
    assert not [c for c in __import__("multiprocessing").active_children() if "background_evaluation" in c.name]


def test_background_evaluation_plays_with_evaluation_workers(tmp_path):
    """backend.background_evaluation with --eval-workers 2 stopped at the first evaluation with
    "daemonic processes are not allowed to have children": the evaluation process (a daemon)
    started the evaluation's worker pool. It is no daemon now (it still dies with its
    parent), and the run's numbers are those of one worker."""
    import multiprocessing

    data = {"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 128, "n_envs": 2,
            "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1},
            "evaluation": {"every": 64, "games": 8, "partners": ["heuristic"]},
            "backend": {"background_evaluation": True}}
    seen = []
    real = multiprocessing.process.BaseProcess.start

    def start(process):
        seen.append((process.name, process.daemon))
        return real(process)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(multiprocessing.process.BaseProcess, "start", start)
        train(parse_train_config(data), tmp_path / "two", progress=False, log=_quiet, eval_workers=2)
    train(parse_train_config(data), tmp_path / "one", progress=False, log=_quiet)
    two, one = (json.loads((tmp_path / r / "evaluations.json").read_text()) for r in ("two", "one"))
    assert two["history"] == one["history"] and two["baseline"] == one["baseline"]
    background = [daemon for name, daemon in seen if "background_evaluation" in name]
    assert background and not any(background)
    assert not [c for c in multiprocessing.active_children() if "background_evaluation" in c.name]


def test_background_evaluation_reports_a_failed_evaluation(tmp_path, monkeypatch):
    """An error in the evaluation process stops the run with the process's traceback, and
    the process is not left behind."""
    import multiprocessing

    from braincards.training.learning import schedule

    def broken(policy, cfg, games=None, workers=1):
        raise ValueError("no table today")

    monkeypatch.setattr(schedule, "run_evaluation", broken)  # the forked process inherits it
    cfg = parse_train_config({"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64, "n_envs": 2,
                              "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1},
                              "evaluation": {"every": 32, "games": 2},
                              "backend": {"background_evaluation": True}})
    monkeypatch.setattr("braincards.training.learning.evaluators.baseline_evaluation", lambda cfg, workers=1: {})
    with pytest.raises(RuntimeError, match=r"(?s)evaluation process failed:.*ValueError: no table today"):
        train(cfg, tmp_path / "x", progress=False, log=_quiet)
    assert not [c for c in multiprocessing.active_children() if "evaluation process" in c.name]


def test_loaded_checkpoint_plays_what_the_trained_model_plays(tmp_path):
    cfg = parse_train_config({"game": "brilliant_boar_v0", "env": {"num_players": 2, "memory": "none"},
                              "history_k": 4, "total_timesteps": 64, "n_envs": 2,
                              "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1},
                              "evaluation": {"every": 64, "games": 2}})
    train(cfg, tmp_path / "r", progress=False, log=_quiet)
    p = load_policy(tmp_path / "r" / "best", game="brilliant_boar_v0", config=cfg.env)
    assert p.history_k == 4
    # it reads the history wrapper's observation: a bare observation is refused clearly
    import numpy as np

    bare = {"observation": np.zeros(p.observation_size - 1, np.float32), "action_mask": np.ones(10, np.int8)}
    with pytest.raises(ValueError, match="needs the history wrapper with k=4"):
        p.act(bare)


# ---------------------------------------------------------------------------- config errors
@pytest.mark.parametrize("data, message", [
    ({"env": {}, "total_timesteps": 10}, r"game: required key is missing"),
    ({"game": "chess", "total_timesteps": 10}, r"unknown game 'chess'"),
    ({"game": "the_brain", "total_timesteps": 10, "ppo": {"n_stepz": 8}},
     r"ppo\.n_stepz: unknown key; allowed keys here: \[.*'n_steps'"),
    ({"game": "the_brain", "total_timesteps": 10, "ppo": {"learning_rate": "3e-4"}},
     r"ppo\.learning_rate: .*write 3\.0e-4"),
    ({"game": "the_brain", "total_timesteps": 0}, r"total_timesteps: .*greater than or equal to 1"),
    ({"game": "the_brain", "total_timesteps": 10, "n_envs": 1.5}, r"n_envs"),
    ({"game": "the_brain", "total_timesteps": 10, "env": {"difficulty": "x"}}, r"env: difficulty='x'"),
    ({"game": "the_brain", "total_timesteps": 10, "env": {"colour": 1}}, r"env: unknown option 'colour'"),
    ({"game": "the_brain", "total_timesteps": 10, "mode": "league"}, r"mode: Input should be 'team' or 'seat'"),
    ({"game": "the_brain", "total_timesteps": 10, "history_k": 4}, r"the_brain_v0 has no history wrapper"),
    ({"game": "the_brain", "total_timesteps": 10, "policy": {"net_arch": [0]}}, r"policy\.net_arch"),
    ({"game": "the_brain", "total_timesteps": 10, "policy": {"activation": "gelu"}}, r"policy\.activation"),
    ({"game": "the_brain", "total_timesteps": 10, "n_envs": 1, "ppo": {"n_steps": 16, "batch_size": 64}},
     r"batch_size=64 is larger than a rollout"),
    ({"game": "oh_my_brain", "total_timesteps": 10, "opponents": {"pool": [{"source": "snapshots"}]}},
     r"no snapshot would ever be taken"),
    ({"game": "oh_my_brain", "total_timesteps": 10,
      "opponents": {"pool": [{"source": "snapshots"}], "snapshot_every": 100}},
     r"the pool has only 'snapshots': add a source for the games played before the first snapshot"),
    ({"game": "oh_my_brain", "total_timesteps": 10, "opponents": {"pool": [{"source": "random", "weight": -1}]}},
     r"opponents\.pool\.0\.weight"),
    ({"game": "oh_my_brain", "total_timesteps": 10, "opponents": {"pool": [{"sauce": "random"}]}},
     r"opponents\.pool\.0\.sauce: unknown key; allowed keys here: \['source', 'weight'\]"),
    ([1, 2], r"a training config is a mapping"),
])
def test_config_errors_name_the_key(data, message):
    with pytest.raises(ConfigError, match=message):
        parse_train_config(data)


def test_unknown_opponent_spec_fails_before_training(tmp_path):
    cfg = parse_train_config({"game": "oh_my_brain", "total_timesteps": 64, "n_envs": 2,
                              "ppo": {"n_steps": 32, "batch_size": 32},
                              "opponents": {"pool": [{"source": "grandmaster"}]}})
    with pytest.raises(ValueError, match="unknown policy spec 'grandmaster'"):
        train(cfg, tmp_path / "x", progress=False, log=_quiet)


def test_train_command(tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("game: the_brain\nenv: {num_players: 2}\ntotal_timesteps: 100000\n")
    argv = ["train", str(cfg), "--timesteps", "64", "--seed", "3", "--out", str(tmp_path / "o"),
            "--set", "n_envs=2", "--set", "ppo.n_steps=32", "--set", "ppo.batch_size=32",
            "--set", "evaluation.games=2", "--quiet"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "| team |" in out and "steps/s" in out and "env share" in out
    meta = read_metadata(tmp_path / "o" / "best")
    assert meta["seed"] == 3 and meta["timesteps"] == 64


@pytest.mark.parametrize("argv_tail, message", [
    (["--set", "ppo.n_stepz=3"], "ppo.n_stepz: unknown key"),
    (["--set", "novalue"], "expected KEY=VALUE"),
    (["--timesteps", "0"], "total_timesteps"),
    (["--resume", "/nonexistent/ckpt"], "does not exist"),
    (["--eval-workers", "0"], "--eval-workers 0: the evaluation's worker processes, an integer >= 1"),
    (["--eval-workers", "2", "--backend", "rllib"], "--eval-workers is an option of the sb3 backend"),
])
def test_train_command_errors(tmp_path, capsys, argv_tail, message):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("game: the_brain\nenv: {num_players: 2}\ntotal_timesteps: 64\nn_envs: 2\n"
                   "ppo: {n_steps: 32, batch_size: 32}\nevaluation: {games: 2}\n")
    assert main(["train", str(cfg), "--out", str(tmp_path / "o"), "--quiet", *argv_tail]) == 2
    err = capsys.readouterr().err
    assert err.startswith("braincards: error:") and message in err
    assert main(["train", str(tmp_path / "missing.yaml")]) == 2
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.parametrize("dagger", [False, True])
def test_pretraining_clones_the_teacher(tmp_path, dagger):
    """Behaviour cloning (and DAgger) moves the policy towards the teacher: its agreement
    with the teacher's actions rises well above an untrained network's."""
    from braincards.training.learning.pretrain import pretrain, record_games
    from braincards.training.learning.sb3 import build_model, make_learner_env, make_vec_env

    cfg = parse_train_config({"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64,
                              "n_envs": 1, "ppo": {"n_steps": 32, "batch_size": 32},
                              "pretrain": {"teacher": "heuristic", "games": 60, "chunk_games": 20,
                                           "epochs": 4, "learning_rate": 3.0e-3, "dagger": dagger}})

    env = make_learner_env(cfg, 0)
    venv = make_vec_env(cfg)
    model = build_model(cfg, venv, None)
    import numpy as np

    from braincards.training.agents.specs import make_policy

    teachers = [make_policy("heuristic", cfg.game, cfg.env) for _ in env.agents]
    obs, masks, actions, returns = record_games([env], [teachers], 5, 0.99, np.random.default_rng(9))
    assert len(obs) == len(masks) == len(actions) == len(returns) > 0
    assert masks[np.arange(len(actions)), actions].all()  # every label is a legal action
    with torch.no_grad():
        before = model.policy.get_distribution(torch.as_tensor(obs), action_masks=masks)
    agree_before = float((before.distribution.probs.argmax(-1).numpy() == actions).mean())
    stats = pretrain(model, cfg, [env] if not dagger else [env, make_learner_env(cfg, 1)], log=_quiet)
    assert stats["games"] == 60
    # the last chunk's agreement before it was fitted: games the policy had not trained on
    assert 0.3 < stats["held_out_agreement"] <= 1.0 and stats["agreement"] <= 1.0
    with torch.no_grad():
        after = model.policy.get_distribution(torch.as_tensor(obs), action_masks=masks)
    agree_after = float((after.distribution.probs.argmax(-1).numpy() == actions).mean())
    assert agree_after > max(0.5, agree_before + 0.15), (agree_before, agree_after)
    venv.close()


@pytest.mark.parametrize("game, config", [("the_brain_v0", {"num_players": 3}),
                                          ("brilliant_boar_v0", {"num_players": 2})])
def test_recorded_games_do_not_depend_on_how_many_envs_play_them(monkeypatch, game, config):
    """record_games plays its games side by side (DAgger's actor decides for all of them in
    one batch), yet returns the same games in the same order as one env playing them in
    turn - with the teacher playing, and with a learner (DAgger) playing."""
    import numpy as np

    from braincards.training.agents.specs import make_policy
    from braincards.training.learning import pretrain
    from braincards.training.learning.learner_env import LearnerEnv, OpponentPool

    def envs_and_teachers(n):
        envs = []
        for _ in range(n):
            seat = game != "the_brain_v0"
            pool = OpponentPool(game, config, [("heuristic", 1.0), ("random", 1.0)]) if seat else None
            envs.append(LearnerEnv(game, config, mode="seat" if seat else "team", pool=pool,
                                   history_k=8 if game == "brilliant_boar_v0" else 0))
        return envs, [[make_policy("heuristic", game, config) for _ in e.agents] for e in envs]

    batches = []
    monkeypatch.setattr(pretrain, "_argmax_actions",
                        lambda net, obs, masks: batches.append(len(obs)) or [int(np.flatnonzero(m)[0]) for m in masks])
    for actor in (None, object()):
        results = [pretrain.record_games(*envs_and_teachers(n), 7, 0.99, np.random.default_rng(3), actor)
                   for n in (1, 3, 10)]
        for other in results[1:]:
            for a, b in zip(results[0], other, strict=True):
                assert a.shape == b.shape and np.array_equal(a, b)
    assert max(batches) == 7  # all 7 games at once with 10 envs (3 of them stay idle)
    with pytest.raises(ValueError, match="one list of teachers per env"):
        pretrain.record_games(*envs_and_teachers(2)[:1], [[]], 1, 0.99, np.random.default_rng(0))


def test_replay_chunks_fits_each_chunk_with_the_previous_ones(monkeypatch):
    """pretrain.replay_chunks = 2: every fit sees the new chunk's samples and the previous
    chunk's (DAgger's aggregation, bounded), the first chunk alone."""
    import numpy as np

    from braincards.training.learning import pretrain as pretraining
    from braincards.training.learning.sb3 import build_model, make_learner_env, make_vec_env

    cfg = parse_train_config({"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64,
                              "n_envs": 1, "ppo": {"n_steps": 32, "batch_size": 32},
                              "pretrain": {"teacher": "heuristic", "games": 9, "chunk_games": 3, "epochs": 1,
                                           "dagger": True, "replay_chunks": 2}})
    recorded, fitted = [], []
    real_record, real_fit = pretraining.record_games, pretraining.fit_minibatches
    monkeypatch.setattr(pretraining, "record_games",
                        lambda *a: recorded.append(real_record(*a)) or recorded[-1])
    monkeypatch.setattr(pretraining, "fit_minibatches", lambda policy, opt, p, rng, obs, *rest: (
        fitted.append(obs.numpy().copy()), real_fit(policy, opt, p, rng, obs, *rest)))
    venv = make_vec_env(cfg)
    model = build_model(cfg, venv, None)
    pretraining.pretrain(model, cfg, [make_learner_env(cfg, 0)], log=_quiet)
    chunks = [r[0] for r in recorded]
    assert len(chunks) == len(fitted) == 3
    assert np.array_equal(fitted[0], chunks[0])
    assert np.array_equal(fitted[1], np.concatenate(chunks[:2]))
    assert np.array_equal(fitted[2], np.concatenate(chunks[1:]))
    venv.close()


def test_joined_chunks_are_torch_cat_in_reused_buffers():
    """The replayed chunks are joined into buffers that are reused from chunk to chunk: each
    join is ``torch.cat`` of the kept chunks, row for row, whatever their sizes; a buffer
    grows only when the rows outgrow it; a column of Nones (no hand targets) stays None."""
    import collections

    from braincards.training.learning.pretrain import _Joined

    rng = torch.Generator().manual_seed(0)
    kept, joined = collections.deque(maxlen=3), _Joined(3)
    pointers = []
    for size in (5, 9, 7, 30, 8, 8, 100, 3, 6):
        kept.append((torch.randn(size, 4, generator=rng), torch.randint(0, 9, (size,), generator=rng), None))
        if len(kept) == 1:
            continue
        obs, act, hand = joined.join(kept)
        assert torch.equal(obs, torch.cat([k[0] for k in kept])) and obs.shape == (sum(len(k[0]) for k in kept), 4)
        assert torch.equal(act, torch.cat([k[1] for k in kept])) and act.dtype == torch.int64
        assert hand is None
        pointers.append(obs.data_ptr())
    assert len(set(pointers)) < len(pointers)  # reused, not allocated for every chunk
    assert len(set(pointers)) >= 2  # grown when a large chunk came


def _record_ahead_run(monkeypatch, **pretrain_options):
    """A small DAgger pretraining with ``record_ahead``; returns the model, and what the
    trainer asked the recorder for: (games done before the chunk, fits done by then, whether
    weights went with it)."""
    from braincards.training.learning import pretrain as pretraining
    from braincards.training.learning.sb3 import build_model, make_learner_env, make_vec_env

    cfg = parse_train_config({"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64,
                              "n_envs": 1, "ppo": {"n_steps": 32, "batch_size": 32},
                              "pretrain": {"teacher": "heuristic", "games": 12, "chunk_games": 3, "epochs": 2,
                                           "dagger": True, "replay_chunks": 2, "record_ahead": True,
                                           **pretrain_options}})
    fits, asked = [], []
    real_fit, real_ask = pretraining.fit_minibatches, pretraining.Recorder.ask
    monkeypatch.setattr(pretraining, "fit_minibatches", lambda *a: (fits.append(1), real_fit(*a)))
    monkeypatch.setattr(pretraining.Recorder, "ask", lambda self, done, policy: (
        asked.append((done, len(fits), cfg.pretrain.learner_plays(done))), real_ask(self, done, policy)))
    venv = make_vec_env(cfg)
    torch.manual_seed(0)
    model = build_model(cfg, venv, None)
    stats = pretraining.pretrain(model, cfg, [make_learner_env(cfg, i) for i in range(2)], log=_quiet)
    venv.close()
    return model, stats, asked


def test_record_ahead_records_the_next_chunk_while_this_one_is_fitted(monkeypatch):
    """pretrain.record_ahead: the teacher's chunk is asked for first; the learner's first
    chunk waits for the first fit; every later chunk is asked for before the current one is
    fitted (so its learner is one fit behind). The run is the same however the two processes
    are timed: two runs give the same weights."""
    model, stats, asked = _record_ahead_run(monkeypatch)
    assert stats["games"] == 12 and stats["held_out_agreement"] is not None
    assert asked == [(0, 0, False), (3, 1, True), (6, 1, True), (9, 2, True)]
    again, _, _ = _record_ahead_run(monkeypatch)
    for (name, a), b in zip(model.policy.state_dict().items(), again.policy.state_dict().values(), strict=True):
        assert torch.equal(a, b), name


@pytest.mark.parametrize("failure, message", [
    ("raise", r"(?s)recording process failed:.*ValueError: no teacher today"),
    ("exit", r"recording process: the process ended without answering \(exit code 3\)"),
])
def test_record_ahead_reports_a_failed_recording(monkeypatch, failure, message):
    """An error in the recording process is raised in the trainer with its traceback; a
    recording process that dies is named with its exit code; either way it is not left behind."""
    import multiprocessing
    import os

    from braincards.training.learning import pretrain as pretraining

    def broken(*args):
        if failure == "exit":
            os._exit(3)
        raise ValueError("no teacher today")

    monkeypatch.setattr(pretraining, "record_games", broken)  # the forked recorder inherits it
    with pytest.raises(RuntimeError, match=message):
        _record_ahead_run(monkeypatch)
    assert not [c for c in multiprocessing.active_children() if "recording process" in c.name]


def test_fused_adam_fits_with_the_fused_kernel(monkeypatch):
    """pretrain.fused_adam builds the cloning fit's Adam with ``fused=True``; the default
    leaves torch's choice."""
    from braincards.training.learning import pretrain as pretraining

    made = []
    real = torch.optim.Adam
    monkeypatch.setattr(pretraining.torch.optim, "Adam", lambda params, **kw: made.append(kw) or real(params, **kw))
    _record_ahead_run(monkeypatch, fused_adam=True, games=3)
    _record_ahead_run(monkeypatch, games=3)
    assert [kw["fused"] for kw in made] == [True, None]


def test_ppo_fused_adam_builds_a_fused_optimizer_with_sb3s_eps():
    from braincards.training.learning.sb3 import build_model, make_vec_env

    base = {"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64, "n_envs": 1,
            "ppo": {"n_steps": 32, "batch_size": 32}}
    for fused in (True, False):
        cfg = parse_train_config({**base, "backend": {"fused_adam": fused}})
        group = build_model(cfg, make_vec_env(cfg), None).policy.optimizer.param_groups[0]
        assert group["eps"] == 1e-5 and bool(group["fused"]) is fused


def test_bfloat16_and_fused_training_is_deterministic_and_learns(tmp_path):
    """backend.precision bfloat16 with backend.fused_adam and pretrain.fused_adam: a short cloning
    and PPO run gives the same weights twice, other weights than float32, and a clone that
    agrees with its teacher."""
    data = {"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64, "n_envs": 2,
            "policy": {"net_arch": [64, 64]},
            "backend": {"precision": "bfloat16", "sparse_input": True, "fused_adam": True},
            "ppo": {"n_steps": 32, "batch_size": 32},
            "pretrain": {"teacher": "greedy", "games": 40, "chunk_games": 20, "epochs": 4, "fused_adam": True},
            "evaluation": {"every": 64, "games": 2}}
    for run, precision in (("x", "bfloat16"), ("y", "bfloat16"), ("z", "float32")):
        data["backend"]["precision"] = precision
        train(parse_train_config(data), tmp_path / run, progress=False, log=_quiet)
    x, y, z = (read_checkpoint(tmp_path / run / "last")[1] for run in "xyz")
    assert all(torch.equal(x[k], y[k]) for k in x)
    assert any(not torch.equal(x[k], z[k]) for k in x)
    assert all(v.dtype == torch.float32 for v in x.values())
    cloned = {run: json.loads((tmp_path / run / "evaluations.json").read_text())["pretrain"] for run in "xz"}
    assert cloned["x"]["agreement"] > 0.5
    assert abs(cloned["x"]["agreement"] - cloned["z"]["agreement"]) < 0.1


def test_dagger_after_chooses_when_the_learner_takes_over():
    base = {"game": "the_brain_v0", "total_timesteps": 64}
    p = parse_train_config({**base, "pretrain": {"teacher": "greedy", "games": 10, "chunk_games": 2,
                                                 "dagger": True}}).pretrain
    assert [p.learner_plays(done) for done in range(0, 10, 2)] == [False, True, True, True, True]
    p = parse_train_config({**base, "pretrain": {"teacher": "greedy", "games": 10, "chunk_games": 2,
                                                 "dagger": True, "dagger_after": 6}}).pretrain
    assert [p.learner_plays(done) for done in range(0, 10, 2)] == [False, False, False, True, True]
    p = parse_train_config({**base, "pretrain": {"teacher": "greedy", "games": 10}}).pretrain
    assert not any(p.learner_plays(done) for done in range(10))
    with pytest.raises(ConfigError, match="dagger_after=4 needs pretrain.dagger: true"):
        parse_train_config({**base, "pretrain": {"teacher": "greedy", "dagger_after": 4}})
    with pytest.raises(ConfigError, match="dagger_after=10 leaves no DAgger games"):
        parse_train_config({**base, "pretrain": {"teacher": "greedy", "games": 10, "dagger": True,
                                                 "dagger_after": 10}})


def test_pretraining_learning_rate_schedule():
    """pretrain.final_learning_rate: linear from learning_rate (first chunk) to it (last
    chunk); without it the rate stays; it must be a positive rate."""
    from braincards.training.learning.pretrain import _learning_rate

    base = {"game": "the_brain", "env": {"num_players": 2}, "total_timesteps": 64}
    p = parse_train_config({**base, "pretrain": {"teacher": "greedy", "games": 10, "chunk_games": 2,
                                                 "learning_rate": 1e-3, "final_learning_rate": 1e-4}}).pretrain
    assert [round(_learning_rate(p, done), 6) for done in (0, 4, 8)] == [1e-3, 5.5e-4, 1e-4]
    flat = parse_train_config({**base, "pretrain": {"teacher": "greedy", "learning_rate": 3e-4}}).pretrain
    assert _learning_rate(flat, 0) == _learning_rate(flat, 400) == 3e-4
    with pytest.raises(ConfigError, match="final_learning_rate"):
        parse_train_config({**base, "pretrain": {"teacher": "greedy", "final_learning_rate": 0}})


def test_init_from_warm_starts_the_network_at_another_table(tmp_path):
    """``backend.init_from``: a checkpoint trained at 2 players starts a 3-player run; the new run's
    first evaluation sees its weights (not a fresh network), its optimizer and timesteps start
    afresh, and the config records where it started."""
    base = {"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64, "n_envs": 2,
            "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1, "learning_rate": 1e-12},
            "evaluation": {"every": 64, "games": 2}}
    train(parse_train_config(base), tmp_path / "a", progress=False, log=_quiet)
    start = read_checkpoint(tmp_path / "a" / "last")[1]
    warm = parse_train_config({**base, "env": {"num_players": 3}, "backend": {"init_from": str(tmp_path / "a" / "last")}})
    logs: list = []
    train(warm, tmp_path / "b", progress=False, log=logs.append)
    assert any(line.startswith(f"warm start from {tmp_path / 'a' / 'last'}") for line in logs)
    meta = read_metadata(tmp_path / "b" / "last")
    assert meta["timesteps"] == 64 and meta["training"]["backend"]["init_from"] == str(tmp_path / "a" / "last")
    history = json.loads((tmp_path / "b" / "evaluations.json").read_text())["history"]
    assert [h["timesteps"] for h in history] == [0, 64]  # the warm start is evaluated first
    after = read_checkpoint(tmp_path / "b" / "last")[1]
    # a learning rate of 1e-12 barely moves the weights: they are the warm start's
    assert all(torch.allclose(start[k], after[k], atol=1e-6) for k in start)
    cold = read_checkpoint(_train_cold(base, tmp_path))[1]
    assert any(not torch.allclose(start[k], cold[k], atol=1e-3) for k in start)


def test_evaluations_play_the_float32_network_of_a_bfloat16_run(tmp_path, monkeypatch):
    """policy.precision bfloat16 trains under autocast in training mode, and a warm-started
    model is in training mode until PPO's first rollout. Its evaluations - inline, and the
    copy that backend.background_evaluation sends to its process - must still play the float32
    network that is saved and loaded back, so the warm start's evaluation is the loaded
    checkpoint's."""
    from braincards.training.agents.layers import BFloat16TrainingExtractor
    from braincards.training.learning import evaluators, sb3
    from braincards.training.learning.schedule import _evaluator_setup, run_evaluation

    base = {"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64, "n_envs": 2,
            "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1},
            "evaluation": {"every": 64, "games": 4}}
    train(parse_train_config(base), tmp_path / "a", progress=False, log=_quiet)
    warm = parse_train_config({**base, "backend": {"precision": "bfloat16", "init_from": str(tmp_path / "a" / "last")}})
    modes: list = []
    real = evaluators.run_evaluation
    monkeypatch.setattr(evaluators, "run_evaluation", lambda policy, *a, **k: modes.append(policy.network.training)
                        or real(policy, *a, **k))
    train(warm, tmp_path / "b", progress=False, log=_quiet)
    assert modes == [False, False]  # the warm start and the last update, in evaluation mode
    history = json.loads((tmp_path / "b" / "evaluations.json").read_text())["history"]
    assert {"timesteps": 0, **run_evaluation(load_policy(tmp_path / "a" / "last", name="learner"), warm)} == history[0]
    model = sb3.build_model(warm, sb3.make_vec_env(warm), None)
    sb3.warm_start(model, warm)
    assert model.policy.training and isinstance(model.policy.mlp_extractor, BFloat16TrainingExtractor)
    _, policy, _ = _evaluator_setup(warm, model.policy, sb3.learner_metadata(model, warm), 1)
    assert policy.network.training is False


def _train_cold(base: dict, tmp_path: Path) -> Path:
    cfg = parse_train_config({**base, "env": {"num_players": 3}, "seed": 1})
    train(cfg, tmp_path / "cold", progress=False, log=_quiet)
    return tmp_path / "cold" / "last"


def test_init_from_refuses_what_does_not_fit(tmp_path):
    base = {"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64, "n_envs": 2,
            "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1}, "evaluation": {"every": 64, "games": 2}}
    with pytest.raises(CheckpointError, match="backend.init_from the_brain/no_such: no such checkpoint"):
        train(parse_train_config({**base, "backend": {"init_from": "the_brain/no_such"}}), tmp_path / "x", progress=False,
              log=_quiet)
    with pytest.raises(CheckpointError, match="backend.init_from oh_my_brain/ppo_2p was trained for oh_my_brain_v0"):
        train(parse_train_config({**base, "backend": {"init_from": "oh_my_brain/ppo_2p"}}), tmp_path / "y", progress=False,
              log=_quiet)
    with pytest.raises(CheckpointError, match="its network .* differs from the config"):
        train(parse_train_config({**base, "backend": {"init_from": "the_brain/ppo_2p"}}), tmp_path / "z", progress=False,
              log=_quiet)


SB3_ONLY = {"init_from": "the_brain/ppo_2p", "sparse_input": True, "precision": "bfloat16", "fused_adam": True,
            "target_kl": 0.02, "background_evaluation": True}


@pytest.mark.parametrize("key, value", sorted(SB3_ONLY.items()))
def test_an_sb3_option_is_an_unknown_key_of_the_rllib_backend(key, value):
    """issue 39: a backend's options are valid in that backend only; the RLlib trainer can no
    longer be handed an SB3 option it would ignore (target_kl was ignored before)."""
    base = {"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64}
    assert parse_train_config({**base, "backend": {key: value}}).backend.name == "sb3"
    with pytest.raises(ConfigError, match=rf"backend\.{key}: unknown key for backend rllib; allowed keys here: "
                       r"\['address', 'name', 'num_env_runners', 'num_learners', 'train_batch_size'\]"):
        parse_train_config({**base, "backend": {"name": "rllib", key: value}})


def test_an_rllib_option_is_an_unknown_key_of_the_sb3_backend():
    base = {"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64}
    cfg = parse_train_config({**base, "backend": {"name": "rllib", "num_env_runners": 4, "address": "auto"}})
    assert (cfg.backend.name, cfg.backend.num_env_runners, cfg.backend.address) == ("rllib", 4, "auto")
    with pytest.raises(ConfigError, match="backend.num_env_runners: unknown key for backend sb3"):
        parse_train_config({**base, "backend": {"num_env_runners": 4}})
    with pytest.raises(ConfigError, match="backend: Input tag 'ray' found using 'name' does not match"):
        parse_train_config({**base, "backend": {"name": "ray"}})
    with pytest.raises(ConfigError, match="policy.kind 'event_reader' trains with the sb3 backend only"):
        parse_train_config({"game": "brilliant_boar_v0", "env": {"num_players": 2}, "total_timesteps": 64,
                            "history_k": 4, "policy": {"kind": "event_reader"}, "backend": {"name": "rllib"}})


@pytest.mark.parametrize("old, where", [
    ({"policy": {"sparse_input": True}}, "policy.sparse_input is now backend.sparse_input"),
    ({"policy": {"precision": "bfloat16"}}, "policy.precision is now backend.precision"),
    ({"ppo": {"fused_adam": True}}, "ppo.fused_adam is now backend.fused_adam"),
    ({"ppo": {"target_kl": 0.02}}, "ppo.target_kl is now backend.target_kl"),
    ({"evaluation": {"background": True}}, "evaluation.background is now backend.background_evaluation"),
    ({"init_from": "the_brain/ppo_2p"}, "init_from is now backend.init_from"),
    ({"rllib": {"num_env_runners": 2}}, r"rllib\.\* is now backend\.\* \(with backend.name: rllib\)"),
])
def test_a_config_file_in_the_old_layout_is_told_where_each_key_moved(old, where):
    base = {"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64}
    with pytest.raises(ConfigError, match=where):
        parse_train_config({**base, **old})


def test_stored_configs_of_the_old_layout_are_upgraded():
    """A checkpoint written before the backend section stores the old layout; upgrade_training
    reads it into today's, for both trainers, without changing its input."""
    base = {"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64}
    old_sb3 = {**base, "init_from": "the_brain/ppo_2p", "policy": {"net_arch": [64], "sparse_input": True,
                                                                  "precision": "bfloat16"},
               "ppo": {"n_steps": 32, "batch_size": 32, "fused_adam": True, "target_kl": None},
               "evaluation": {"games": 2, "background": True},
               "rllib": {"num_env_runners": 1, "num_learners": 0, "address": None, "train_batch_size": None}}
    kept = json.dumps(old_sb3, sort_keys=True)
    cfg = parse_train_config(upgrade_training(old_sb3))
    assert json.dumps(old_sb3, sort_keys=True) == kept
    assert cfg == parse_train_config({**base, "policy": {"net_arch": [64]}, "ppo": {"n_steps": 32, "batch_size": 32},
                                      "evaluation": {"games": 2},
                                      "backend": {"init_from": "the_brain/ppo_2p", "sparse_input": True,
                                                  "precision": "bfloat16", "fused_adam": True,
                                                  "background_evaluation": True}})
    old_rllib = {**base, "backend": "rllib", "policy": {"sparse_input": False}, "ppo": {"fused_adam": False},
                 "rllib": {"num_env_runners": 3, "num_learners": 1, "address": "auto", "train_batch_size": 64}}
    cfg = parse_train_config(upgrade_training(old_rllib))
    assert cfg.backend == RLlibBackend(name="rllib", num_env_runners=3, num_learners=1, address="auto",
                                       train_batch_size=64)
    assert upgrade_training(config_dict(cfg)) == config_dict(cfg)  # today's layout is left as it is
    assert stored_train_config({"training": old_sb3}) == parse_train_config(upgrade_training(old_sb3))


def test_each_trainer_refuses_the_other_backends_config(tmp_path):
    base = {"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64}
    with pytest.raises(ValueError, match="this is the sb3 trainer; the config names backend 'rllib'"):
        train(parse_train_config({**base, "backend": {"name": "rllib"}}), tmp_path / "x", progress=False,
              log=_quiet)


def test_the_backend_option_switches_a_config_with_no_sb3_only_key(tmp_path, capsys, monkeypatch):
    """--backend rllib sets backend.name; a config that holds an SB3-only key is refused with
    that key named (no Ray needed: the config is refused before the trainer starts)."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text("game: the_brain\nenv: {num_players: 2}\ntotal_timesteps: 64\n"
                   "backend: {fused_adam: true}\n")
    assert main(["train", str(cfg), "--out", str(tmp_path / "o"), "--quiet", "--backend", "rllib"]) == 2
    assert "backend.fused_adam: unknown key for backend rllib" in capsys.readouterr().err


def test_a_run_reads_each_checkpoint_back_after_writing_it(tmp_path, monkeypatch):
    """issue 44: a resumed step of 1e308 made a run write a `last` its own loader refused, and
    the run exited 0. Every checkpoint a run writes is now read back as its loader will: one
    that would be refused stops the run there."""
    from braincards.training.learning import sb3

    real = sb3.save_checkpoint

    def broken(model, path, *args, **kwargs):
        real(model, path, *args, **kwargs)
        if Path(path).name == "last":  # a save the loader will refuse
            meta = json.loads(Path(f"{path}.json").read_text())
            meta["history_k"] = -1
            Path(f"{path}.json").write_text(json.dumps(meta))

    monkeypatch.setattr(sb3, "save_checkpoint", broken)
    cfg = parse_train_config({"game": "the_brain_v0", "env": {"num_players": 2}, "total_timesteps": 64, "n_envs": 2,
                              "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1},
                              "evaluation": {"every": 64, "games": 2}})
    with pytest.raises(CheckpointError, match="last"):
        train(cfg, tmp_path / "x", progress=False, log=_quiet)
