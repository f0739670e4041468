"""The README documents the observation layouts the envs really build."""

from __future__ import annotations

from pathlib import Path

import pytest

from braincards.envs import make

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


@pytest.mark.parametrize(
    "game, config",
    [
        ("the_brain_v0", {"open_hands": True, "discard_peek": True}),
        ("oh_my_brain_v0", {}),
        ("brilliant_boar_v0", {}),
    ],
)
def test_readme_shows_the_current_observation_layout(game, config):
    assert make(game, raw=True, **config).layout.describe() in README


def test_readme_names_the_test_command_and_every_env():
    assert "`make test`" in README
    for game in ("the_brain_v0", "oh_my_brain_v0", "brilliant_boar_v0"):
        assert f"`{game}`" in README


def test_readme_quickstart_runs():
    import re

    code = re.search(r"## Quickstart\n\n```python\n(.*?)```", README, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, "README quickstart", "exec"), namespace)  # noqa: S102 - our own docs
    assert namespace["env"].unwrapped.state.outcome in (1, -1)
