"""Hardening, round two (issue 20): atomic checkpoint saves, a pair that does not match,
hostile checkpoint JSON, overflowing weights, optimizer state types, the API path without a
game, and the warning for a checkpoint seated at a table it was not trained for.

Every test here fails on the code before issue 20."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import time
import warnings
import zipfile

import pytest
import torch

from braincards.training import files
from braincards.training.agents.checkpoint import (
    MAX_JSON_BYTES,
    CheckpointConfigWarning,
    CheckpointError,
    load_optimizer_state,
    read_checkpoint,
    read_metadata,
    write_checkpoint,
)
from braincards.training.agents.network import load_policy
from braincards.training.agents.specs import make_policy
from braincards.training.cli.main import main

from .test_checkpoint import _copy, _rewrite_tensors, reseal


def _meta(ck):
    return json.loads(ck.with_suffix(".json").read_text())


def _set_meta(ck, meta):
    ck.with_suffix(".json").write_text(json.dumps(meta))


# ---------------------------------------------------------------------------- atomic files
def test_atomic_write_leaves_the_old_file_when_the_writer_fails(tmp_path):
    target = tmp_path / "out" / "evaluations.json"
    files.write_json(target, {"old": 1})

    class Boom(Exception):
        pass

    with pytest.raises(Boom), files.atomic_open(target) as fh:
        fh.write('{"new": ')
        raise Boom
    assert json.loads(target.read_text()) == {"old": 1}
    assert [p.name for p in target.parent.iterdir()] == ["evaluations.json"]  # no temp left
    files.write_json(target, {"new": 2})
    assert json.loads(target.read_text()) == {"new": 2}
    with pytest.raises(ValueError, match="mode must be"):
        files.atomic_open(target, "a").__enter__()


def test_checkpoint_metadata_records_its_archive(tmp_path, tiny_checkpoint):
    meta = _meta(tiny_checkpoint)
    digest = hashlib.sha256(tiny_checkpoint.with_suffix(".zip").read_bytes()).hexdigest()
    assert meta["archive_sha256"] == digest


def test_an_archive_from_another_save_is_refused_naming_both_files(tmp_path, tiny_checkpoint, tiny_model):
    """What a save killed between its two renames leaves: a new archive, old metadata."""
    ck = _copy(tiny_checkpoint, tmp_path / "the_brain" / "mixed")
    sd = {k: v + 0.01 for k, v in tiny_model.policy.state_dict().items()}
    other = tmp_path / "other"
    write_checkpoint(other, game="the_brain_v0", env_config={"num_players": 1}, algo="MaskablePPO",
                     policy=_meta(tiny_checkpoint)["policy"], state_dict=sd, timesteps=1)
    ck.with_suffix(".zip").write_bytes(other.with_suffix(".zip").read_bytes())
    with pytest.raises(CheckpointError, match=r"mixed\.zip does not match its metadata .*mixed\.json"):
        load_policy(ck)


@pytest.mark.parametrize("missing", [".zip", ".json"])
def test_half_a_checkpoint_names_both_files(tmp_path, tiny_checkpoint, missing):
    ck = _copy(tiny_checkpoint, tmp_path / "half")
    ck.with_suffix(missing).unlink()
    with pytest.raises(CheckpointError, match=rf"incomplete: .*half\{missing} does not exist.*half\.zip \+ .*half\.json"):
        load_policy(ck)


# ---------------------------------------------------------------------------- hostile JSON
def test_deeply_nested_metadata_is_refused_without_recursion_error(tmp_path, tiny_checkpoint):
    ck = _copy(tiny_checkpoint, tmp_path / "deep")
    meta = _meta(ck)
    text = json.dumps(meta)[:-1] + ', "junk": ' + "[" * 100_000 + "]" * 100_000 + "}"
    ck.with_suffix(".json").write_text(text)
    with pytest.raises(CheckpointError, match="nested deeper than"):
        read_metadata(ck)
    meta["training"] = {"a": {"b": {}}}
    node = meta["training"]
    for _ in range(40):  # parseable, but past the depth limit
        node["x"] = {}
        node = node["x"]
    _set_meta(ck, meta)
    with pytest.raises(CheckpointError, match="nested deeper than 32 levels"):
        read_metadata(ck)


def test_oversized_metadata_is_refused(tmp_path, tiny_checkpoint):
    ck = _copy(tiny_checkpoint, tmp_path / "big")
    meta = _meta(ck)
    meta["training"] = {"padding": "x" * MAX_JSON_BYTES}
    _set_meta(ck, meta)
    with pytest.raises(CheckpointError, match="byte limit"):
        read_metadata(ck)


def _edit_members(ck, edit) -> None:
    """Rewrite a checkpoint's archive with ``edit(members)`` (a list of (name, bytes)) and
    record its digest, as one who edits both files would."""
    zp = ck.with_suffix(".zip")
    with zipfile.ZipFile(zp) as zf:
        members = [(n, zf.read(n)) for n in zf.namelist()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about a duplicate name it writes
        with zipfile.ZipFile(zp, "w") as zf:
            for n, b in edit(members):
                zf.writestr(n, b)
    reseal(ck)


def test_deeply_nested_optimizer_json_is_refused(tmp_path, tiny_checkpoint):
    ck = _copy(tiny_checkpoint, tmp_path / "deepopt")
    nested = b"[" * 200_000 + b"]" * 200_000
    _edit_members(ck, lambda members: [(n, nested if n == "optimizer.json" else b) for n, b in members])
    with pytest.raises(CheckpointError, match="optimizer.json is nested deeper"):
        read_checkpoint(ck, optimizer=True)


def test_a_repeated_metadata_key_is_refused(tmp_path, tiny_checkpoint):
    """issue 44: duplicate JSON keys were accepted and the last one won."""
    ck = _copy(tiny_checkpoint, tmp_path / "twice")
    text = ck.with_suffix(".json").read_text()
    ck.with_suffix(".json").write_text(text.rstrip()[:-1].rstrip() + ', "game": "oh_my_brain_v0"}')
    with pytest.raises(CheckpointError, match="repeats the key 'game'"):
        read_metadata(ck)


def test_a_repeated_archive_member_is_refused(tmp_path, tiny_checkpoint):
    """issue 44: a zip holding policy.safetensors twice was read, the last copy winning."""
    ck = _copy(tiny_checkpoint, tmp_path / "twice")
    _edit_members(ck, lambda members: members + members[:1])
    with pytest.raises(CheckpointError, match=r"holds \['policy.safetensors'\] more than once"):
        read_checkpoint(ck)


@pytest.mark.parametrize("policy, message", [
    ({"class": "RecurrentActorCriticPolicy",
      "kwargs": {"lstm_hidden_size": 4096, "n_lstm_layers": 8, "net_arch": [4096] * 8}}, "over the 50,000,000"),
    ({"class": "MaskableActorCriticPolicy", "kwargs": {"net_arch": [4096] * 8}}, "over the 50,000,000"),
    ({"class": "MaskableActorCriticPolicy", "kwargs": {"net_arch": [1024, 1024]}},
     "the description and the weights do not match"),
])
def test_a_giant_network_description_is_refused_before_it_is_built(tmp_path, tiny_checkpoint, monkeypatch,
                                                                    policy, message):
    """issue 44: a NAME.json declaring the largest allowed network made the loader build it
    (66 s and 9.2 GiB of RSS) before comparing tensor shapes. The description is weighed
    against a budget and against the archive's weights first: nothing is built."""
    from braincards.training.agents import checkpoint_checks

    ck = _copy(tiny_checkpoint, tmp_path / "giant")
    meta = _meta(ck)
    meta["policy"] = policy
    _set_meta(ck, meta)
    for cls in checkpoint_checks.POLICY_CLASSES.values():
        monkeypatch.setattr(cls, "__init__", lambda *a, **k: pytest.fail("a network was built"))
    with pytest.raises(CheckpointError, match=message):
        load_policy(ck)


# ---------------------------------------------------------------------------- weights
def test_weights_that_overflow_are_refused_at_load(tmp_path, tiny_checkpoint):
    """All-3e38 weights are finite, but the network's outputs are not."""
    ck = _copy(tiny_checkpoint, tmp_path / "huge")

    def blow_up(t):
        for v in t.values():
            v.fill_(3e38)

    _rewrite_tensors(ck, blow_up)
    with pytest.raises(CheckpointError, match="huge.zip.*zero observation"):
        load_policy(ck)


def _relu_of_huge_weights(tmp_path, tiny_checkpoint):
    ck = _copy(tiny_checkpoint, tmp_path / "relu")

    def huge(t):
        for name, v in t.items():
            v.fill_(0.0 if name.endswith("bias") else 1e20)

    _rewrite_tensors(ck, huge)
    meta = _meta(ck)
    meta["policy"]["kwargs"]["activation_fn"] = "relu"
    _set_meta(ck, meta)
    return ck


def test_the_load_check_plays_real_observations(tmp_path, tiny_checkpoint):
    """issue 44: a relu network with weights of 1e20 and zero biases passed the load check,
    which fed it the all-zero observation only (its logits are 0 there), but gives NaN logits
    on every real observation. The check also feeds observations of seeded play at the
    checkpoint's own table."""
    from braincards.training.agents.checkpoint_checks import probe_observations

    with pytest.raises(CheckpointError, match="observations of seeded play (are not finite|is not a distribution)"):
        load_policy(_relu_of_huge_weights(tmp_path, tiny_checkpoint))
    meta = _meta(tiny_checkpoint)
    seen = probe_observations(meta["game"], json.dumps(meta["env_config"], sort_keys=True), 0)
    again = probe_observations.__wrapped__(meta["game"], json.dumps(meta["env_config"], sort_keys=True), 0)
    assert seen.shape == (17, *meta["observation_shape"]) and (seen == again).all()  # the same set every time
    assert not seen[0].any() and all(row.any() for row in seen[1:])


def test_non_finite_logits_at_play_raise_instead_of_playing_the_first_action(tiny_checkpoint):
    """issue 44: a network whose logits are NaN on an observation played the first legal
    action (deterministic) or stopped inside numpy (stochastic); it raises naming the policy."""
    from braincards.envs import make

    meta = _meta(tiny_checkpoint)
    env = make(meta["game"], **meta["env_config"])
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    for deterministic in (True, False):
        policy = load_policy(tiny_checkpoint, deterministic=deterministic)
        policy.network = copy.deepcopy(policy.network)  # loaded networks are shared: break a copy
        with torch.no_grad():
            for p in policy.network.parameters():
                p.fill_(float("nan"))  # broken after the load check
        with pytest.raises(ValueError, match="gives non-finite logits .* its weights are broken"):
            policy.act(obs)


def _first(tensors: dict, name: str) -> str:
    return next(k for k in sorted(tensors) if k.endswith("." + name))


@pytest.mark.parametrize("edit, message", [
    (lambda t, js: t.update({_first(t, "exp_avg"): torch.zeros(3)}), r"exp_avg is \(3,\) torch.float32, the parameter"),
    (lambda t, js: t.pop(_first(t, "exp_avg_sq")), r"has \['exp_avg', 'step'\]; Adam's are"),
    (lambda t, js: t.update({_first(t, "exp_avg"): t[_first(t, "exp_avg")] * float("nan")}), "exp_avg holds non-finite"),
    (lambda t, js: t.update({_first(t, "exp_avg_sq"): -t[_first(t, "exp_avg_sq")] - 1}), "exp_avg_sq holds non-finite or negative"),
    (lambda t, js: t.update({_first(t, "step"): torch.tensor(-5.0)}), r"step=-5.0 is not a whole number"),
    (lambda t, js: t.update({_first(t, "step"): torch.tensor(1e308, dtype=torch.float64)}), "step=1e\\+308 is not a whole"),
    (lambda t, js: t.update({_first(t, "step"): torch.tensor(2.5)}), r"step=2.5 is not a whole number"),
    (lambda t, js: t.update({"state.999.step": torch.tensor(1.0)}), "parameter 999: the optimizer has"),
    (lambda t, js: js.setdefault("scalars", {}).update({"0.step": 1e308}), "step=1e\\+308 is not a whole"),
])
def test_every_field_of_a_resumed_optimizer_state_is_checked(tiny_checkpoint, tiny_model, edit, message):
    """issue 44: a wrong-shape exp_avg, a missing exp_avg_sq or a negative step ended in a
    traceback, and a step of 1e308 was accepted (the run then wrote a `last` its own loader
    refused). Each is a CheckpointError naming the field, before anything is loaded."""
    _, _, (tensors, js) = read_checkpoint(tiny_checkpoint, optimizer=True)
    tensors, js = dict(tensors), json.loads(json.dumps(js))
    edit(tensors, js)
    optimizer = torch.optim.Adam(tiny_model.policy.parameters())
    before = {k: v.clone() for k, v in optimizer.state_dict()["state"].items()} if optimizer.state else {}
    with pytest.raises(CheckpointError, match=message):
        load_optimizer_state(optimizer, (tensors, js), "test")
    assert not optimizer.state and not before  # nothing was loaded


def test_a_resumed_optimizer_state_that_fits_loads(tiny_checkpoint, tiny_model):
    _, _, parts = read_checkpoint(tiny_checkpoint, optimizer=True)
    optimizer = torch.optim.Adam(tiny_model.policy.parameters())
    load_optimizer_state(optimizer, parts, "test")
    assert len(optimizer.state) == len(parts[0]) // 3


# ---------------------------------------------------------------------------- API path
@pytest.mark.parametrize("key, value, message", [
    ("action_n", 10**100, r"action_n 1000+\.\.\.0+ \(not an integer in 1\.\.65536\)"),
    ("game", "x" * 100_000, r"game 'x+\.\.\.x+' \(not a braincards game"),
    ("observation_shape", [10**12], r"observation_shape \[1000000000000\]"),
    ("game", "chess_v0", "'chess_v0' .*not a braincards game"),
])
def test_load_policy_without_a_game_bounds_the_metadata(tmp_path, tiny_checkpoint, key, value, message):
    ck = _copy(tiny_checkpoint, tmp_path / "api")
    meta = _meta(ck)
    meta[key] = value
    _set_meta(ck, meta)
    with pytest.raises(CheckpointError, match=message) as info:
        load_policy(ck)
    assert len(str(info.value)) < 1000  # a hostile value never makes a huge message


def test_load_policy_without_a_game_checks_the_spaces_of_its_own_game(tmp_path, tiny_checkpoint):
    ck = _copy(tiny_checkpoint, tmp_path / "api")
    meta = _meta(ck)
    meta["action_n"] += 1  # in bounds, but not The Brain's action space
    _set_meta(ck, meta)
    with pytest.raises(CheckpointError, match="does not fit the_brain_v0"):
        load_policy(ck)


def test_shipped_names_stay_inside_their_folder():
    with pytest.raises(Exception, match="no checkpoint|not found|unknown"):
        make_policy("the_brain/../../../tmp/x", "the_brain_v0")
    assert load_policy("the_brain/ppo_3p").metadata["game"] == "the_brain_v0"


# ---------------------------------------------------------------------------- other tables
def test_a_checkpoint_at_a_table_it_was_not_trained_for_warns():
    with pytest.warns(CheckpointConfigWarning, match=r"ppo_solo.*num_players: trained 1, here 2; level: trained 1, here 4"):
        make_policy("brilliant_boar/ppo_solo", "brilliant_boar_v0", {"num_players": 2, "level": 4})
    with pytest.warns(CheckpointConfigWarning, match="num_players: trained 3, here 2"):
        make_policy("oh_my_brain/ppo_3p", "oh_my_brain_v0", {"num_players": 2})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # its own table (reward options aside): no warning
        make_policy("brilliant_boar/ppo_solo", "brilliant_boar_v0", {"num_players": 1, "level": 1})
        make_policy("oh_my_brain/ppo_3p", "oh_my_brain_v0", {"num_players": 3, "brain_shaping": 0.5})


def test_the_cli_warns_in_one_line_and_a_flag_silences_it(capsys):
    argv = ["evaluate", "oh_my_brain", "--seat", "oh_my_brain/ppo_3p", "--seat", "random",
            "--games", "2", "--quiet"]
    assert main(argv + ["--workers", "2"]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "trained for other options" in line]
    assert lines == ["braincards: warning: checkpoint oh_my_brain/ppo_3p was trained for other "
                     "options than this table's: num_players: trained 3, here 2"]
    assert main(argv + ["--no-config-warning"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_checkpoint_seated_with_no_table_options_brings_its_own_table(capsys, tmp_path):
    """Quiet defaults: no --config, --set or --players: the table takes the options the
    checkpoint was trained with, in one line; options that differ warn once per checkpoint,
    however many seats and tables it plays."""
    seats = ["--seat", "the_brain/ppo_3p"] * 3
    assert main(["evaluate", "the_brain", *seats, "--games", "2", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines() == ["braincards: the table takes the options the_brain/ppo_3p was trained with "
                                "(difficulty='robber'); set table options to choose others"]
    assert "difficulty=robber" in out.splitlines()[0]
    assert main(["evaluate", "the_brain", *seats, "--set", "difficulty=amateur", "--games", "2", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.splitlines() == ["braincards: warning: checkpoint the_brain/ppo_3p was trained for other options "
                                "than this table's: difficulty: trained 'robber', here 'amateur'"]
    # two checkpoints trained at different tables: the game's defaults, and each one's warning once
    assert main(["crossplay", "the_brain", "the_brain/ppo_3p", "the_brain/ppo_3p_cat_burglar", "--players", "3",
                 "--games", "1", "--quiet", "--out", str(tmp_path / "xp")]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warned) == 2 and "ppo_3p was" in warned[0] and "ppo_3p_cat_burglar was" in warned[1], warned


def test_the_benchmark_seats_a_checkpoint_at_its_suites_tables_without_warning(capsys, tmp_path):
    assert main(["benchmark", "oh_my_brain/ppo_3p", "--suite", "oh_my_brain-v1", "--games", "5",
                 "--quiet", "--out", str(tmp_path)]) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_save_cut_between_its_renames_loses_nothing(tmp_path, tiny_checkpoint, tiny_model, monkeypatch):
    """The archive is in place, the metadata's rename never happened: the reader finds the
    new metadata, complete under its temporary name."""
    meta = _meta(tiny_checkpoint)
    kwargs = dict(game="the_brain_v0", env_config={"num_players": 1}, algo="MaskablePPO",
                  policy=meta["policy"], timesteps=1)
    path = tmp_path / "cut"
    write_checkpoint(path, state_dict=tiny_model.policy.state_dict(), **kwargs)
    new = {k: v + 1.0 for k, v in tiny_model.policy.state_dict().items()}
    real, calls = files.os.replace, []

    def second_rename_fails(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise KeyboardInterrupt  # as if killed right there
        real(src, dst)

    monkeypatch.setattr(files.os, "replace", second_rename_fails)
    with pytest.raises(KeyboardInterrupt):
        write_checkpoint(path, state_dict=new, timesteps=2, **{k: v for k, v in kwargs.items() if k != "timesteps"})
    monkeypatch.undo()
    got, tensors, _ = read_checkpoint(path)
    assert got["timesteps"] == 2 and all(torch.equal(tensors[k], new[k]) for k in new)
    # without that temporary file the pair is refused, naming both files
    for tmp in tmp_path.glob(".cut.json.tmp-*"):
        tmp.unlink()
    with pytest.raises(CheckpointError, match=r"cut\.zip does not match its metadata .*cut\.json"):
        read_checkpoint(path)


def test_a_killed_saves_temporary_files_go_at_the_next_save(tmp_path):
    """issue 44: 46 kills left 12 temporary files (64 MB) in one run folder for ever. The
    next save of a file removes its stale temporaries; a young one (a save in progress) and
    other files' ones (maybe a save cut between its renames) stay."""
    stale = [tmp_path / f".last.zip{files.TEMP_MARK}{k}" for k in range(3)] + [tmp_path / f".last.json{files.TEMP_MARK}x"]
    young = tmp_path / f".last.zip{files.TEMP_MARK}young"
    other = tmp_path / f".best.json{files.TEMP_MARK}old"
    for path in [*stale, young, other]:
        path.write_bytes(b"half a save")
    for path in [*stale, other]:
        os.utime(path, (time.time() - 2 * files.STALE_S,) * 2)
    files.write_together([(tmp_path / "last.zip", b"zip"), (tmp_path / "last.json", b"{}")])
    assert not any(p.exists() for p in stale) and young.exists() and other.exists()
    files.write_text(tmp_path / "best.json", "{}")
    assert not other.exists()


def test_a_full_disk_names_the_file(tmp_path, monkeypatch):
    """issue 44: a disk-full save said '[Errno 28] No space left on device' and no file."""
    import errno

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    for write in (lambda: files.write_text(tmp_path / "evaluations.json", "{}"),
                  lambda: files.write_together([(tmp_path / "best.zip", b"z"), (tmp_path / "best.json", b"{}")])):
        with pytest.raises(OSError, match=r"No space left on device \(writing .*(evaluations\.json|best\.zip)\)") as err:
            write()
        assert err.value.errno == errno.ENOSPC and err.value.filename is not None
    assert not list(tmp_path.iterdir())  # no temporary file left behind


def _write(path, text):
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("make_argv", [
    lambda tmp, ck: ["train", _write(tmp / "syntax.yaml", "game: the_brain_v0\nenv: {num_players: 3\ntotal_timesteps: [1\n")],
    lambda tmp, ck: ["train", _write(tmp / "values.yaml", "game: the_brain_v0\ntotal_timesteps: -1\nn_envs: 0\n"
                                                         "ppo: {n_steps: 0, batch_size: x, gamma: 7, n_epochs: -2}\n")],
    lambda tmp, ck: ["evaluate", "the_brain", "--set", "num_players=1", "--seat", str(ck), "--games", "1"],
], ids=["yaml-syntax", "config-values", "weight-shapes"])
def test_every_cli_error_is_at_most_three_lines(tmp_path, tiny_checkpoint, capsys, make_argv):
    """issue 44: YAML syntax errors took 4-8 lines, config validation 2-3 and a weight-shape
    mismatch up to 32."""
    ck = _copy(tiny_checkpoint, tmp_path / "shapes")

    def shrink(t):
        for name in list(t)[:3]:
            t[name] = torch.zeros(2, 2)

    _rewrite_tensors(ck, shrink)
    assert main(make_argv(tmp_path, ck)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith("braincards: error:") and 1 <= len(err) <= 3, err
