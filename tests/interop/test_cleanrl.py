"""The single-file masked PPO (examples/cleanrl_ppo.py) runs through gymnasium's vector env
on the team view, never plays an illegal move, learns on a short run, and writes its result.
It needs only the train extra, so it runs in the main venv too."""

from __future__ import annotations

import json

import numpy as np
import torch

from braincards.training.learning.gym_view import gym_env

from .examples import load_example

cleanrl_ppo = load_example("examples/cleanrl_ppo.py")


def test_the_masked_policy_never_samples_an_illegal_move():
    env = gym_env("the_brain_v0", num_players=2, difficulty="amateur")
    agent = cleanrl_ppo.Agent(env.observation_space["observation"].shape[0], env.action_space.n)
    torch.manual_seed(0)
    obs, _ = env.reset(seed=0)
    for _ in range(500):
        x = torch.as_tensor(obs["observation"])[None]
        mask = torch.as_tensor(obs["action_mask"]).bool()[None]
        action = int(agent.get_action_and_value(x, mask)[0])
        assert obs["action_mask"][action] == 1
        obs, _, terminated, truncated, _ = env.step(action)  # an illegal move would raise
        if terminated or truncated:
            obs, _ = env.reset()


def test_a_short_run_learns_and_writes_its_result(tmp_path):
    out = tmp_path / "run.json"
    result = cleanrl_ppo.main(["--total-timesteps", "6144", "--num-envs", "4", "--num-steps", "128",
                               "--eval-every", "6", "--eval-games", "30", "--json", str(out)])
    assert json.loads(out.read_text()) == result
    assert result["example"] == "examples/cleanrl_ppo.py" and result["game"] == "the_brain_v0"
    curve = result["curve"]
    assert [p["steps"] for p in curve] == [0, 3072, 6144]
    for point in curve:
        assert 0 <= point["low"] <= point["rate"] <= point["high"] <= 1 and point["games"] == 30
    # 6,144 steps of PPO already play out more cards than the untrained network (measured:
    # about 10 before, 13 after; random play gets about 10.5)
    assert curve[-1]["mean_score"] > curve[0]["mean_score"] + 1.0
    assert np.isfinite(result["seconds"])
