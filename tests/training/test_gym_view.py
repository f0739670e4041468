"""The single-agent gymnasium view (``gym_env``): team and seat modes, the mask in the
observation and equal to the legal moves, determinism under a seed, vector envs, gymnasium's
own env checker, and every error path."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from braincards.training.learning.gym_view import GymView, gym_env


def _play(env, seed, steps=10_000):
    """Random legal play of one game: the observations, masks and rewards seen, and the end."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    seen = []
    for _ in range(steps):
        legal = env.game.table.env.legal_actions()
        assert np.flatnonzero(obs["action_mask"]).tolist() == sorted(legal)
        assert np.array_equal(env.action_masks(), obs["action_mask"].astype(bool))
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        seen.append((obs["observation"].tobytes(), action))
        obs, reward, terminated, truncated, info = env.step(action)
        seen.append(reward)
        if terminated or truncated:
            return seen, info
    raise AssertionError("the game never ended")


@pytest.mark.parametrize("game, options, mode", [
    ("the_brain_v0", {"num_players": 3, "difficulty": "robber"}, "team"),
    ("oh_my_brain_v0", {"num_players": 2}, "seat"),
    ("brilliant_boar_v0", {"num_players": 3}, "seat"),
])
def test_the_mask_is_in_the_observation_and_is_exactly_the_legal_moves(game, options, mode):
    env = gym_env(game, **options)
    assert env.mode == mode  # team for a cooperative game, seat for a competitive one
    assert isinstance(env.observation_space, gym.spaces.Dict)
    assert env.observation_space["action_mask"].shape == (env.action_space.n,)
    for seed in range(20):
        _, info = _play(env, seed)
        assert set(info) >= {"episode_return", "win"}


def test_team_mode_plays_every_seat_and_is_paid_the_team_reward():
    env = gym_env("the_brain_v0", num_players=2, difficulty="amateur")
    obs, _ = env.reset(seed=3)
    seats = set()
    total = 0.0
    while True:
        seats.add(env.game.table.env.agent_selection)
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        total += reward
        if terminated or truncated:
            break
    assert seats == {"player_0", "player_1"}
    assert total == pytest.approx(info["episode_return"])


def test_seat_mode_seats_the_opponents_given():
    env = gym_env("oh_my_brain_v0", num_players=3, opponents=[("random", 1), ("heuristic", 3)])
    labels = set()
    for seed in range(30):
        env.reset(seed=seed)
        labels |= {label for label, _ in env.seated.values()}
        assert len(env.seated) == 2 and env.learner not in env.seated
    assert labels == {"random", "heuristic"}


def test_a_seed_fixes_the_deal_the_seat_and_the_opponents():
    env = gym_env("brilliant_boar_v0", num_players=2)
    first, again = _play(env, 11), _play(env, 11)
    assert first == again
    assert _play(env, 12) != first


def test_vector_envs_stack_observation_and_mask():
    envs = gym.vector.SyncVectorEnv([lambda: gym_env("the_brain_v0", num_players=3)] * 3)
    obs, _ = envs.reset(seed=0)
    assert obs["observation"].shape == (3, envs.single_observation_space["observation"].shape[0])
    assert obs["action_mask"].shape == (3, envs.single_action_space.n)
    assert (obs["action_mask"].sum(1) > 0).all()
    actions = np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]])
    obs, reward, *_ = envs.step(actions)
    assert reward.shape == (3,)
    envs.close()


def test_gymnasiums_env_checker_passes():
    """The checker steps with unmasked random actions: with illegal_action="penalize" an
    illegal one ends the game with -1 for its seat instead of raising."""
    check_env(gym_env("the_brain_v0", num_players=2, illegal_action="penalize"), skip_render_check=True)
    check_env(GymView("oh_my_brain_v0", num_players=2, illegal_action="penalize"), skip_render_check=True)


@pytest.mark.parametrize("kwargs, message", [
    ({"game": "chess"}, "unknown game 'chess'"),
    ({"game": "the_brain_v0", "num_playres": 2}, "num_playres"),
    ({"game": "the_brain_v0", "mode": "both"}, "allowed: 'team', 'seat'"),
    ({"game": "the_brain_v0", "opponents": "heuristic"}, "opponents are for mode='seat'"),
    ({"game": "oh_my_brain_v0", "opponents": "no_such_policy"}, "no_such_policy"),
    ({"game": "oh_my_brain_v0", "opponents": [("random", 0)]}, "weights must be > 0"),
    ({"game": "oh_my_brain_v0", "opponents": [(3, 1)]}, "give a policy spec string"),
    ({"game": "oh_my_brain_v0", "num_players": 1}, "num_players"),
])
def test_bad_arguments_say_what_is_wrong(kwargs, message):
    with pytest.raises(ValueError, match=message):
        env = gym_env(**kwargs)
        env.reset(seed=0)
