"""The solo variant (R-W8) as a gymnasium Env: ``braincards/BrilliantBoarSolo-v0``."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import braincards.envs  # noqa: F401 - registers the gymnasium ids
from braincards.envs.brilliant_boar import rules, solo_env


def test_solo_env_passes_gymnasium_env_checker():
    # the checker steps with unmasked random actions: illegal ones end the game (penalize)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(solo_env(level=1, illegal_action="penalize"), skip_render_check=True)
        check_env(solo_env(name_card=True, memory="perfect", illegal_action="penalize"), skip_render_check=True)


def test_solo_env_is_registered_with_gymnasium():
    e = gymnasium.make("braincards/BrilliantBoarSolo-v0", level=2)
    obs, info = e.reset(seed=0)
    assert e.observation_space.contains(obs)
    assert info["action_mask"].tolist() == [1] + [0] * 56  # the first decision: draw
    assert e.unwrapped.game.state.level == 2


def test_solo_games_pay_the_score_with_the_error_stack_RW8():
    rng = np.random.default_rng(0)
    for seed in range(30):
        e = solo_env(level=1 + seed % 4, normalize=seed % 2 == 1)
        obs, info = e.reset(seed=seed)
        total, steps = 0.0, 0
        while True:
            mask = e.action_masks()
            assert mask.dtype == bool and mask.tolist() == info["action_mask"].astype(bool).tolist()
            assert np.flatnonzero(mask).tolist() == e.game.legal_actions()
            legal = np.flatnonzero(mask)
            obs, reward, terminated, truncated, info = e.step(int(legal[rng.integers(len(legal))]))
            assert e.observation_space.contains(obs)
            total += reward
            steps += 1
            if terminated or truncated:
                break
        assert terminated and not truncated
        s = e.game.state
        score = len(s.won[0]) - len(s.errors) - len(s.hands[0])
        assert rules.scores(s) == [score] and not s.pile and s.middle == []
        want = score / len(s.cards()) if seed % 2 else score
        assert total == pytest.approx(want)
        assert not e.action_masks().any()


def test_solo_env_config_errors():
    with pytest.raises(ValueError, match="num_players"):
        solo_env(num_players=2)
    with pytest.raises(ValueError, match="solo reward"):
        solo_env(reward="rank")
    with pytest.raises(ValueError, match="level"):
        solo_env(level=7)


def test_solo_render():
    e = solo_env(render_mode="ansi")
    e.reset(seed=0)
    e.step(rules.DRAW)
    text = e.render()
    assert "error stack: 0" in text and "player_0" in text
