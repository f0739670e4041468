"""The event reader (issue 8, Brilliant Boar memory="none"): a GRU over HistoryWrapper's
events with a scorer shared by the hand positions. Its logits are the actor's, its hand
targets are the replay of the observer's own public draws and plays (R-W2, R-W3, R-W9),
it round-trips through the safe checkpoint format, and every misuse is a clear error."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from gymnasium import spaces

from braincards.envs import make
from braincards.envs.brilliant_boar import rules
from braincards.envs.brilliant_boar.cards import MOTIF_OF
from braincards.envs.brilliant_boar.history import EVENT_SIZE, HistoryWrapper
from braincards.training.agents.checkpoint import (
    CheckpointError,
    load_checkpoint_policy,
    network_description,
    read_metadata,
    write_checkpoint,
)
from braincards.training.agents.event_reader import (
    IGNORE,
    UNKNOWN_CLASS,
    EventReaderPolicy,
    check_reader,
    hand_targets,
)
from braincards.training.learning.config import ConfigError, parse_train_config

GAME = "brilliant_boar_v0"
CONFIG = {"num_players": 2, "level": 4, "memory": "none"}
K = 8


def _spaces(config=CONFIG, k=K):
    env = HistoryWrapper(make(GAME, raw=True, **config), k=k)
    agent = env.possible_agents[0]
    return (
        env,
        env.observation_space(agent)["observation"],
        spaces.Discrete(env.action_space(agent).n),
    )


def _policy(config=CONFIG, k=K, hidden=16, positions=8):
    torch.manual_seed(0)
    _, obs_space, act_space = _spaces(config, k)
    return EventReaderPolicy(obs_space, act_space, lambda _: 1e-3, history_k=k, reader_hidden=hidden,
                             reader_positions=positions, net_arch=[32])


def _observations(config=CONFIG, k=K, games=3, seed=0):
    """(observation, observer's true hand motifs) at every decision of a few random games."""
    env, _, _ = _spaces(config, k)
    own = env.unwrapped.observation_layout()["own_positions"]
    rng = np.random.default_rng(seed)
    out = []
    for g in range(games):
        env.reset(seed=seed + g)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.possible_agents.index(agent)
            hand = [MOTIF_OF[c] for c in env.unwrapped.state.hands[seat]]
            out.append((obs, hand))
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out, slice(own["start"], own["stop"])


def test_hand_targets_are_the_true_motifs_of_the_cards_drawn_in_the_window():
    """R-W3/R-W9: what the events tell is right (checked against the hidden hand); cards
    drawn before the window are unknown (class 9); positions beyond the hand are ignored."""
    samples, own = _observations(games=4)
    table = samples[0][0]["observation"].size - K * EVENT_SIZE
    obs = np.stack([o["observation"] for o, _ in samples])
    targets = hand_targets(obs, table, K, 8, own)
    known = unknown = 0
    for (o, hand), row in zip(samples, targets, strict=True):
        size = int(np.count_nonzero(o["observation"][own] > 0.5))
        assert size == len(hand)
        assert (row[min(size, 8) :] == IGNORE).all() and (row[: min(size, 8)] != IGNORE).all()
        for p, t in enumerate(row[: min(size, 8)]):
            if t == UNKNOWN_CLASS:
                unknown += 1
            else:
                assert t == hand[p], "a recalled motif differs from the hidden hand"
                known += 1
    assert known > 50 and unknown > 0  # both cases really happen in these games


def test_policy_logits_are_the_readers_scores_and_masks_apply():
    policy = _policy()
    samples, _ = _observations(games=1)
    obs = torch.as_tensor(np.stack([o["observation"] for o, _ in samples[:20]]))
    masks = np.stack([o["action_mask"] for o, _ in samples[:20]]).astype(bool)
    with torch.no_grad():
        features = policy.extract_features(obs, policy.features_extractor)
        dist = policy.get_distribution(obs, action_masks=masks)
        values = policy.predict_values(obs)
    n = rules.NUM_ACTIONS_PLAIN
    assert features.shape == (20, n + 16 + 128)
    assert torch.allclose(dist.distribution.logits.exp().sum(1), torch.ones(20), atol=1e-5)
    probs = dist.distribution.probs.numpy()
    assert (probs[~masks] < 1e-6).all() and values.shape == (20, 1)
    # positions the belief does not cover share one score
    logits = features[:, :n]
    assert torch.allclose(
        logits[:, 1 + 8 : 1 + rules.MAX_HAND],
        logits[:, 1 + 8 : 2 + 8].expand(20, rules.MAX_HAND - 8),
    )
    assert policy.hand_logits(obs).shape == (20, 8, 10)


def test_one_read_gives_evaluate_actions_and_the_hand_belief():
    """Pretraining's single pass returns exactly what the two separate calls return."""
    policy = _policy()
    samples, _ = _observations(games=1)
    obs = torch.as_tensor(np.stack([o["observation"] for o, _ in samples[:20]]))
    masks = np.stack([o["action_mask"] for o, _ in samples[:20]]).astype(bool)
    actions = torch.as_tensor([int(np.flatnonzero(m)[-1]) for m in masks])
    with torch.no_grad():
        values, log_prob, entropy = policy.evaluate_actions(obs, actions, action_masks=masks)
        hand = policy.hand_logits(obs)
        together = policy.evaluate_actions_and_hand(obs, actions, action_masks=masks)
    for separate, joint in zip((values, log_prob, entropy, hand), together, strict=True):
        assert torch.allclose(separate, joint)
    assert not torch.allclose(log_prob, torch.zeros(20))  # the actions really are scored


def test_name_card_variant_scores_every_named_action():
    """R-W6: with name_card the reader also scores NAMED + 9p + m."""
    config = {**CONFIG, "name_card": True}
    policy = _policy(config)
    samples, _ = _observations(config, games=1)
    obs = torch.as_tensor(np.stack([o["observation"] for o, _ in samples[:10]]))
    masks = np.stack([o["action_mask"] for o, _ in samples[:10]]).astype(bool)
    with torch.no_grad():
        dist = policy.get_distribution(obs, action_masks=masks)
    assert dist.distribution.probs.shape == (10, rules.NUM_ACTIONS_NAMED)
    assert (dist.distribution.probs.numpy()[~masks] < 1e-6).all()


def test_checkpoint_round_trip_rebuilds_the_same_network(tmp_path):
    policy = _policy()
    spec = network_description(policy)
    assert spec["class"] == "EventReaderPolicy"
    assert {k: spec["kwargs"][k] for k in ("history_k", "reader_hidden", "reader_positions")} == {
        "history_k": K, "reader_hidden": 16, "reader_positions": 8}
    state = policy.state_dict()
    # the shared extractor is stored once, not under SB3's three names
    assert not any(k.startswith(("pi_features_extractor", "vf_features_extractor")) for k in state)
    write_checkpoint(tmp_path / "reader", game=GAME, env_config=CONFIG, algo="MaskablePPO", policy=spec,
                     state_dict=state, timesteps=0, history_k=K)
    meta, loaded = load_checkpoint_policy(tmp_path / "reader")
    samples, _ = _observations(games=1)
    obs = torch.as_tensor(np.stack([o["observation"] for o, _ in samples[:15]]))
    masks = np.stack([o["action_mask"] for o, _ in samples[:15]]).astype(bool)
    with torch.no_grad():
        a = policy.get_distribution(obs, action_masks=masks).distribution.logits
        b = loaded.get_distribution(obs, action_masks=masks).distribution.logits
        assert torch.equal(policy.predict_values(obs), loaded.predict_values(obs))
    assert torch.equal(a, b)
    assert meta["history_k"] == K


def _saved_reader(tmp_path):
    """(policy, path): a fresh reader network written as the checkpoint ``tmp_path/reader``."""
    policy = _policy()
    write_checkpoint(tmp_path / "reader", game=GAME, env_config=CONFIG, algo="MaskablePPO",
                     policy=network_description(policy), state_dict=policy.state_dict(), timesteps=0, history_k=K)
    return policy, tmp_path / "reader"


def _tamper(tmp_path, change):
    _, reader = _saved_reader(tmp_path)
    path = tmp_path / "reader.json"
    meta = json.loads(path.read_text())
    change(meta)
    path.write_text(json.dumps(meta))
    return reader


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda m: m["policy"]["kwargs"].pop("reader_hidden"),
            "EventReaderPolicy needs the kwargs",
        ),
        (lambda m: m["policy"]["kwargs"].update(history_k=9), "reads history_k=9 event slots"),
        (
            lambda m: m["policy"]["kwargs"].update(reader_hidden=5000),
            "reader_hidden=5000; allowed: integers in 1..1024",
        ),
        (lambda m: m["policy"]["kwargs"].update(reader_hidden=32), "the weights do not fit"),
        (
            lambda m: m["policy"].update({"class": "MaskableActorCriticPolicy"}),
            "are EventReaderPolicy kwargs",
        ),
    ],
)
def test_tampered_reader_metadata_is_refused(tmp_path, change, message):
    path = _tamper(tmp_path, change)
    with pytest.raises(CheckpointError, match=message):
        read_metadata(path)
        load_checkpoint_policy(path)


@pytest.mark.parametrize(
    "args, message",
    [
        ((4292, 57, 0, 16, 8), "history_k=0"),
        ((4292, 57, 32, 0, 8), "reader_hidden=0"),
        ((4292, 57, 32, 16, 55), "reader_positions=55"),
        ((4292, 40, 32, 16, 8), "not 40"),
        ((100, 57, 32, 16, 8), "cannot hold 32 event slots"),
    ],
)
def test_reader_numbers_that_do_not_fit_are_errors(args, message):
    with pytest.raises(ValueError, match=message):
        check_reader(*args)


def test_actor_layers_are_refused():
    _, obs_space, act_space = _spaces()
    with pytest.raises(ValueError, match=r"net_arch\['pi'\] must be \[\]"):
        EventReaderPolicy(
            obs_space, act_space, lambda _: 1e-3, history_k=K, net_arch={"pi": [8], "vf": [8]}
        )


BASE = {"game": "brilliant_boar", "env": CONFIG, "total_timesteps": 100}


@pytest.mark.parametrize(
    "data, message",
    [
        ({**BASE, "policy": {"kind": "event_reader"}}, "set history_k >= 1"),
        (
            {**BASE, "history_k": 8, "pretrain": {"teacher": "heuristic", "hand_coef": 1.0}},
            "policy.kind is 'mlp'",
        ),
        ({**BASE, "history_k": 8, "policy": {"kind": "lstm"}}, "policy.kind"),
        (
            {**BASE, "history_k": 8, "policy": {"kind": "event_reader", "reader_positions": 60}},
            "reader_positions",
        ),
    ],
)
def test_reader_config_errors_name_the_key(data, message):
    with pytest.raises(ConfigError, match=message):
        parse_train_config(data)


def test_pretraining_teaches_the_hand_belief(tmp_path):
    """pretrain.hand_coef: the auxiliary loss is fitted and its accuracy reported; without
    it the belief is not trained towards the replay (lower accuracy on the same games)."""
    from braincards.training.learning.sb3 import train

    def run(coef):
        cfg = parse_train_config({
            **BASE, "history_k": K, "total_timesteps": 32, "n_envs": 1,
            "policy": {"kind": "event_reader", "reader_hidden": 32, "reader_positions": 8, "net_arch": [16]},
            "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1},
            "opponents": {"pool": [{"source": "heuristic", "weight": 1.0}]},
            "pretrain": {"teacher": f"heuristic:window={K}", "games": 30, "chunk_games": 30, "epochs": 15,
                         "batch_size": 64, "hand_coef": coef},
            "evaluation": {"every": 32, "games": 2, "opponents": ["heuristic"]},
        })
        train(cfg, tmp_path / f"run{coef}", progress=False, log=lambda *a, **k: None)
        return json.loads((tmp_path / f"run{coef}" / "evaluations.json").read_text())["pretrain"]

    with_aux = run(1.0)
    assert 0 <= with_aux["hand_accuracy"] <= 1
    assert with_aux["hand_accuracy"] > 0.5
    assert "hand_accuracy" not in run(0.0)


def test_rllib_backend_refuses_the_event_reader(tmp_path, capsys):
    """--backend rllib builds RLlib's MLP module: an event_reader config is an error up front
    (before Ray is even imported), not an MLP trained silently in its place."""
    from braincards.training.cli.main import main

    cfg = tmp_path / "c.yaml"
    cfg.write_text("game: brilliant_boar\nenv: {num_players: 2, memory: none}\nhistory_k: 8\n"
                   "total_timesteps: 64\npolicy: {kind: event_reader}\n")
    assert main(["train", str(cfg), "--backend", "rllib", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "policy.kind 'event_reader' trains with the sb3 backend only" in err


def _reader_run(path, k):
    """A model for an event_reader run at history_k=k that warm-starts from ``path``."""
    from braincards.training.learning.sb3 import build_model, make_vec_env

    cfg = parse_train_config({
        **BASE, "history_k": k, "n_envs": 1,
        "policy": {"kind": "event_reader", "reader_hidden": 16, "reader_positions": 8, "net_arch": [32]},
        "backend": {"init_from": str(path)},
    })
    return cfg, build_model(cfg, make_vec_env(cfg), None)


def test_a_warm_start_may_read_more_events_than_the_reader_was_trained_on(tmp_path):
    """The reader's weights do not depend on k (the GRU reads slot after slot), so a reader
    trained on K events starts a run that reads 2K with every tensor as it was; the metadata
    says which k it was trained on."""
    from braincards.training.learning.sb3 import warm_start

    policy, reader = _saved_reader(tmp_path)
    cfg, model = _reader_run(reader, 2 * K)
    meta = warm_start(model, cfg)
    assert (meta["history_k"], meta["trained_history_k"]) == (2 * K, K)
    assert meta["observation_shape"] == list(model.observation_space.shape)
    loaded = model.policy.state_dict()
    for name, tensor in policy.state_dict().items():
        assert torch.equal(loaded[name], tensor), name


def test_only_an_event_reader_warm_start_may_change_history_k(tmp_path):
    """A run that resumes keeps its history_k, and a network whose first layer has one weight per
    observation float (the MLP) cannot read another number of events: both are clear errors."""
    from braincards.training.agents.checkpoint_checks import reread_history

    _, reader = _saved_reader(tmp_path)
    meta = read_metadata(reader)
    with pytest.raises(CheckpointError, match="a resumed run keeps its history_k"):
        reread_history(meta, 2 * K, "--resume reader", resume=True)
    mlp = dict(meta, policy={"class": "MaskableActorCriticPolicy", "kwargs": {}})
    with pytest.raises(CheckpointError, match="only an event_reader network .* MaskableActorCriticPolicy"):
        reread_history(mlp, 2 * K, "backend.init_from reader")
    with pytest.raises(CheckpointError, match="an integer history_k >= 1"):
        reread_history(meta, 0, "backend.init_from reader")
    with pytest.raises(CheckpointError, match=r"history_k=300: k=300 is out of range; allowed: integers in 1..256"):
        reread_history(meta, 300, "backend.init_from reader")
