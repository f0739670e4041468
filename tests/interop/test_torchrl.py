"""TorchRL (docs/interop/torchrl.md): the braincards AEC env inside ``PettingZooWrapper`` with
action masks. The wrapper's specs against the env's spaces; its masks along random play
against a twin braincards env stepped with the same actions (the acting seat's mask is the
legal set; the waiting seat's mask is all True in TorchRL 0.14, pytorch/rl#1471); the
example's workaround for an all-False mask; its masked policy never plays an illegal move;
its per-seat decisions (rewards, log-probs); and examples/torchrl_ppo.py end to end, tiny.

Needs torchrl: run with ``make test-interop`` (.interop-venv); skipped in the main venv."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torchrl")
torch = pytest.importorskip("torch")

from torchrl.envs.utils import ExplorationType, set_exploration_type  # noqa: E402
from torchrl.modules import MaskedCategorical  # noqa: E402

from braincards.envs import make  # noqa: E402

from .examples import load_example  # noqa: E402

# TorchRL 0.14.1 warns that it was tested with PettingZoo 1.24.3 (this venv has 1.27)
pytestmark = pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested")

CONFIG = {"num_players": 2}


ex = load_example("examples/torchrl_ppo.py")
GROUP, OBS = ex.GROUP, ex.OBS


@pytest.fixture(autouse=True)
def _one_thread():
    torch.set_num_threads(1)


def test_wrapper_specs_match_the_env_spaces():
    raw = make(ex.GAME, **CONFIG)
    env = ex.make_env(CONFIG, seed=0)
    obs_space = raw.observation_space("player_0")
    n = raw.action_space("player_0").n
    seats = len(ex.SEATS)
    assert env.group_map == {GROUP: ex.SEATS}
    obs_spec = env.observation_spec[OBS]
    assert tuple(obs_spec.shape) == (seats, *obs_space["observation"].shape)
    assert obs_spec.dtype == torch.float32
    assert np.all(obs_spec.space.low.numpy() == obs_space["observation"].low)
    assert np.all(obs_spec.space.high.numpy() == obs_space["observation"].high)
    assert tuple(env.observation_spec[GROUP, "action_mask"].shape) == (seats, n)
    assert env.observation_spec[GROUP, "action_mask"].dtype == torch.bool
    assert env.full_action_spec[GROUP, "action"].n == n
    assert tuple(env.full_action_spec[GROUP, "action"].shape) == (seats,)


def _random_games_with_twin(games: int, seed: int = 0):
    """Yield (wrapper step td, twin env, wrapper) along random play, the twin stepped alike."""
    rng = np.random.default_rng(seed)
    env, twin = ex.make_env(CONFIG, seed=0), make(ex.GAME, **CONFIG)
    for g in range(games):
        td = env.reset(seed=100 + g)
        twin.reset(seed=100 + g)
        while True:
            yield td, twin, env
            legal = np.flatnonzero(twin.observe(twin.agent_selection)["action_mask"])
            action = int(rng.choice(legal))
            td[GROUP, "action"] = torch.tensor([action] * len(ex.SEATS))
            td = env.step(td)["next"]
            twin.step(action)
            rewards = td[GROUP, "reward"].squeeze(-1).tolist()
            assert rewards == [twin.rewards[a] for a in ex.SEATS]
            if td["done"].item():
                assert all(twin.terminations.values()) or all(twin.truncations.values())
                assert sorted(rewards) == [-1.0, 1.0]  # the game's end, paid to both seats
                break


def test_masks_along_random_play_match_the_env_legal_actions():
    """The acting seat's mask is exactly the env's legal set; the waiting seat's is all True
    (pytorch/rl#1471: TorchRL once gave it all False) and its agent mask is False."""
    steps = 0
    for td, twin, env in _random_games_with_twin(games=4):
        acting = td[GROUP, "mask"]
        assert acting.sum() == 1
        seat = int(acting.nonzero())
        assert ex.SEATS[seat] == twin.agent_selection
        legal = twin.observe(twin.agent_selection)["action_mask"].astype(bool)
        assert np.array_equal(td[GROUP, "action_mask"][seat].numpy(), legal)
        assert legal[env.full_action_spec[GROUP, "action"].rand()[seat]]  # the spec is narrowed
        other = 1 - seat
        assert td[GROUP, "action_mask"][other].all()
        for s, agent in enumerate(ex.SEATS):  # every seat's observation, from its own view
            assert np.array_equal(td[OBS][s].numpy(), twin.observe(agent)["observation"])
        steps += 1
    assert steps > 200


def test_the_workaround_gives_a_valid_distribution_to_a_seat_with_an_all_false_mask():
    env = ex.make_env(CONFIG, seed=0)
    td = env.reset(seed=5)
    acting = td[GROUP, "mask"]
    td[GROUP, "action_mask"][~acting] = False  # what pytorch/rl#1471's wrapper gave
    logits = torch.zeros(td[GROUP, "action_mask"].shape)
    with pytest.raises(RuntimeError):  # a masked distribution over nothing cannot sample
        MaskedCategorical(logits=logits, mask=td[GROUP, "action_mask"]).sample()
    rows = ex.seat_rows(td)
    assert rows["action_mask"][~acting].all()
    assert torch.equal(rows["action_mask"][acting], td[GROUP, "action_mask"][acting])
    actor, _ = ex.make_modules(rows["observation"].shape[-1], logits.shape[-1], 16)
    with set_exploration_type(ExplorationType.RANDOM):
        out = actor(rows)
    assert torch.isfinite(out["action_log_prob"]).all()


def test_masked_policy_never_picks_an_illegal_action():
    torch.manual_seed(0)
    env = ex.make_env(CONFIG, seed=1)
    actor, _ = ex.make_modules(190, env.full_action_spec[GROUP, "action"].n, 32)
    policy = ex.collect_policy(actor)
    steps = 0
    with set_exploration_type(ExplorationType.RANDOM), torch.no_grad():
        while steps < 1000:
            game = env.rollout(10_000, policy, break_when_any_done=True)
            acting = game[GROUP, "mask"]
            actions = game[GROUP, "action"][acting]
            masks = game[GROUP, "action_mask"][acting]
            assert masks[torch.arange(len(actions)), actions].all()
            steps += len(game)


def test_seat_decisions_keep_each_seat_s_moves_and_its_final_reward():
    torch.manual_seed(0)
    env = ex.make_env(CONFIG, seed=2)
    actor, critic = ex.make_modules(190, env.full_action_spec[GROUP, "action"].n, 32)
    with set_exploration_type(ExplorationType.RANDOM), torch.no_grad():
        game = env.rollout(10_000, ex.collect_policy(actor), break_when_any_done=True)
    final = game["next", GROUP, "reward"][-1].squeeze(-1)
    seats = ex.seat_decisions(game, critic, gamma=1.0, lmbda=1.0)
    assert len(seats) == 2
    for s, data in enumerate(seats):
        assert len(data) == int(game[GROUP, "mask"][:, s].sum())
        assert torch.equal(data["action"], game[GROUP, "action"][game[GROUP, "mask"][:, s], s])
        # gamma = lambda = 1: every target is the seat's own final reward, whoever moved last
        assert torch.allclose(data["value_target"].squeeze(-1), final[s].expand(len(data)))
        with torch.no_grad():
            lp = actor.get_dist(data).log_prob(data["action"])
        assert torch.allclose(lp, data["action_log_prob"], atol=1e-5)
    assert sorted(final.tolist()) == [-1.0, 1.0]


def test_the_example_runs_tiny_and_writes_its_json(tmp_path):
    out = tmp_path / "torchrl.json"
    result = ex.main(["--iterations", "2", "--games-per-iteration", "3", "--eval-every", "1",
                      "--eval-games", "8", "--final-games", "8", "--hidden", "16",
                      "--json", str(out)])
    assert json.loads(out.read_text()) == result
    assert {"example", "library", "version", "game", "config", "seed", "measure", "curve", "rows",
            "seconds"} <= result.keys()
    assert result["example"] == "examples/torchrl_ppo.py"
    assert (result["library"], result["game"], result["config"]) == ("torchrl", ex.GAME, CONFIG)
    assert [p["steps"] for p in result["curve"]][0] == 0
    assert len(result["curve"]) == 3 and result["curve"][-1]["steps"] > 0
    assert [r["policy"] for r in result["rows"]] == ["torchrl_ppo vs random",
                                                     "torchrl_ppo vs heuristic"]
    for r in result["curve"] + result["rows"]:
        assert r["games"] == 8 and 0 <= r["low"] <= r["rate"] <= r["high"] <= 1
