"""Behaviour cloning before PPO: the learner first imitates a teacher policy.

Sparse, end-of-game rewards make self-play slow to start on The Brain (a random team plays
out about 9 of 36 cards and never wins). With ``pretrain`` in the config, the trainer first
records games in which ``teacher`` (any policy spec: ``heuristic``, a checkpoint, ...) plays
the learner's seats - the same :class:`~braincards.training.learning.learner_env.LearnerEnv` the
learner will train in, so the same seats, opponents and observations - and fits the policy
head to the teacher's actions (masked cross-entropy) and the value head to the discounted
returns of those games (mean squared error). PPO then starts from there.

Games are recorded and fitted in chunks (``chunk_games`` at a time), so memory stays small
whatever ``games`` is. With ``dagger: true`` (DAgger, Ross et al. 2011) every chunk after the
first is played by the learner itself and labelled by the teacher, so the learner also learns
what the teacher would do in the states its own mistakes lead to. The value head then fits
the returns of the learner's own play (the teacher's in the first chunk). ``dagger_after``
lets the teacher play more than the first chunk. With ``replay_chunks`` > 1 each chunk is
fitted together with the previous ones' games (DAgger's aggregation, bounded to the last
``replay_chunks`` chunks, so memory stays bounded too).

With ``hand_coef > 0`` (Brilliant Boar's event reader) a third term, weighted by it, teaches
the reader's hand belief the replay of its own draws and plays in the observation's event
slots (:func:`~braincards.training.agents.event_reader.hand_targets`); the stats then report its
accuracy (``hand_accuracy``, on the chunk after fitting it).
"""

from __future__ import annotations

import collections
from collections.abc import Sequence

import numpy as np
import torch

from .. import kernels
from ..agents.checkpoint import detached_state
from ..agents.event_reader import IGNORE, hand_targets
from ..agents.logits import action_log_probs, values_and_log_prob
from ..agents.network import set_torch_threads
from ..agents.specs import make_policy
from ..agents.table import prefix
from ..processes import Worker
from .learner_env import LearnerEnv

DAGGER_BATCH = 64  # DAgger games played side by side


def record_games(envs: Sequence[LearnerEnv], teachers: Sequence[list], games: int, gamma: float,
                 rng: np.random.Generator, actor=None) -> tuple[np.ndarray, ...]:
    """Play ``games`` games at the learner's seats and label every decision with the action
    of the teacher in that seat (``teachers[i][seat]`` for ``envs[i]``); returns the
    learner's observations, masks, the teacher's actions and the discounted returns, game
    after game. The teachers play, unless ``actor`` (a policy network: DAgger) is given -
    then it plays its most likely action and the teachers only label, so that the learner
    is taught on the states its own play reaches.

    The envs play side by side, one game each at a time, so that the actor decides for all
    of them in one batch. Every game's seeds are drawn from ``rng`` when it starts, in the
    order the games start, and the games come back in that order: the result does not depend
    on how many envs play them."""
    if len(envs) != len(teachers) or not envs:
        raise ValueError(f"record_games needs one list of teachers per env: {len(envs)} envs, "
                         f"{len(teachers)} teacher lists")
    base = envs[0].raw.layout.size
    recorded: list[tuple] = []  # per game: observations, masks, labels, rewards
    playing: list[tuple | None] = [None] * len(envs)  # per env: (game, obs) or None when idle

    def start(i: int) -> None:
        obs, _ = envs[i].reset(seed=int(rng.integers(2**31)))
        for j, t in enumerate(teachers[i]):
            t.reset(seed=int(rng.integers(2**31)) + j)
        recorded.append(([], [], [], []))
        playing[i] = (len(recorded) - 1, obs)

    for i in range(min(len(envs), games)):
        start(i)
    while any(p is not None for p in playing):
        live = [i for i, p in enumerate(playing) if p is not None]
        labels, masks, seats = _label(envs, teachers, playing, live, recorded, base)
        played = dict(labels)
        if actor is not None:
            chosen = _argmax_actions(actor, np.stack([playing[i][1] for i in live]), np.stack([masks[i] for i in live]))
            for i, action in zip(live, chosen, strict=True):
                teacher = teachers[i][seats[i]]
                if action != labels[i] and hasattr(teacher, "played"):
                    # a teacher with a memory (Brilliant Boar's heuristic) must remember
                    # the move that was made, not the one it suggested
                    teacher.played(envs[i].agents[seats[i]], action)
                played[i] = action
        for i in live:
            game = playing[i][0]
            obs, reward, term, trunc, _ = envs[i].step(played[i])
            recorded[game][3].append(reward)
            if not (term or trunc):
                playing[i] = (game, obs)
            elif len(recorded) < games:
                start(i)
            else:
                playing[i] = None
    return _arrays(recorded, gamma)


def _label(envs, teachers, playing, live, recorded, base) -> tuple[dict, dict, dict]:
    """Each live env's teacher labels its decision, which is recorded; returns the labels,
    masks and seats by env index."""
    labels, masks, seats = {}, {}, {}
    for i in live:
        env, (game, obs) = envs[i], playing[i]
        seat = seats[i] = env.agents.index(env.raw.agent_selection if env.mode == "team" else env.learner)
        mask = masks[i] = env.action_masks()
        size = getattr(teachers[i][seat], "observation_size", base)
        seen = prefix({"observation": obs, "action_mask": mask.astype(np.int8)}, size)
        labels[i] = teachers[i][seat].act(seen, env.agents[seat])
        o, m, a, _ = recorded[game]
        o.append(obs.copy())
        m.append(mask.copy())
        a.append(labels[i])
    return labels, masks, seats


def _arrays(recorded: list[tuple], gamma: float) -> tuple[np.ndarray, ...]:
    """The recorded games as arrays: observations, masks, labels and discounted returns."""
    obs_l, mask_l, act_l, ret_l = [], [], [], []
    for o, m, a, rewards in recorded:
        obs_l += o
        mask_l += m
        act_l += a
        g, rets = 0.0, []
        for r in reversed(rewards):
            g = r + gamma * g
            rets.append(g)
        ret_l.extend(reversed(rets))
    observations = np.stack(obs_l).astype(np.float32, copy=False) if obs_l else np.zeros((0, 0), np.float32)
    return observations, np.asarray(mask_l, bool), np.asarray(act_l, np.int64), np.asarray(ret_l, np.float32)


def _argmax_actions(network, obs: np.ndarray, masks: np.ndarray) -> list[int]:
    """The network's most likely legal action for each row."""
    with torch.no_grad():
        return _probs(network, torch.as_tensor(obs), masks).argmax(-1).tolist()


def _probs(network, obs_t, masks):
    """The masked action probabilities (sb3-contrib's ``distribution.probs``, bit for bit)."""
    return torch.nn.functional.softmax(action_log_probs(network, obs_t, masks), dim=-1)


def pretrain(model, cfg, envs: Sequence[LearnerEnv], log) -> dict:
    """Behaviour-clone ``cfg.pretrain.teacher`` into ``model.policy`` (see the module
    docstring); returns the final chunk's action agreement after fitting it, its
    ``held_out_agreement`` (the same games before fitting them: the policy's agreement on
    games it had not trained on, on its own states with DAgger) and value loss. ``envs``
    play the games side by side (:func:`record_games`; :func:`pretrain_envs` builds them);
    with ``record_ahead`` a :class:`Recorder` process plays them in envs of its own."""
    p = cfg.pretrain
    rng = np.random.default_rng([cfg.seed, 7])
    policy = model.policy
    policy.set_training_mode(False)  # acting and statistics in evaluation mode; _fit trains
    fused = p.fused_adam or kernels.adam_fused()  # portable kernels: torch's exact square root, not MKL's
    opt = torch.optim.Adam(policy.parameters(), lr=p.learning_rate, fused=True if fused else None)
    hand_target = _hand_target(policy, envs[0]) if p.hand_coef > 0 else None
    recorder = Recorder(cfg, envs, policy) if p.record_ahead else None
    teachers = None if recorder else [[make_policy(p.teacher, cfg.game, cfg.env) for _ in env.agents] for env in envs]
    done, stats = 0, {}
    kept = collections.deque(maxlen=p.replay_chunks)  # the chunks fitted together
    joined = _Joined(p.replay_chunks)
    try:
        if recorder:
            recorder.ask(0, policy)
        while done < p.games:
            n = min(p.chunk_games, p.games - done)
            lr = _learning_rate(p, done)
            for group in opt.param_groups:
                group["lr"] = lr
            learner = p.learner_plays(done)  # the first chunk(s): the teacher plays
            if recorder:
                obs, masks, actions, returns = recorder.result()
                # ask for the next chunk now, so that it is played while this one is fitted,
                # unless it would be the learner's first: that one waits for the first fit
                ahead = done + n < p.games and (done > 0 or not p.learner_plays(done + n))
                if ahead:
                    recorder.ask(done + n, policy)
            else:
                actor = policy if learner else None
                obs, masks, actions, returns = record_games(envs, teachers, n, cfg.ppo.gamma, rng, actor)
            done += n
            obs_t, masks_t = torch.as_tensor(obs), torch.as_tensor(masks)
            act_t, ret_t = torch.as_tensor(actions), torch.as_tensor(returns)
            hand_t = torch.as_tensor(hand_target(obs)) if hand_target else None
            held_out = _agreement(policy, obs_t, masks, act_t) if done > n else None
            kept.append((obs_t, masks_t, act_t, ret_t, hand_t))
            fit = kept[0] if len(kept) == 1 else joined.join(kept)
            fit_minibatches(policy, opt, p, rng, *fit)
            if recorder and not ahead and done < p.games:
                recorder.ask(done, policy)
            stats = _chunk_stats(policy, p, done, obs_t, masks, act_t, ret_t, hand_t, held_out, lr, learner, log)
    finally:
        if recorder:
            recorder.close()
    return stats


class _Joined:
    """The kept chunks' tensors joined end to end (``torch.cat``) into buffers reused from one
    chunk to the next: the same rows in the same order as a fresh ``torch.cat``, without
    allocating (and faulting in) about a GB of new memory for every chunk. A buffer that is
    too small grows to a quarter more rows than ``chunks`` chunks of the newest one's size
    would need (or than needed, if more)."""

    GROWTH = 1.25

    def __init__(self, chunks: int):
        self._chunks = chunks
        self._buffers: list[torch.Tensor | None] = []

    def join(self, kept) -> list[torch.Tensor | None]:
        columns = list(zip(*kept, strict=True))
        if not self._buffers:
            self._buffers = [None if c[0] is None else torch.empty((0, *c[0].shape[1:]), dtype=c[0].dtype)
                             for c in columns]
        out = []
        for i, column in enumerate(columns):
            buffer = self._buffers[i]
            if buffer is None:
                out.append(None)
                continue
            rows = sum(len(t) for t in column)
            if rows > len(buffer):
                size = int(max(rows, len(column[-1]) * self._chunks) * self.GROWTH)
                buffer = self._buffers[i] = torch.empty((size, *buffer.shape[1:]), dtype=buffer.dtype)
            out.append(torch.cat(column, out=buffer[:rows]))
        return out


def _chunk_stats(policy, p, done, obs_t, masks, act_t, ret_t, hand_t, held_out, lr, learner, log) -> dict:
    """The fitted chunk's agreement with the teacher, value loss (and hand accuracy), logged."""
    agree = _agreement(policy, obs_t, masks, act_t)
    with torch.no_grad():
        values = torch.cat([policy.predict_values(obs_t[b]).flatten() for b in _batches(len(obs_t))])
        vloss = float(torch.mean((values - ret_t) ** 2))
    stats = {"games": done, "samples": len(obs_t), "agreement": round(agree, 4),
             "held_out_agreement": None if held_out is None else round(held_out, 4),
             "value_mse": round(vloss, 4)}
    if hand_t is not None:
        stats["hand_accuracy"] = round(_hand_accuracy(policy, obs_t, hand_t), 4)
    who = "learner-played (DAgger)" if learner else "teacher"
    before = "" if held_out is None else f"{held_out:.4f} on these new games before fitting them, "
    hand = "" if hand_t is None else f"; hand belief accuracy {stats['hand_accuracy']:.4f}"
    log(f"pretrain: {done}/{p.games} games ({who}, lr {lr:.2g}), agreement with the teacher {before}"
        f"{agree:.4f} after; value mse {vloss:.4f}{hand}")
    return stats


class Recorder:
    """``pretrain.record_ahead``: a :class:`~braincards.training.processes.Worker` that
    records chunks (:func:`record_games`) while the trainer fits the previous one. It has its
    own envs (like the trainer's), its own teachers and its own copy of the policy, which
    :meth:`ask` refreshes with the trainer's weights for a learner-played chunk; its game seeds
    come from their own stream (``[seed, 7, 1]``), so a run is the same however the two
    processes are timed."""

    def __init__(self, cfg, envs: Sequence[LearnerEnv], policy):
        self._cfg = cfg
        self._worker = Worker("pretrain.record_ahead's recording process", _recorder_setup, _record_chunk,
                              (cfg, envs, policy))

    def ask(self, done: int, policy) -> None:
        """Record the chunk that starts after ``done`` games (played by ``policy``'s current
        weights if the learner plays it)."""
        p = self._cfg.pretrain
        weights = detached_state(policy) if p.learner_plays(done) else None
        self._worker.send((min(p.chunk_games, p.games - done), weights))

    def result(self) -> tuple[np.ndarray, ...]:
        """The chunk asked for: observations, masks, the teacher's actions, discounted returns."""
        return self._worker.receive()

    def close(self) -> None:
        self._worker.close()


def _recorder_setup(cfg, envs, policy) -> tuple:
    set_torch_threads(cfg.torch_threads)
    policy.set_training_mode(False)  # the copy only acts
    teachers = [[make_policy(cfg.pretrain.teacher, cfg.game, cfg.env) for _ in env.agents] for env in envs]
    return cfg, envs, teachers, policy, np.random.default_rng([cfg.seed, 7, 1])


def _record_chunk(state: tuple, asked: tuple) -> tuple[np.ndarray, ...]:
    cfg, envs, teachers, policy, rng = state
    games, weights = asked
    if weights is not None:
        policy.load_state_dict(weights)
    return record_games(envs, teachers, games, cfg.ppo.gamma, rng, policy if weights is not None else None)


def fit_minibatches(policy, opt, p, rng, obs_t, masks_t, act_t, ret_t, hand_t) -> None:
    """``p.epochs`` passes of minibatch Adam over the samples: masked cross-entropy to the
    teacher's actions, the value head's squared error, and the hand loss if ``hand_t``; the
    policy is left in evaluation mode."""
    policy.set_training_mode(True)
    for _ in range(p.epochs):
        order = torch.as_tensor(rng.permutation(len(obs_t)))
        for start in range(0, len(obs_t), p.batch_size):
            idx = order[start : start + p.batch_size]
            if hand_t is None:
                values, log_prob = values_and_log_prob(policy, obs_t[idx], act_t[idx], masks_t[idx])
            else:  # one read of the events serves both losses
                values, log_prob, _, hand = policy.evaluate_actions_and_hand(obs_t[idx], act_t[idx],
                                                                             action_masks=masks_t[idx])
            loss = -log_prob.mean() + p.value_coef * torch.mean((values.flatten() - ret_t[idx]) ** 2)
            if hand_t is not None:
                loss = loss + p.hand_coef * _hand_loss(hand, hand_t[idx])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            opt.step()
    policy.set_training_mode(False)


def pretrain_envs(cfg, make_env) -> list[LearnerEnv]:
    """The envs pretraining records in: :data:`DAGGER_BATCH` side by side when the learner
    plays some chunks (its moves are then decided in one batch), else one."""
    return [make_env(i) for i in range(DAGGER_BATCH if cfg.pretrain.dagger else 1)]


def _learning_rate(p, done: int) -> float:
    """The chunk's learning rate: ``learning_rate``, or linear from it (first chunk) to
    ``final_learning_rate`` (last chunk, which starts at ``games - chunk_games``)."""
    if p.final_learning_rate is None:
        return p.learning_rate
    last = max(p.games - p.chunk_games, 1)
    return p.learning_rate + (p.final_learning_rate - p.learning_rate) * min(done / last, 1.0)


def _batches(n: int, size: int = 4096) -> list[slice]:
    """Slices of at most ``size`` rows (evaluating a whole chunk at once can take GBs)."""
    return [slice(i, i + size) for i in range(0, n, size)]


def _agreement(policy, obs_t, masks: np.ndarray, act_t) -> float:
    """Share of the decisions where the policy's most likely action is the teacher's."""
    right = 0
    with torch.no_grad():
        for b in _batches(len(obs_t)):
            right += int((_probs(policy, obs_t[b], masks[b]).argmax(-1) == act_t[b]).sum())
    return right / max(len(obs_t), 1)


def _hand_target(policy, env: LearnerEnv):
    """obs -> hand targets for an :class:`EventReaderPolicy` (ValueError for another policy)."""
    if not hasattr(policy, "hand_logits"):
        raise ValueError(f"pretrain.hand_coef needs policy.kind 'event_reader', not a {type(policy).__name__}")
    own = env.raw.observation_layout()["own_positions"]
    reader = policy.features_extractor
    return lambda obs: hand_targets(obs, reader.table_size, reader.history_k, reader.positions,
                                    slice(own["start"], own["stop"]))


def _hand_loss(logits, hand_t):
    """Cross-entropy of the hand belief ``logits`` against the replayed motifs."""
    return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), hand_t.reshape(-1),
                                             ignore_index=IGNORE)


def _hand_accuracy(policy, obs_t, hand_t) -> float:
    """Share of the held hand positions whose most likely belief is the replayed motif."""
    right = held = 0
    with torch.no_grad():
        for b in _batches(len(obs_t)):
            ok = hand_t[b] >= 0
            right += int((policy.hand_logits(obs_t[b]).argmax(-1) == hand_t[b])[ok].sum())
            held += int(ok.sum())
    return right / held if held else 1.0
