"""Tianshou (docs/interop/tianshou.md): the braincards AEC env inside Tianshou's
``PettingZooEnv`` with its multi-agent manager. The wrapper's spaces against the env's; its
observations, masks and rewards along random play against a twin braincards env stepped with
the same actions; the DQN learner and the random seat never play an illegal move; the
learner's n-step targets are its own final reward (the example's horizon beyond a game);
thu-ml/tianshou#1244 (an observation Batch with ``agent_id`` strings breaks a network fed the
whole observation) as it stands in 2.0.1; and examples/tianshou_dqn.py end to end, tiny.

Needs tianshou: run with ``make test-interop`` (.interop-venv); skipped in the main venv."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("tianshou")
torch = pytest.importorskip("torch")

from tianshou.data import Batch, Collector, CollectStats, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv  # noqa: E402
from tianshou.utils.net.common import Net  # noqa: E402

from braincards.envs import make  # noqa: E402

from .examples import load_example  # noqa: E402

CONFIG = {"num_players": 2}
SEATS = ["player_0", "player_1"]


ex = load_example("examples/tianshou_dqn.py")


@pytest.fixture(autouse=True)
def _one_thread():
    torch.set_num_threads(1)


def _collector(args: list[str], seed: int = 0):
    np.random.seed(seed)
    torch.manual_seed(seed)
    algorithm, net = ex.make_algorithm(ex.get_env(CONFIG), ex.parse_args(args))
    envs = DummyVectorEnv([lambda: ex.get_env(CONFIG)])
    envs.seed(seed)
    collector = Collector[CollectStats](algorithm, envs, VectorReplayBuffer(20_000, 1),
                                        exploration_noise=True)
    collector.reset()
    return algorithm, collector


def test_wrapper_spaces_match_the_env_spaces():
    raw, env = make(ex.GAME, **CONFIG), ex.get_env(CONFIG)
    assert env.agents == raw.possible_agents == SEATS
    assert env.agent_idx == {"player_0": 0, "player_1": 1}
    assert env.observation_space == raw.observation_space("player_0")
    assert env.action_space == raw.action_space("player_0")


def test_observations_masks_and_rewards_along_random_play_match_the_env():
    rng = np.random.default_rng(0)
    env, twin = ex.get_env(CONFIG), make(ex.GAME, **CONFIG)
    steps = 0
    for g in range(4):
        obs, _ = env.reset(seed=100 + g)
        twin.reset(seed=100 + g)
        done = False
        while not done:
            seen = twin.observe(twin.agent_selection)
            assert obs["agent_id"] == twin.agent_selection
            assert np.array_equal(obs["obs"], seen["observation"])
            assert np.array_equal(np.array(obs["mask"]), seen["action_mask"].astype(bool))
            action = int(rng.choice(np.flatnonzero(seen["action_mask"])))
            obs, rew, term, trunc, _ = env.step(action)
            twin.step(action)
            assert list(rew) == [twin.rewards[a] for a in SEATS]
            done, steps = term or trunc, steps + 1
        assert sorted(rew) == [-1.0, 1.0]  # the game's end, paid to both seats in one step
    assert steps > 200


def test_neither_seat_ever_plays_an_illegal_action():
    # eps 1: the learner's every move is its masked exploration; eps 0 would be its greedy Q
    for eps in ("1.0", "0.0"):
        _, collector = _collector(["--eps", eps, "--hidden", "32"])
        collector.collect(n_step=500)
        buf = collector.buffer
        data = buf[np.arange(len(buf))]
        assert data.obs.mask[np.arange(len(data)), data.act].all()
        assert set(data.obs.agent_id) == set(SEATS)


def test_the_learner_s_n_step_targets_are_its_final_reward():
    """The example's horizon beyond a game: with gamma 1 every target of the learner's steps
    is the +1/-1 it got at the end of that game, never a bootstrap from the other seat."""
    algorithm, collector = _collector(["--gamma", "1.0", "--hidden", "32"])
    collector.collect(n_episode=4)
    buf = collector.buffer
    idx = np.arange(len(buf))
    data = buf[idx]
    ends = np.flatnonzero(data.done)
    assert len(ends) == 4 and ends[-1] == len(buf) - 1
    episode = np.searchsorted(ends, idx)
    final = data.rew[ends, ex.LEARNER][episode]  # the learner's reward at its game's end
    mine = data.obs.agent_id == SEATS[ex.LEARNER]
    returns = algorithm._preprocess_batch(data, buf, idx)[SEATS[ex.LEARNER]].returns
    assert np.array_equal(returns.numpy().ravel(), final[mine])
    assert set(np.unique(final)) <= {-1.0, 1.0}


def test_issue_1244_a_network_fed_the_whole_observation_batch_fails():
    """thu-ml/tianshou#1244 (and #1047) in 2.0.1: the wrapper's observation holds the seat's
    name as a string, so a network given the whole observation Batch (what the actor-critic
    policies such as PPO do) fails; DQN reads ``obs.obs`` and ``obs.mask`` and is unaffected."""
    env = ex.get_env(CONFIG)
    obs, _ = env.reset(seed=0)
    batch = Batch(obs=[obs, obs])
    assert batch.obs.agent_id.dtype.kind in "OU"
    net = Net(state_shape=obs["obs"].shape[0], action_shape=env.action_space.n)
    with pytest.raises(AttributeError, match="ndim"):
        net(batch.obs)
    logits, _ = net(batch.obs.obs)
    assert logits.shape == (2, env.action_space.n)


def test_the_example_runs_tiny_and_writes_its_json(tmp_path):
    out = tmp_path / "tianshou.json"
    result = ex.main(["--epochs", "2", "--epoch-steps", "300", "--envs", "2", "--batch-size", "32",
                      "--buffer", "2000", "--hidden", "16", "--eval-games", "8",
                      "--final-games", "8", "--json", str(out)])
    assert json.loads(out.read_text()) == result
    assert {"example", "library", "version", "game", "config", "seed", "measure", "curve", "rows",
            "seconds"} <= result.keys()
    assert result["example"] == "examples/tianshou_dqn.py"
    assert (result["library"], result["game"], result["config"]) == ("tianshou", ex.GAME, CONFIG)
    steps = [p["steps"] for p in result["curve"]]
    assert len(steps) == 3 and steps[0] == 0 and steps[0] < steps[1] < steps[2]
    assert [r["policy"] for r in result["rows"]] == ["tianshou_dqn vs random",
                                                     "tianshou_dqn vs heuristic"]
    for r in result["curve"] + result["rows"]:
        assert r["games"] == 8 and 0 <= r["low"] <= r["rate"] <= r["high"] <= 1
