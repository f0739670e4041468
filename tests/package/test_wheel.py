"""The built wheel holds every sub-package under the braincards namespace and installs
no top-level ``envs`` or ``training`` module (DESIGN: users' repos have such folders)."""

from __future__ import annotations

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
    assert "braincards = braincards.training.cli.main:main" in zipfile.ZipFile(wheel).read(entry).decode()


def test_the_wheel_stays_under_the_upload_limit(wheel):
    """Package indexes refuse uploads over 100 MB by default; the wheel held all 32
    checkpoints (116 MiB) before it shipped only the best of each table."""
    assert wheel.stat().st_size < 60 * 2**20, f"{wheel.stat().st_size / 2**20:.1f} MiB"


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
