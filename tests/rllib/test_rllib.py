"""Ray RLlib backend (issue 10): the multi-agent env adapter, the action-masking module,
the export to a braincards checkpoint (checked numerically against the module), frozen
snapshot weights pushed to the env runners, and short local-Ray training runs of The Brain
2p and Oh My Brain 2p that export, load back and play through ``evaluate``.

Needs ray[rllib]: run with ``make test-rllib`` (its own venv, .rllib-venv); skipped in the
main venv."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.utils.torch_utils import FLOAT_MIN  # noqa: E402

from braincards.training.agents.network import load_policy  # noqa: E402
from braincards.training.evaluation.evaluate import evaluate  # noqa: E402
from braincards.training.learning.config import parse_train_config  # noqa: E402
from braincards.training.learning.rllib import train as rl_train  # noqa: E402
from braincards.training.learning.rllib.env import LEARNER, BraincardsMultiAgentEnv, module_for  # noqa: E402
from braincards.training.learning.rllib.export import (  # noqa: E402
    export_checkpoint,
    load_sb3_state_dict,
    sb3_state_dict,
)


def _cfg(game: str, **over):
    data = {
        "game": game,
        "env": {"num_players": 2},
        "seed": 0,
        "total_timesteps": 600,
        "n_envs": 2,
        "policy": {"net_arch": [32, 32]},
        "ppo": {"n_steps": 100, "batch_size": 100, "n_epochs": 2},
        "evaluation": {"every": 10**6, "games": 4, "opponents": ["heuristic"],
                       "partners": ["heuristic"]},
        "backend": {"name": "rllib", "num_env_runners": 1},
    }
    data.update(over)
    return parse_train_config(data)


@pytest.fixture(scope="module")
def ray_local():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _random_play(env, games: int, seed: int = 0):
    """Play ``games`` episodes with random legal actions; yield each game's step returns."""
    rng = np.random.default_rng(seed)
    for g in range(games):
        obs, _ = env.reset(seed=seed + g)
        steps, done = [], False
        while not done:
            assert len(obs) == 1, f"one agent moves at a time, got {sorted(obs)}"
            ((agent, o),) = obs.items()
            assert set(o) == {"observations", "action_mask"}
            assert o["observations"].dtype == np.float32 and o["action_mask"].dtype == np.float32
            action = int(rng.choice(np.flatnonzero(o["action_mask"])))
            obs, rew, term, trunc, _ = env.step({agent: action})
            steps.append((agent, obs, rew, term, trunc))
            done = term["__all__"] or trunc["__all__"]
        yield steps


# ---------------------------------------------------------------------------- env adapter
def test_seat_mode_learner_gets_its_reward_when_an_opponents_move_ends_the_game():
    """PettingZoo's SB3 tutorial loses the reward of a game decided on another seat's move:
    here the learner's rewards add up to its seat's return however the game ends."""
    env = BraincardsMultiAgentEnv({"game": "oh_my_brain_v0", "env": {"num_players": 2},
                                   "mode": "seat", "opponents": [{"source": "heuristic"}]})
    assert env.possible_agents == [LEARNER]
    rng = np.random.default_rng(1)
    ended_by_opponent = []
    for g in range(40):
        obs, _ = env.reset(seed=100 + g)
        moves = []  # opponent moves, counted by a wrapper around the heuristic
        ((seat, (_, pol)),) = env.game.played_by.items()
        act = pol.act
        pol.act = lambda o, a=None, act=act, moves=moves: moves.append(1) or act(o, a)
        got, done = 0.0, False
        while not done:
            ((agent, o),) = obs.items()
            assert agent == LEARNER
            before = len(moves)
            obs, rew, term, trunc, _ = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
            got += rew.get(LEARNER, 0.0)
            done = term["__all__"] or trunc["__all__"]
        pol.act = act
        learner_seat = next(s for s, a in env.game.agent_of.items() if a == LEARNER)
        assert got == pytest.approx(env.game.returns[learner_seat])
        assert LEARNER in obs and LEARNER in rew  # a last obs and reward at the end
        if len(moves) > before:
            ended_by_opponent.append(env.game.returns[learner_seat])
    assert ended_by_opponent and min(ended_by_opponent) < 0  # some losses on the heuristic's move
    outcomes = env.pop_outcomes()
    assert len(outcomes) == 40 and set(outcomes) <= {0, 1}
    assert env.pop_outcomes() == []


def test_team_mode_every_seat_gets_the_team_reward_and_an_obs_reward_pair():
    env = BraincardsMultiAgentEnv({"game": "the_brain_v0", "env": {"num_players": 2}, "mode": "team"})
    assert env.possible_agents == ["player_0", "player_1"]
    assert {module_for(a) for a in env.possible_agents} == {LEARNER}
    for steps in _random_play(env, 10):
        seen = set()
        for agent, obs, rew, _, _ in steps:
            for a in obs:  # RLlib: an agent that already acted gets a reward with its next obs
                if a in seen:
                    assert a in rew
            seen.add(agent)
        totals = {a: sum(r.get(a, 0.0) for *_, r, _, _ in steps) for a in env.possible_agents}
        assert len(set(totals.values())) == 1 and totals["player_0"] in (-1.0, 1.0)


def test_team_mode_shaping_pays_the_progress_since_each_agents_last_decision():
    from braincards.envs.the_brain.rules import progress

    def the_brain_progress(table, seat):
        return progress(table.raw.state)

    shaped = BraincardsMultiAgentEnv({"game": "the_brain_v0", "env": {"num_players": 2},
                                      "mode": "team", "shaping": 0.5})
    plain = BraincardsMultiAgentEnv({"game": "the_brain_v0", "env": {"num_players": 2}, "mode": "team"})
    rng = np.random.default_rng(3)
    for g in range(5):
        obs, _ = shaped.reset(seed=g)
        obs_p, _ = plain.reset(seed=g)
        start = {a: the_brain_progress(shaped.game.table, 0) for a in obs}  # progress at 1st decision
        extra = dict.fromkeys(shaped.possible_agents, 0.0)
        done = False
        while not done:
            ((agent, o),) = obs.items()
            action = int(rng.choice(np.flatnonzero(o["action_mask"])))
            obs, rew, term, trunc, _ = shaped.step({agent: action})
            obs_p, rew_p, *_ = plain.step({agent: action})
            for a in rew:
                extra[a] += rew[a] - rew_p.get(a, 0.0)
            done = term["__all__"] or trunc["__all__"]
            for a in obs:
                start.setdefault(a, the_brain_progress(shaped.game.table, 0))
        final = the_brain_progress(shaped.game.table, 0)
        assert final > 0
        for a in shaped.possible_agents:  # c x the progress from its first decision to the end
            assert extra[a] == pytest.approx(0.5 * (final - start[a]))


def test_snapshot_seats_map_to_filled_slots_only():
    env = BraincardsMultiAgentEnv({"game": "oh_my_brain_v0", "env": {"num_players": 3},
                                   "mode": "seat", "opponents": [{"source": "snapshots"}],
                                   "max_snapshots": 3})
    with pytest.raises(ValueError, match="no snapshot yet"):  # only snapshots, none taken yet
        env.reset(seed=0)
    env = BraincardsMultiAgentEnv({"game": "oh_my_brain_v0", "env": {"num_players": 3},
                                   "mode": "seat", "opponents": [{"source": "snapshots"}, {"source": "random"}],
                                   "max_snapshots": 3})
    env.reset(seed=0)
    assert all(a == LEARNER for a in env.game.agent_of.values())  # none taken yet: random seats
    env.set_snapshot_slots(2)
    used = set()
    for g in range(30):
        env.reset(seed=g)
        used |= {module_for(a) for a in env.game.agent_of.values()} - {LEARNER}
    assert used == {"snapshot_0", "snapshot_1"}
    assert module_for("snapshot_2_1") == "snapshot_2" and module_for("learner") == LEARNER


# ---------------------------------------------------------------------------- module + export
def _module(game: str, players: int = 2, seed: int = 0):
    cfg = _cfg(game, env={"num_players": players})
    module = rl_train.local_module(cfg)
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():  # weights far from the init, so that a wrong mapping shows
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.3)
    return cfg, module


@pytest.mark.parametrize("game", ["the_brain_v0", "oh_my_brain_v0", "brilliant_boar_v0"])
def test_exported_policy_computes_the_modules_logits_and_values(game, tmp_path):
    cfg, module = _module(game)
    zip_path, json_path = export_checkpoint(
        module, tmp_path / "ck", game=game, env_config=cfg.env, net_arch=cfg.policy.net_arch,
        timesteps=123, seed=0,
    )
    meta = json.loads(json_path.read_text())
    assert meta["algo"] == "RLlibPPO" and meta["policy"]["kwargs"]["net_arch"] == {"pi": [32, 32], "vf": [32, 32]}
    policy = load_policy(tmp_path / "ck", game=game, config=cfg.env)
    net = policy.network
    env = BraincardsMultiAgentEnv(rl_train.env_config(cfg, 0))
    obs_batch, mask_batch = [], []
    for steps in _random_play(env, 3):
        for _, obs, *_ in steps:
            for o in obs.values():
                obs_batch.append(o["observations"])
                mask_batch.append(o["action_mask"])
    x = torch.as_tensor(np.array(obs_batch))
    m = torch.as_tensor(np.array(mask_batch))
    with torch.no_grad():
        rllib_logits = module.unmasked_logits(x)
        sb3_logits = net.action_net(net.mlp_extractor.forward_actor(x))
        torch.testing.assert_close(sb3_logits, rllib_logits, rtol=1e-5, atol=1e-5)
        rllib_values = module.compute_values({Columns.OBS: {"observations": x, "action_mask": m}})
        torch.testing.assert_close(net.predict_values(x).squeeze(-1), rllib_values, rtol=1e-5, atol=1e-5)
        masked = module.forward_inference({Columns.OBS: {"observations": x, "action_mask": m}})
        masked = masked[Columns.ACTION_DIST_INPUTS]
    legal = m > 0
    torch.testing.assert_close(masked[legal], rllib_logits[legal])
    assert bool((masked[~legal] <= FLOAT_MIN / 2).all())
    # the loaded policy plays the module's greedy legal action
    for i in range(len(obs_batch)):
        if not mask_batch[i].any():  # a final observation: nothing to decide
            continue
        obs = {"observation": obs_batch[i], "action_mask": mask_batch[i].astype(np.int8)}
        assert policy.act(obs) == int(torch.argmax(masked[i]))
    # and the checkpoint's tensors load back into a fresh module exactly
    _, fresh = _module(game, seed=1)
    tensors = sb3_state_dict(module, cfg.policy.net_arch)
    load_sb3_state_dict(fresh, tensors, cfg.policy.net_arch)
    for name, tensor in sb3_state_dict(fresh, cfg.policy.net_arch).items():
        assert torch.equal(tensor, tensors[name]), name


def test_export_refuses_a_module_that_is_not_sb3_shaped():
    cfg, module = _module("oh_my_brain_v0")
    with pytest.raises(ValueError, match="net_arch"):
        sb3_state_dict(module, [64, 64])
    with pytest.raises(ValueError, match="relu"):
        sb3_state_dict(module, cfg.policy.net_arch, "relu")


# ---------------------------------------------------------------------------- Ray runs
def test_snapshot_weights_are_pushed_to_the_env_runners(ray_local):
    cfg = _cfg("oh_my_brain_v0", opponents={"pool": [{"source": "snapshots"}, {"source": "random"}],
                                            "snapshot_every": 100, "max_snapshots": 2})
    assert rl_train.max_snapshots(cfg) == 2
    config = rl_train.build_config(cfg, seed=0, num_env_runners=1, num_learners=0)
    algo = config.build_algo()
    try:
        learner = rl_train._learner_state(algo, LEARNER)

        def remote_weights(module_id):
            states = algo.env_runner_group.foreach_env_runner(
                lambda r: r.module[module_id].get_state(), local_env_runner=False
            )
            assert len(states) == 1  # one remote env runner
            return states[0]

        key = next(k for k in remote_weights("snapshot_0") if k.startswith("encoder.actor_encoder"))
        assert not np.allclose(remote_weights("snapshot_0")[key], learner[key])
        rl_train._set_module_everywhere(algo, "snapshot_0", learner)
        after = remote_weights("snapshot_0")
        for k, v in after.items():
            np.testing.assert_array_equal(v, learner[k])
        assert rl_train._foreach_env(algo, lambda env: env.set_snapshot_slots(1) or env.pool.filled_slots) == [1, 1]
    finally:
        algo.stop()


def _play_one_game(path, game, env):
    policy = load_policy(path, game=game, config=env)
    assert policy.metadata["algo"] == "RLlibPPO"
    summary = evaluate(game, env, [str(path), "heuristic"], games=2, seed=0, progress=False)
    assert summary["games"] == 2 and str(path) in summary["policies"]
    return summary


def test_train_the_brain_2p_export_load_play_and_resume(ray_local, tmp_path):
    cfg = _cfg("the_brain_v0", shaping=0.5, pretrain={"teacher": "heuristic", "games": 4})
    out = tmp_path / "brain"
    result = rl_train.train_rllib(cfg, out, log=lambda msg: None)
    assert result["timesteps"] >= 600 and result["iterations"] >= 2
    assert result["steps_per_s"] > 0
    assert {"team", "with heuristic", "primary"} == set(result["evaluation"])
    meta = json.loads((out / "last.json").read_text())
    assert meta["training"]["backend"]["name"] == "rllib" and meta["evaluation"] == result["evaluation"]
    assert meta["training"]["pretrained"]["games"] == 4
    assert (out / "best.zip").is_file() and (out / "progress.csv").is_file()
    _play_one_game(out / "last", "the_brain_v0", cfg.env)
    # resume: the learner starts from the checkpoint's weights and its timesteps count
    longer = cfg.model_copy(update={"total_timesteps": result["timesteps"] + 200})
    again = rl_train.train_rllib(longer, tmp_path / "brain2", resume_from=out / "last", log=lambda msg: None)
    assert result["timesteps"] + 200 <= again["timesteps"] < result["timesteps"] + 800


def test_train_oh_my_brain_2p_against_heuristic_checkpoint_and_snapshots(ray_local, tmp_path):
    game = "oh_my_brain_v0"
    # a checkpoint opponent (an exported, untrained module) inside RLlib training
    cfg0, module = _module(game)
    opponent, _ = export_checkpoint(module, tmp_path / "opp", game=game, env_config=cfg0.env,
                                    net_arch=cfg0.policy.net_arch, timesteps=0)
    cfg = _cfg(game, opponents={
        "pool": [{"source": "heuristic"}, {"source": str(opponent.with_suffix(""))},
                 {"source": "snapshots", "weight": 2.0}],
        "snapshot_every": 200, "max_snapshots": 2,
    })
    out = tmp_path / "omb"
    logs = []
    result = rl_train.train_rllib(cfg, out, log=logs.append)
    assert result["snapshots"] >= 2
    assert any("snapshot 2 of the learner" in line for line in logs)
    assert set(result["evaluation"]) == {"vs heuristic", "primary"}
    _play_one_game(out / "last", game, cfg.env)
