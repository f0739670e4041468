"""The built wheel holds every sub-package under the braincards namespace and installs
no top-level ``envs`` or ``training`` module (DESIGN: users' repos have such folders)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def _packages_in_tree(folder: str, prefix: str) -> set[str]:
    return {
        prefix + "".join("." + part for part in p.parent.relative_to(ROOT / folder).parts)
        for p in (ROOT / folder).rglob("__init__.py")
        if "__pycache__" not in p.parts
    }


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    build_dir = tmp_path_factory.mktemp("build")
    # setuptools builds in the source tree (build/, *.egg-info): a copy of it, so that two
    # test workers building at once (each runs this fixture) cannot break each other's build
    source = build_dir / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".*-venv", "build", "runs", "site", "*.egg-info", "__pycache__"))
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-v", "-w", str(out), str(source)],
        check=True, cwd=build_dir, capture_output=True, text=True,
    )
    (found,) = out.glob("braincards-*.whl")
    BUILD_OUTPUT[:] = [result.stdout + result.stderr]
    return found


BUILD_OUTPUT: list[str] = []


def test_the_build_prints_no_warning_about_our_packaging(wheel):
    """issue 20: `make install` printed 7 setuptools warnings from our own pyproject (the
    deprecated license table; "package would be ignored" for the checkpoint folders)."""
    (output,) = BUILD_OUTPUT
    ours = [line.strip() for line in output.splitlines()
            if "Warning" in line or "would be ignored" in line or "deprecated" in line]
    assert not ours, "\n".join(ours)


def test_wheel_holds_every_sub_package_and_no_top_level_envs_or_training(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    packages = {n.rsplit("/", 1)[0].replace("/", ".") for n in names if n.endswith("/__init__.py")}
    expected = (_packages_in_tree("envs", "braincards.envs") | _packages_in_tree("training", "braincards.training")
                | _packages_in_tree("checkpoints", "braincards.checkpoints"))
    assert expected <= packages, f"missing from the wheel: {sorted(expected - packages)}"
    # the best checkpoint of each table, and no other (the others load from the repository)
    best = set(yaml.safe_load((ROOT / "configs" / "experiments.yaml").read_text())["wheel"].values())
    wanted = {f"braincards/checkpoints/{name}{suffix}" for name in best for suffix in (".zip", ".json")}
    packed = {n for n in names if n.startswith("braincards/checkpoints/") and n.endswith((".zip", ".json"))}
    assert packed == wanted, f"missing {sorted(wanted - packed)}, not the best of a table {sorted(packed - wanted)}"
    tops = {n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith(".dist-info")}
    assert tops == {"braincards"}, f"top-level entries: {sorted(tops)}"
    assert not any(n.startswith(("envs/", "training/")) for n in names)
    assert "braincards/__init__.py" not in names  # a namespace package: no folder of its own
    top_level = [n for n in names if n.endswith("top_level.txt")]
    for n in top_level:
        assert zipfile.ZipFile(wheel).read(n).decode().split() == ["braincards"]
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "braincards = braincards.training.cli.launch:main" in zipfile.ZipFile(wheel).read(entry).decode()


def test_the_wheel_stays_under_30_mb(wheel):
    """Package indexes refuse uploads over 100 MB by default; the wheel held all 32
    checkpoints (116 MiB), then the best of each table (45 MiB), and now their play-only
    copies (the actor without the critic or the optimizer state: 21 MiB)."""
    assert wheel.stat().st_size < 30_000_000, f"{wheel.stat().st_size / 1e6:.1f} MB"


def test_the_wheels_checkpoints_are_play_only_copies_of_the_repositorys(wheel, tmp_path):
    """Each shipped checkpoint is the play-only copy of the repository's, made at build time:
    marked so, pointing at the full archive it came from, and matching its own archive."""
    with zipfile.ZipFile(wheel) as zf:
        for name in SHIPPED:
            meta = json.loads(zf.read(f"braincards/checkpoints/{name}.json"))
            archive = zf.read(f"braincards/checkpoints/{name}.zip")
            full = (ROOT / "checkpoints" / f"{name}.zip").read_bytes()
            assert meta["play_only"] is True, name
            assert meta["full_archive_sha256"] == hashlib.sha256(full).hexdigest(), name
            assert meta["archive_sha256"] == hashlib.sha256(archive).hexdigest(), name
            assert len(archive) < len(full), name


def test_the_wheel_ships_every_config_by_name(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for path in (ROOT / "configs").glob("*/*.yaml"):
        assert f"braincards/configs/{path.relative_to(ROOT / 'configs').as_posix()}" in names, path


def test_wheel_installs_and_imports_without_top_level_names(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
    )
    assert not (target / "envs").exists() and not (target / "training").exists()
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); "
        "import braincards.envs as e; assert e.__file__.startswith(sys.argv[1]), e.__file__; "
        "from braincards.envs import make; env = make('the_brain_v0'); env.reset(seed=0); print('ok')"
    )
    # run from an empty folder with only the target on the path (no source checkout)
    result = subprocess.run(
        [sys.executable, "-I", "-c", code, str(target)], capture_output=True, text=True, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_environments_import_nothing_from_the_train_extra():
    code = (
        "import sys, braincards.envs as e\n"
        "for name in e.ENVS: e.make(name).reset(seed=0)\n"
        "import gymnasium; gymnasium.make('braincards/TheBrainSolo-v0').reset(seed=0)\n"
        "train = ('torch', 'stable_baselines3', 'sb3_contrib', 'yaml', 'tensorboard', 'tqdm',\n"
        "         'rich', 'matplotlib', 'openskill')\n"
        "print(sorted(m for m in train if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


# the checkpoints the wheel ships: the best of each table (the others load from the repository)
SHIPPED = sorted(set(yaml.safe_load((ROOT / "configs" / "experiments.yaml").read_text())["wheel"].values()))


@pytest.mark.skipif(not SHIPPED, reason="no checkpoint shipped in checkpoints/")
def test_shipped_checkpoints_load_by_name_from_the_installed_wheel(wheel, tmp_path):
    """A name like the_brain/ppo_2p_longer resolves to the installed package's own file, from
    any folder (here an empty one, with no checkpoints/ of its own)."""
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
    )
    code = (
        "import sys, json; sys.path.insert(0, sys.argv[1]); "
        "from braincards.training.agents.specs import make_policy; from braincards.training.agents.locations import resolve_checkpoint; "
        "out = {}\n"
        "for name in sys.argv[2:]:\n"
        "    path = resolve_checkpoint(name); assert str(path).startswith(sys.argv[1]), path\n"
        "    meta = make_policy(name, json.load(open(str(path) + '.json'))['game']).metadata\n"
        "    out[name] = meta['game']\n"
        "print(len(out))"
    )
    result = subprocess.run([sys.executable, "-I", "-c", code, str(target), *SHIPPED],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(len(SHIPPED))


def _run(argv: list, cwd, timeout: int = 600, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, **kwargs)
    assert result.returncode == 0, f"{argv}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def test_a_fresh_venv_with_the_wheel_trains_evaluates_and_serves(wheel, tmp_path):
    """A user's install: the wheel with its train and web extras in a new venv (the pinned CPU
    torch first, as the Makefile does), used from an empty folder: a short run of a shipped
    recipe by name, an evaluation of a shipped checkpoint, and the web app's page and assets."""
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    _run([*pip, "torch==2.13.0"], tmp_path, timeout=900)
    _run([*pip, f"{wheel}[train,web]", "torch==2.13.0"], tmp_path, timeout=900)
    cli, work = str(venv / "bin" / "braincards"), tmp_path / "empty"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "BRAINCARDS_CHECKPOINTS")}
    _run([cli, "train", "the_brain/train_3p_quick", "--out", "run", "--quiet", "--timesteps", "512",
          "--set", "pretrain.games=20", "--set", "pretrain.chunk_games=10", "--set", "evaluation.games=4",
          "--set", "evaluation.every=512", "--set", "n_envs=2", "--set", "ppo.n_steps=128",
          "--set", "ppo.batch_size=128", "--set", "ppo.n_epochs=1"], work, env=env)
    assert (work / "run" / "last.zip").is_file() and (work / "run" / "best.json").is_file()
    seat = ["--seat", "the_brain/ppo_3p_big_clone_long"]
    evaluated = _run([cli, "evaluate", "the_brain_v0", *seat, *seat, *seat, "--set", "difficulty=robber",
                      "--games", "4", "--seed", "1", "--json", "e.json", "--quiet"], work, env=env)
    assert json.loads((work / "e.json").read_text())["games"] == 4, evaluated.stdout
    _serve_page_and_assets(cli, work, env)


def _serve_page_and_assets(cli: str, work, env: dict) -> None:
    import socket
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([cli, "serve", "--port", str(port)], cwd=work, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline, page = time.monotonic() + 120, None
        while page is None and time.monotonic() < deadline and server.poll() is None:
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read().decode()
            except OSError:
                time.sleep(0.5)
        assert page is not None, server.stdout.read() if server.poll() is not None else "no answer in 120 s"
        assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', page)
        assert assets, page[:500]
        for asset in assets:
            assert urllib.request.urlopen(f"http://127.0.0.1:{port}{asset}", timeout=5).status == 200, asset
    finally:
        server.terminate()
        server.wait(timeout=30)
