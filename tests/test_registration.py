"""Registration with gymnasium and PettingZoo, and the solo envs under SB3's and
gymnasium's env checkers (issue 9: "New-user rough edges").

Neither gymnasium (>= 1.0 dropped its entry-point plugin loader) nor PettingZoo 1.27 loads
third-party registrations by itself, so the README says to ``import braincards.envs``
first (gymnasium also takes ``"braincards.envs:braincards/TheBrainSolo-v0"``, which
imports the module on its own). These tests run in fresh interpreters so that nothing
imported by the test session can make them pass.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import pytest


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )


def test_gymnasium_module_prefixed_id_works_without_importing_braincards_first():
    r = _run(
        """
        import sys
        import gymnasium
        assert "braincards.envs" not in sys.modules
        for gym_id in ("braincards/TheBrainSolo-v0", "braincards/BrilliantBoarSolo-v0"):
            env = gymnasium.make("braincards.envs:" + gym_id)
            obs, info = env.reset(seed=0)
            assert "action_mask" in info and env.observation_space.contains(obs)
        print("ok")
        """
    )
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_after_import_braincards_envs_gymnasium_and_pettingzoo_make_every_env():
    r = _run(
        """
        import gymnasium
        import pettingzoo
        import braincards.envs  # registers every env

        for gym_id in ("braincards/TheBrainSolo-v0", "braincards/BrilliantBoarSolo-v0"):
            env = gymnasium.make(gym_id)
            env.reset(seed=0)
        for env_id in ("braincards/the_brain-v0", "braincards/oh_my_brain-v0",
                       "braincards/brilliant_boar-v0", "braincards/the_brain_v0"):
            env = pettingzoo.make("aec", env_id, num_players=2)
            env.reset(seed=0)
            assert env.possible_agents == ["player_0", "player_1"], env_id
        print("ok")
        """
    )
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_without_the_import_the_registries_do_not_know_braincards():
    """What the README documents: the plain ids need ``import braincards.envs`` first
    (if a future gymnasium or PettingZoo loads entry-point plugins again, this test fails
    and the README and pyproject should switch to entry points)."""
    r = _run(
        """
        import gymnasium, pettingzoo
        for make in (lambda: gymnasium.make("braincards/TheBrainSolo-v0"),
                     lambda: pettingzoo.make("aec", "braincards/the_brain-v0")):
            try:
                make()
            except Exception as err:
                print(type(err).__name__)
            else:
                print("made")
        """
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["NamespaceNotFound", "NamespaceNotFound"]


@pytest.mark.parametrize("game", ["the_brain", "brilliant_boar"])
def test_solo_envs_pass_sb3_check_env_with_illegal_action_penalize(game):
    """SB3's check_env samples actions without the mask. With the default
    ``illegal_action="raise"`` the first illegal sample raises IllegalActionError (by
    design: a learner must use the mask); with ``illegal_action="penalize"`` an illegal
    action ends the episode with reward -1, which is a valid gymnasium env to check."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env

    from braincards.envs import brilliant_boar, the_brain
    from braincards.envs.core.errors import IllegalActionError

    module = {"the_brain": the_brain, "brilliant_boar": brilliant_boar}[game]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and without a warning
        check_env(module.solo_env(illegal_action="penalize"))
    with pytest.raises(IllegalActionError):
        check_env(module.solo_env())


@pytest.mark.parametrize("game", ["the_brain", "brilliant_boar"])
def test_solo_envs_pass_gymnasium_check_env_with_illegal_action_penalize(game):
    from gymnasium.utils.env_checker import check_env

    from braincards.envs import brilliant_boar, the_brain

    module = {"the_brain": the_brain, "brilliant_boar": brilliant_boar}[game]
    check_env(module.solo_env(illegal_action="penalize"), skip_render_check=True)


def test_a_penalized_solo_step_ends_the_episode_with_minus_one():
    from braincards.envs import the_brain

    env = the_brain.solo_env(illegal_action="penalize")
    _, info = env.reset(seed=0)
    illegal = int(info["action_mask"].argmin())
    assert info["action_mask"][illegal] == 0
    _, reward, terminated, truncated, _ = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
