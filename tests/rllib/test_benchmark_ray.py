"""``braincards benchmark --ray-address``: the scenarios' games as Ray tasks on a local Ray
give exactly the local numbers (and the CLI takes the option)."""

from __future__ import annotations

import warnings

import pytest

ray = pytest.importorskip("ray")

from braincards.training.evaluation.benchmark.scorecard import benchmark  # noqa: E402
from braincards.training.evaluation.benchmark.suites import parse_suite  # noqa: E402
from braincards.training.learning.rllib.benchmark_tasks import ray_runner  # noqa: E402

SUITE = {
    "suite": "tiny-v1",
    "game": "oh_my_brain",
    "blocks": 5,
    "scenarios": [
        {"id": "3p-mixed", "config": {"num_players": 3}, "focal": [0],
         "background": {"heuristic": 1, "random": 1, "oh_my_brain/ppo_3p": 1},
         "games": 30, "quick_games": 15, "seed": 5, "metric": "win", "low": "random",
         "high": "heuristic"},
        {"id": "2p-heuristic", "config": {"num_players": 2}, "focal": [0],
         "background": {"heuristic": 1}, "games": 30, "quick_games": 15, "seed": 6,
         "metric": "win", "low": "random", "high": "heuristic"},
    ],
}


@pytest.fixture(scope="module")
def local_ray():
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    if started:
        ray.shutdown()


def _numbers(obj):
    if isinstance(obj, dict):
        return {k: _numbers(v) for k, v in obj.items() if k not in ("seconds",)}
    if isinstance(obj, list):
        return [_numbers(v) for v in obj]
    return obj


def test_ray_tasks_give_the_local_numbers(local_ray, tmp_path):
    suite = parse_suite(SUITE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        local = benchmark("oh_my_brain/ppo_2p", suite, tmp_path / "local", quick=True,
                          against="random", progress=False, reps=200)
        remote = benchmark("oh_my_brain/ppo_2p", suite, tmp_path / "ray", quick=True,
                           against="random", progress=False, reps=200,
                           runner=ray_runner("local", chunk=4))
    for key in ("scenarios", "aggregate", "profile"):
        assert _numbers(remote[key]) == _numbers(local[key])
    assert _numbers(remote["against"]["scenarios"]) == _numbers(local["against"]["scenarios"])


def test_cli_runs_a_suite_on_ray(local_ray, tmp_path, capsys):
    import json

    import yaml

    from braincards.training.cli.main import main

    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(SUITE))
    out = tmp_path / "out"
    assert main(["benchmark", "heuristic", "--suite", str(path), "--games", "5", "--quiet",
                 "--ray-address", "local", "--out", str(out)]) == 0
    card = json.loads((out / "scorecard.json").read_text())
    assert [r["normalised"]["value"] for r in card["scenarios"]] == [1.0, 1.0]
