"""Policies: legality over thousands of decisions, specs, checkpoint format and errors."""

from __future__ import annotations

import json
import random
import re
from contextlib import nullcontext

import numpy as np
import pytest

from braincards.envs import make
from braincards.training.agents.checkpoint import CheckpointError, read_metadata, save_checkpoint
from braincards.training.agents.heuristics import make_heuristic
from braincards.training.agents.network import load_policy
from braincards.training.agents.policy import PolicySpecError, RandomPolicy
from braincards.training.agents.specs import make_policy

# (game, config) pairs covering player counts and variants
CONFIGS = {
    "the_brain_v0": [
        {"num_players": 1},
        {"num_players": 2, "difficulty": "cat_burglar"},
        {"num_players": 3, "draw_rule": "optional", "open_hands": True},
        {"num_players": 4, "discard_peek": True, "memory": "none", "hand_size": 3},
    ],
    "oh_my_brain_v0": [
        {"num_players": 2},
        {"num_players": 3, "starting_brains": 20},
        {"num_players": 5},
    ],
    "brilliant_boar_v0": [
        {"num_players": 1},
        {"num_players": 2, "level": 1},
        {"num_players": 3, "name_card": True},
        {"num_players": 4, "memory": "perfect", "level": 2},
    ],
}


def play_checked(game: str, config: dict, spec, games: int, seed: int, min_decisions: int = 0) -> int:
    """Play games (at least ``games``, and until ``min_decisions``) with ``spec`` in every
    seat through the wrapped AEC env (illegal actions raise); assert every action is in the
    mask. Returns the number of decisions."""
    env = make(game, **config)
    n = len(env.possible_agents)
    pols = [make_policy(spec, game, config, seed=seed + i) for i in range(n)]
    decisions = 0
    rng = random.Random(seed)
    played = 0
    while played < games or decisions < min_decisions:
        played += 1
        env.reset(seed=rng.randrange(2**31))
        for i, p in enumerate(pols):
            p.reset(seed=rng.randrange(2**31) + i)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            a = pols[env.possible_agents.index(agent)].act(obs, agent)
            assert isinstance(a, int)
            assert obs["action_mask"][a] == 1, f"{spec} chose illegal {a} in {game} {config}"
            env.step(a)
            decisions += 1
    return decisions


@pytest.mark.parametrize("game", sorted(CONFIGS))
@pytest.mark.parametrize("spec", ["random", "heuristic"])
def test_policies_always_legal(game, spec):
    total = 0
    for k, config in enumerate(CONFIGS[game]):
        total += play_checked(game, config, spec, games=5, seed=100 + k, min_decisions=700)
    assert total >= 2500, total


def test_checkpoint_policy_always_legal(tiny_checkpoint, warns_solo_at):
    total = 0
    same_spaces = [{"num_players": 1}, {"num_players": 2, "difficulty": "cat_burglar"},
                   {"num_players": 4, "hand_size": 3, "draw_rule": "optional"}]
    for config in same_spaces:  # the solo checkpoint warns at larger tables (never at its own)
        n = config["num_players"]
        with nullcontext() if n == 1 else warns_solo_at(n):
            total += play_checked("the_brain_v0", config, str(tiny_checkpoint), games=5, seed=7,
                                  min_decisions=700)
    assert total >= 2000


def test_checkpoint_stochastic_is_seeded_and_legal(tiny_checkpoint, warns_solo_at):
    def run(seed):
        with warns_solo_at(2):
            p = load_policy(tiny_checkpoint, deterministic=False, game="the_brain_v0", config={"num_players": 2})
        env = make("the_brain_v0", raw=True, num_players=2)
        env.reset(seed=3)
        p.reset(seed=seed)
        out = []
        while not any(env.terminations.values()):
            obs = env.observe(env.agent_selection)
            a = p.act(obs)
            assert obs["action_mask"][a] == 1
            out.append(a)
            env.step(a)
        return out

    assert run(1) == run(1)


def test_random_policy_reproducible_and_uniform():
    obs = {"observation": np.zeros(3, np.float32), "action_mask": np.array([0, 1, 1, 0, 1], np.int8)}
    a = [RandomPolicy(5).act(obs) for _ in range(3)]
    p = RandomPolicy(5)
    b = [p.act(obs) for _ in range(300)]
    p.reset(seed=5)
    assert [p.act(obs) for _ in range(300)] == b
    assert set(b) == {1, 2, 4} and a[0] == b[0]
    with pytest.raises(ValueError, match="empty"):
        p.act({"observation": obs["observation"], "action_mask": np.zeros(5, np.int8)})


def test_boar_heuristic_remembers_its_hand_exactly():
    """memory='none': the heuristic's own memory equals the true hand motifs (checked
    against the hidden state, which the heuristic never reads)."""
    from braincards.envs.brilliant_boar.cards import MOTIF_OF

    for n in (1, 2, 3):
        env = make("brilliant_boar_v0", raw=True, num_players=n, memory="none")
        pols = [make_heuristic("brilliant_boar_v0", {"num_players": n, "memory": "none"}) for _ in range(n)]
        for g in range(5):
            env.reset(seed=g)
            for p in pols:
                p.reset()
            checked = 0
            while not any(env.terminations.values()) and not any(env.truncations.values()):
                agent = env.agent_selection
                i = env.possible_agents.index(agent)
                env.step(pols[i].act(env.observe(agent), agent))
                for j, a in enumerate(env.possible_agents):
                    truth = [MOTIF_OF[c] for c in env.state.hands[j]]
                    if pols[j].memory(a):
                        assert pols[j].memory(a) == truth
                        checked += 1
            assert checked > 0


def test_boar_heuristic_asked_but_overruled_still_remembers_its_hand():
    """DAgger asks the heuristic for a label and plays another move: played() tells it the
    move made, and its memory stays the true hand (without it, it drifts)."""
    from braincards.envs.brilliant_boar.cards import MOTIF_OF

    env = make("brilliant_boar_v0", raw=True, num_players=2, memory="none")
    teacher = make_heuristic("brilliant_boar_v0", {"num_players": 2, "memory": "none"})
    with pytest.raises(ValueError, match="before act"):
        teacher.played("player_0", 0)
    rng = np.random.default_rng(0)
    overruled = checked = 0
    for g in range(5):
        env.reset(seed=g)
        teacher.reset()
        while not any(env.terminations.values()) and not any(env.truncations.values()):
            agent = env.agent_selection
            obs = env.observe(agent)
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            if agent == "player_0":
                label = teacher.act(obs, agent)
                if label != action:
                    teacher.played(agent, action)
                    overruled += 1
            env.step(action)
            truth = [MOTIF_OF[c] for c in env.state.hands[0]]
            if teacher.memory("player_0"):
                assert teacher.memory("player_0") == truth
                checked += 1
    assert overruled > 20 and checked > 20


def _boar_window_games(window, games, seed=0, choose=None):
    """(agent, observation behind HistoryWrapper(window), true own-hand motifs) at every
    decision of 2-player games played by ``choose(agent, observation)`` (random play when
    None)."""
    from braincards.envs.brilliant_boar import HistoryWrapper
    from braincards.envs.brilliant_boar.cards import MOTIF_OF

    env = HistoryWrapper(make("brilliant_boar_v0", raw=True, num_players=2, memory="none"), k=window)
    rng = np.random.default_rng(seed)
    for g in range(games):
        env.reset(seed=g)
        raw = env.unwrapped
        while not any(raw.terminations.values()):
            agent = raw.agent_selection
            obs = env.observe(agent)
            seat = raw.possible_agents.index(agent)
            yield agent, obs, [MOTIF_OF[c] for c in raw.state.hands[seat]]
            if choose is None:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            else:
                env.step(choose(agent, obs))


def test_boar_window_heuristic_knows_exactly_the_cards_drawn_in_its_window():
    """heuristic:window=K rebuilds its hand from the last K public events alone: every card
    it names is right (checked against the hidden hand), a short window leaves the older
    cards unknown, and a window as long as the game knows the whole hand."""
    for window, must_forget in ((6, True), (256, False)):
        pol = make_policy(f"heuristic:window={window}", "brilliant_boar_v0", {"num_players": 2})
        known = unknown = 0
        for _, obs, truth in _boar_window_games(window, 6):
            recalled = pol.recall(obs["observation"])
            assert len(recalled) == len(truth)
            for r, t in zip(recalled, truth, strict=True):
                assert r in (-1, t)
                known += r != -1
                unknown += r == -1
        assert known > 100
        assert (unknown > 100) if must_forget else (unknown == 0)


def test_boar_window_heuristic_with_the_whole_game_plays_as_the_perfect_memory_heuristic():
    window = make_policy("heuristic:window=256", "brilliant_boar_v0", {"num_players": 2})
    perfect = make_heuristic("brilliant_boar_v0", {"num_players": 2})
    decisions = []

    def choose(agent, obs):  # the perfect-memory heuristic plays both seats
        base = {"observation": obs["observation"][: window.base_size], "action_mask": obs["action_mask"]}
        action = perfect.act(base, agent)
        assert window.act(obs, agent) == action
        decisions.append(action)
        return action

    for _ in _boar_window_games(256, 4, seed=1, choose=choose):
        pass
    assert len(decisions) > 200 and len(set(decisions)) > 5


def test_boar_window_heuristic_spec_errors_and_evaluation():
    from braincards.training.evaluation.evaluate import evaluate

    boar = {"num_players": 2}
    with pytest.raises(PolicySpecError, match="brilliant_boar_v0 only"):
        make_policy("heuristic:window=16", "the_brain_v0", {"num_players": 2})
    with pytest.raises(PolicySpecError, match="must be >= 1"):
        make_policy("heuristic:window=0", "brilliant_boar_v0", boar)
    with pytest.raises(PolicySpecError, match=r"1\.\.256"):
        make_policy("heuristic:window=300", "brilliant_boar_v0", boar)
    with pytest.raises(PolicySpecError, match="unknown heuristic parameter 'depth'"):
        make_policy("heuristic:depth=2", "brilliant_boar_v0", boar)
    pol = make_policy("heuristic:window=8", "brilliant_boar_v0", boar)
    env = make("brilliant_boar_v0", raw=True, **boar)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="HistoryWrapper with k >= 8"):
        pol.act(env.observe(env.agent_selection))
    # the harness wraps the env for it, and its games are those of the spec
    res = evaluate("brilliant_boar", boar, seats=["heuristic:window=8", "random"], games=20, seed=0, progress=False)
    assert res["policies"]["heuristic:window=8"]["win_rate"]["value"] > 0.7


def test_dagger_tells_a_remembering_teacher_the_learners_move(monkeypatch):
    from braincards.training.learning import pretrain
    from braincards.training.learning.learner_env import LearnerEnv, OpponentPool

    pool = OpponentPool("brilliant_boar_v0", {"num_players": 2}, [("random", 1.0)])
    env = LearnerEnv("brilliant_boar_v0", {"num_players": 2}, mode="seat", pool=pool, history_k=16)
    teacher = make_heuristic("brilliant_boar_v0", {"num_players": 2})
    calls = []
    real_played = teacher.played
    teacher.played = lambda agent, action: (calls.append(action), real_played(agent, action))
    rng = np.random.default_rng(1)
    # the "learner" plays the lowest legal action, which the heuristic often would not
    monkeypatch.setattr(pretrain, "_argmax_actions", lambda net, obs, masks: [int(np.flatnonzero(m)[0]) for m in masks])
    pretrain.record_games([env], [[teacher, teacher]], 2, 0.99, rng, actor=object())
    assert calls, "the teacher was never told the move that was played"


def test_boar_cloning_labels_are_the_heuristic_rule_of_the_recorded_observation():
    """The (observation, label) pairs pretraining records are aligned: with memory='perfect'
    every label is the heuristic's rule applied to the recorded observation alone (play the
    first remembered card whose motif is the pile's top or in the middle, else draw, else
    play position 0; a choice takes the middle card when the hand holds the pending motif).
    This is the function the README's Boar diagnostic says a 128x128 MLP fails to learn."""
    from braincards.training.agents.heuristics.brilliant_boar import (
        DRAW,
        PLAY,
        TAKE_MIDDLE,
        TAKE_TOP,
    )
    from braincards.training.learning.learner_env import LearnerEnv, OpponentPool
    from braincards.training.learning.pretrain import record_games

    cfg = {"num_players": 2, "level": 4, "memory": "perfect"}
    pool = OpponentPool("brilliant_boar_v0", cfg, [("heuristic", 1.0)])
    env = LearnerEnv("brilliant_boar_v0", cfg, mode="seat", pool=pool)
    teachers = [make_heuristic("brilliant_boar_v0", cfg) for _ in env.agents]
    obs, masks, actions, _ = record_games([env], [teachers], 30, 0.99, np.random.default_rng(0))
    layout = env.raw.observation_layout()

    def piece(o, name):
        return o[layout[name]["start"] : layout[name]["stop"]]

    kinds = {"pair": 0, "draw": 0, "forced": 0, "choose": 0}
    for o, mask, label in zip(obs, masks, actions, strict=True):
        hand_memory = piece(o, "own_hand_memory").reshape(54, 9)
        hand = [int(np.argmax(hand_memory[p])) for p in range(int((piece(o, "own_positions") > 0.5).sum()))]
        top = piece(o, "pile_top")
        targets = set(np.flatnonzero(piece(o, "middle") > 0).tolist()) | set(np.flatnonzero(top > 0.5).tolist())
        if np.argmax(piece(o, "decision")) == 1:
            kind, rule = "choose", TAKE_MIDDLE if int(np.argmax(piece(o, "pending"))) in hand else TAKE_TOP
        elif pairs := [p for p, m in enumerate(hand) if m in targets]:
            kind, rule = "pair", PLAY + pairs[0]
        elif mask[DRAW]:
            kind, rule = "draw", DRAW
        else:
            kind, rule = "forced", PLAY
        assert rule == label, (kind, hand, sorted(targets))
        kinds[kind] += 1
    assert kinds["pair"] > 100 and kinds["draw"] > 100 and kinds["forced"] > 10


# ---------------------------------------------------------------------------- specs
def test_unknown_spec_lists_what_is_allowed():
    allowed = ("allowed policy specs: 'random', 'heuristic[:style=careful|cautious|bold|scoring]', 'greedy', 'pimc[:samples=N,nodes=N]', "
               "'guided:checkpoint=NAME[,top=K,judge=greedy|pimc,samples=N,nodes=N,confident=P]', "
               "'package.module:attr'")
    with pytest.raises(PolicySpecError, match=re.escape(allowed)):
        make_policy("grandmaster", "the_brain_v0")
    with pytest.raises(PolicySpecError, match=re.escape("allowed policy specs: 'random', 'heuristic[:window=K,style=keeper|shedder]', "
                                                        "'package.module:attr'")):
        make_policy("grandmaster", "brilliant_boar_v0")  # only the kinds and parameters of its game
    with pytest.raises(PolicySpecError, match="no checkpoint at"):
        make_policy("the_brain/does_not_exist", "the_brain_v0")
    with pytest.raises(PolicySpecError):
        make_policy(42, "the_brain_v0")


def test_named_checkpoint_resolves_under_checkpoints_dir(tiny_checkpoint, monkeypatch):
    monkeypatch.setenv("BRAINCARDS_CHECKPOINTS", str(tiny_checkpoint.parent.parent))
    p = make_policy("the_brain/tiny", "the_brain_v0", {"num_players": 1})
    assert p.metadata["game"] == "the_brain_v0"
    from braincards.training.agents.locations import available_checkpoints

    names = available_checkpoints("the_brain_v0")
    assert "the_brain/tiny" in names  # from $BRAINCARDS_CHECKPOINTS, beside the package's own
    assert all(n.startswith("the_brain/") for n in names), names  # only this game's
    with pytest.raises(PolicySpecError, match="the_brain/tiny"):
        make_policy("nope", "the_brain_v0")  # the listing names what exists


# ---------------------------------------------------------------------------- checkpoints
def test_checkpoint_metadata_format(tiny_checkpoint):
    meta = read_metadata(tiny_checkpoint)
    for key in ("format", "format_version", "game", "env_config", "algo", "observation_shape",
                "action_n", "timesteps", "seed", "versions", "evaluation", "training", "created"):
        assert key in meta, key
    assert meta["game"] == "the_brain_v0" and meta["algo"] == "MaskablePPO"
    assert meta["timesteps"] >= 128 and meta["action_n"] == 43
    assert {"torch", "stable-baselines3", "sb3-contrib", "python"} <= set(meta["versions"])
    # path forms: NAME, NAME.zip, NAME.json
    for form in (tiny_checkpoint, f"{tiny_checkpoint}.zip", f"{tiny_checkpoint}.json"):
        assert read_metadata(form) == meta


def test_loading_sets_one_torch_thread(tiny_checkpoint):
    import torch

    torch.set_num_threads(2)
    load_policy(tiny_checkpoint, game="the_brain_v0", config={"num_players": 1})
    assert torch.get_num_threads() == 1


def _copy(src, dst):
    dst.parent.mkdir(parents=True, exist_ok=True)
    for suffix in (".zip", ".json"):
        dst.with_suffix(suffix).write_bytes(src.with_suffix(suffix).read_bytes())
    return dst


def test_missing_checkpoint(tmp_path, tiny_checkpoint):
    with pytest.raises(CheckpointError, match="does not exist"):
        load_policy(tmp_path / "nothing.zip")
    ck = _copy(tiny_checkpoint, tmp_path / "nojson")
    ck.with_suffix(".json").unlink()
    with pytest.raises(CheckpointError, match=r"nojson\.json does not exist \(a checkpoint is the pair"):
        load_policy(ck)


def test_corrupt_checkpoint(tmp_path, tiny_checkpoint):
    ck = _copy(tiny_checkpoint, tmp_path / "corrupt")
    ck.with_suffix(".zip").write_bytes(b"this is not a zip file")
    with pytest.raises(CheckpointError, match="corrupt"):
        load_policy(ck)
    ck2 = _copy(tiny_checkpoint, tmp_path / "truncated")
    data = tiny_checkpoint.with_suffix(".zip").read_bytes()
    ck2.with_suffix(".zip").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="corrupt"):
        load_policy(ck2)
    ck3 = _copy(tiny_checkpoint, tmp_path / "badjson")
    ck3.with_suffix(".json").write_text("{not json")
    with pytest.raises(CheckpointError, match="not valid JSON"):
        load_policy(ck3)
    ck4 = _copy(tiny_checkpoint, tmp_path / "otherjson")
    ck4.with_suffix(".json").write_text(json.dumps({"hello": 1}))
    with pytest.raises(CheckpointError, match="not braincards checkpoint metadata"):
        load_policy(ck4)


def test_checkpoint_for_another_game(tiny_checkpoint):
    with pytest.raises(CheckpointError, match="trained for the_brain_v0, not oh_my_brain_v0"):
        load_policy(tiny_checkpoint, game="oh_my_brain_v0", config={"num_players": 2})
    with pytest.raises(CheckpointError, match="trained for the_brain_v0"):
        make_policy(str(tiny_checkpoint), "brilliant_boar_v0", {"num_players": 2})


def test_checkpoint_with_other_spaces(tiny_checkpoint, tmp_path):
    # memory="none" drops the covered-card and discard pieces: another observation size
    with pytest.raises(CheckpointError, match="does not fit the_brain_v0"):
        load_policy(tiny_checkpoint, game="the_brain_v0", config={"memory": "none"})
    # metadata that lies about the model's spaces is caught too
    ck = _copy(tiny_checkpoint, tmp_path / "lying")
    meta = json.loads(ck.with_suffix(".json").read_text())
    meta["observation_shape"] = [12]
    ck.with_suffix(".json").write_text(json.dumps(meta))
    # (even without game=: the metadata's spaces must be those of its own game and options)
    with pytest.raises(CheckpointError, match=r"has observation \[12\].*the env has observation \[2260\]"):
        load_policy(ck)


def test_save_checkpoint_refuses_mismatched_config(tiny_model, tmp_path):
    with pytest.raises(CheckpointError, match="do not fit"):
        save_checkpoint(tiny_model, tmp_path / "x", "the_brain_v0", {"memory": "none"})
    with pytest.raises(ValueError, match="unknown game"):
        save_checkpoint(tiny_model, tmp_path / "x", "chess_v0", {})
    assert not (tmp_path / "x.zip").exists()


def test_recurrent_ppo_checkpoint(tmp_path, warns_solo_at):
    """RecurrentPPO checkpoints load too: the LSTM state runs through the game, the logits
    are masked by the policy (RecurrentPPO itself has no masks)."""
    from sb3_contrib import RecurrentPPO

    from braincards.envs.the_brain import solo_env

    env = solo_env(num_players=1, illegal_action="penalize")
    model = RecurrentPPO("MlpLstmPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0,
                         policy_kwargs={"net_arch": [16], "lstm_hidden_size": 8}, device="cpu")
    model.learn(32)
    save_checkpoint(model, tmp_path / "rec", "the_brain_v0", {"num_players": 1, "illegal_action": "penalize"})
    assert read_metadata(tmp_path / "rec")["algo"] == "RecurrentPPO"
    with warns_solo_at(2):
        assert play_checked("the_brain_v0", {"num_players": 2}, str(tmp_path / "rec"), games=3, seed=1,
                            min_decisions=200) >= 200


@pytest.mark.parametrize("field, value, message", [
    ("action_n", "x", "action_n"),
    ("observation_shape", "abc", "observation_shape"),
    ("env_config", [1], "env_config"),
    ("env_config", {"num_players": 9}, "env_config"),
    ("env_config", {"foo": 1}, "env_config"),
    ("game", 5, "game"),
])
def test_corrupt_metadata_fields(tmp_path, tiny_checkpoint, field, value, message):
    """Metadata with fields of the wrong kind is refused with a CheckpointError that
    names the file, never a bare TypeError/ValueError from deep inside."""
    ck = _copy(tiny_checkpoint, tmp_path / "fields")
    meta = json.loads(ck.with_suffix(".json").read_text())
    meta[field] = value
    ck.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match=message) as info:
        load_policy(ck, game="the_brain_v0")
    assert str(ck) in str(info.value)


def test_metadata_checked_against_a_cached_model(tmp_path, tiny_checkpoint):
    ck = _copy(tiny_checkpoint, tmp_path / "cached")
    load_policy(ck)  # the model is now cached
    meta = json.loads(ck.with_suffix(".json").read_text())
    meta["observation_shape"] = [12]
    ck.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match=r"has observation \[12\]"):
        load_policy(ck)


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_heuristics_hold_no_env(game):
    """A heuristic sees the game only through the observations passed to act(): it keeps
    the observation layout, its config and its own memory, all plain data (no env, no
    state object it could peek into)."""
    def plain(x):
        if isinstance(x, dict):
            return all(plain(k) and plain(v) for k, v in x.items())
        if isinstance(x, (list, tuple)):
            return all(plain(v) for v in x)
        return x is None or isinstance(x, (str, int, float, bool))

    for config in CONFIGS[game]:
        h = make_heuristic(game, config)
        play_checked(game, config, h, games=1, seed=3)
        assert plain(vars(h)), vars(h)
