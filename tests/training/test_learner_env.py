"""The single-agent learner view (issue 8): reward delivery at episode end, masks, team and
seat modes, the opponent pool and its snapshots, vectorised envs."""

from __future__ import annotations

import numpy as np
import pytest

from braincards.training.learning.learner_env import LearnerEnv, OpponentPool


def _play_episode(env: LearnerEnv, seed: int, rng: np.random.Generator):
    obs, info = env.reset(seed=seed)
    steps = []
    while True:
        mask = env.action_masks()
        assert mask.any(), "a live learner decision has an empty mask"
        assert obs.shape == env.observation_space.shape
        action = int(rng.choice(np.flatnonzero(mask)))
        acting = env.raw.agent_selection
        obs, reward, term, trunc, info = env.step(action)
        steps.append((acting, reward))
        if term or trunc:
            return steps, info, term


@pytest.mark.parametrize("game, config", [
    ("oh_my_brain_v0", {"num_players": 2}),
    ("oh_my_brain_v0", {"num_players": 3}),
    ("brilliant_boar_v0", {"num_players": 2}),
    ("brilliant_boar_v0", {"num_players": 3, "reward": "score"}),
])
def test_seat_mode_rewards_sum_to_the_seats_return(game, config):
    """Every step's reward is what the game paid the learner's seat since its last move, so
    the episode's rewards add up to the seat's whole-game return - including a game that
    ends on an opponent's move."""
    pool = OpponentPool(game, config, [("random", 1.0), ("heuristic", 1.0)])
    env = LearnerEnv(game, config, mode="seat", pool=pool)
    rng = np.random.default_rng(0)
    seats = set()
    for ep in range(40):
        steps, info, _ = _play_episode(env, ep, rng)
        assert all(agent == env.learner for agent, _ in steps)
        seats.add(env.learner)
        total = sum(r for _, r in steps)
        assert total == pytest.approx(float(env.raw._cumulative_rewards[env.learner]))
        assert total == pytest.approx(info["episode_return"])
        assert set(info["opponents"]) <= {"random", "heuristic"}
    assert seats == set(env.agents)  # the learner's seat is drawn each episode


@pytest.fixture()
def track_last_mover(monkeypatch):
    """Record who made each move at the table (to know whose move ended the game)."""
    original = LearnerEnv.__init__

    def init(self, *a, **k):
        original(self, *a, **k)
        table_step = self.table.step

        def step(action, _self=self):
            _self.last_mover = _self.raw.agent_selection
            table_step(action)

        self.table.step = step

    monkeypatch.setattr(LearnerEnv, "__init__", init)


def test_a_loss_on_an_opponents_move_reaches_the_learner_as_minus_one(track_last_mover):
    """PettingZoo's SB3 tutorial loses this reward: here the learner's last step returns -1
    when an opponent's move ends the game and the learner lost."""
    game, config = "oh_my_brain_v0", {"num_players": 2}
    env = LearnerEnv(game, config, mode="seat", pool=OpponentPool(game, config, [("heuristic", 1.0)]))
    rng = np.random.default_rng(1)
    found = 0
    for ep in range(100):
        steps, info, term = _play_episode(env, ep, rng)
        if term and env.last_mover != env.learner and not info["win"]:
            assert steps[-1][1] == -1.0
            assert info["episode_return"] == -1.0
            found += 1
    assert found >= 5


def test_team_mode_plays_every_seat_with_the_team_reward():
    env = LearnerEnv("the_brain_v0", {"num_players": 3})
    rng = np.random.default_rng(0)
    for ep in range(30):
        steps, info, term = _play_episode(env, ep, rng)
        movers = {a for a, _ in steps}
        assert len(movers) > 1  # the one policy plays several seats
        assert all(r == 0 for _, r in steps[:-1])
        outcome = float(env.raw.state.outcome)
        assert steps[-1][1] == outcome and info["win"] == (outcome > 0)


def test_reset_is_deterministic_under_a_seed():
    game, config = "brilliant_boar_v0", {"num_players": 3}

    def run():
        env = LearnerEnv(game, config, mode="seat",
                         pool=OpponentPool(game, config, [("random", 1.0), ("heuristic", 2.0)]))
        rng = np.random.default_rng(5)
        out = []
        for ep in range(5):
            steps, info, _ = _play_episode(env, 100 + ep, rng)
            out.append((env.learner, tuple(info["opponents"]), tuple(r for _, r in steps)))
        return out

    assert run() == run()


def test_history_observation_and_opponents_get_their_prefix():
    game, config = "brilliant_boar_v0", {"num_players": 2, "memory": "none"}
    env = LearnerEnv(game, config, mode="seat", pool=OpponentPool(game, config, [("heuristic", 1.0)]),
                     history_k=4)
    from braincards.envs.brilliant_boar.history import EVENT_SIZE

    assert env.observation_space.shape[0] == env.raw.layout.size + 4 * EVENT_SIZE
    _play_episode(env, 0, np.random.default_rng(0))


def test_pool_weights_snapshots_and_errors(tiny_checkpoint):
    from braincards.training.agents.checkpoint import read_checkpoint

    game, config = "the_brain_v0", {"num_players": 2}
    pool = OpponentPool(game, config, [("random", 3.0), ("snapshots", 1.0)], max_snapshots=2)
    rng = np.random.default_rng(0)
    assert {pool.draw(rng, 1)[0] for _ in range(50)} == {"random"}  # no snapshot yet: skipped
    meta, tensors, _ = read_checkpoint(tiny_checkpoint)
    for i in range(3):
        pool.add_snapshot(f"s{i}", meta, tensors)
    assert [label for label, _ in pool.snapshots] == ["s1", "s2"]  # the oldest dropped
    labels = [pool.draw(rng, 1)[0] for _ in range(4000)]
    share = sum(label.startswith("s") for label in labels) / len(labels)
    assert 0.22 < share < 0.28  # weight 1 of 4
    with pytest.raises(ValueError, match="weight"):
        OpponentPool(game, config, [("random", 0.0)])
    with pytest.raises(ValueError, match="at least one source"):
        OpponentPool(game, config, [])
    with pytest.raises(ValueError, match="no snapshot yet"):
        OpponentPool(game, config, [("snapshots", 1.0)]).draw(rng, 1)
    with pytest.raises(ValueError, match="seat mode needs an opponent pool"):
        LearnerEnv(game, config, mode="seat")
    with pytest.raises(ValueError, match="mode"):
        LearnerEnv(game, config, mode="league")
    with pytest.raises(ValueError, match="at least 2 players"):
        LearnerEnv(game, {"num_players": 1}, mode="seat", pool=pool)


@pytest.mark.parametrize("vec_env", ["dummy", "subproc"])
def test_vectorised_envs_and_snapshot_push(vec_env, tiny_checkpoint):
    """make_vec_env works with DummyVecEnv and SubprocVecEnv; MaskablePPO's action_masks are
    reachable through env_method; snapshots are pushed to every env process."""
    from braincards.training.agents.checkpoint import read_checkpoint
    from braincards.training.learning.config import parse_train_config
    from braincards.training.learning.sb3 import make_vec_env

    cfg = parse_train_config({
        "game": "the_brain_v0", "env": {"num_players": 2}, "mode": "seat", "total_timesteps": 64,
        "n_envs": 2, "vec_env": vec_env, "ppo": {"n_steps": 32, "batch_size": 32},
        "opponents": {"pool": [{"source": "random"}, {"source": "snapshots"}], "snapshot_every": 10},
    })
    venv = make_vec_env(cfg)
    try:
        venv.seed(0)
        venv.reset()
        rng = np.random.default_rng(0)
        for _ in range(50):
            masks = np.stack(venv.env_method("action_masks"))
            assert masks.any(axis=1).all()
            venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        meta, tensors, _ = read_checkpoint(tiny_checkpoint)
        venv.env_method("add_snapshot", "snap", meta, tensors)
        assert venv.env_method("snapshot_labels") == [["snap"], ["snap"]]
    finally:
        venv.close()
