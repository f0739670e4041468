"""A policy network that reads Brilliant Boar's public events in order (``memory="none"``).

A plain MLP over :class:`~braincards.envs.brilliant_boar.HistoryWrapper`'s event slots does
not learn to rebuild its own hand (docs/notebook.md, "Shipped checkpoints": why the MLP fails): a
drawn card's position shifts every time an earlier card is played, and each hand position
needs its own conjunction of motif and target. :class:`EventReaderPolicy` gives the network
the structure of the task instead:

* a GRU reads the ``k`` event slots from the oldest to the most recent;
* a linear *hand head* turns its last state into a belief, per hand position 0..P-1, over
  the 9 motifs and "unknown" (drawn before the window);
* one small *scorer*, shared by every position, scores playing position p from that
  position's belief and a context (the GRU state and the table: pile top, middle, pending
  choice, ...), so "play the card that matches" is learned once, not 54 times;
* draw and the pile-or-middle choice are scored from the context; name-a-card plays
  (R-W6) add a per-motif term to the position's score.

Nothing here is told where its cards are: the belief is what the GRU makes of the events.
Pretraining can teach it with an auxiliary loss (``pretrain.hand_coef``) whose target,
:func:`hand_targets`, is a function of the observation alone - the replay of the
observer's own draws and plays in the window (``recall_hand``), the same memory the
``heuristic:window=K`` player has. At play time only the network runs.

The features the extractor hands to SB3 are ``[action logits | context]``: the actor's
``action_net`` is a parameter-free slice of the logits, the critic an MLP (``net_arch``'s
``vf``) over the whole vector. Checkpoints store it as ``EventReaderPolicy`` with
``history_k``, ``reader_hidden`` and ``reader_positions``; the safe loader rebuilds it from
those numbers (:mod:`braincards.training.agents.checkpoint`).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn as nn
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.preprocessing import preprocess_obs
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from braincards.envs.brilliant_boar import rules
from braincards.envs.brilliant_boar.cards import NUM_MOTIFS
from braincards.envs.brilliant_boar.history import EVENT_SIZE, MAX_K, UNKNOWN_MOTIF, recall_hand

BELIEFS = NUM_MOTIFS + 1  # the 9 motifs, then "unknown"
UNKNOWN_CLASS = NUM_MOTIFS
IGNORE = -100  # hand_targets beyond the hand (torch's cross-entropy ignore_index)
TABLE_WIDTH = 128
CONTEXT_WIDTH = 32
SCORER_WIDTH = 64
MAX_HIDDEN = 1024
ACTION_COUNTS = (rules.NUM_ACTIONS_PLAIN, rules.NUM_ACTIONS_NAMED)


def check_reader(
    observation_size: int, action_n: int, history_k: int, hidden: int, positions: int
) -> int:
    """Validate an event reader's numbers against its spaces; returns the table's size
    (the observation before the event slots). ValueError naming what is wrong."""
    if not (isinstance(history_k, int) and 1 <= history_k <= MAX_K):
        raise ValueError(
            f"history_k={history_k!r}: the event reader needs HistoryWrapper's k, an integer in 1..{MAX_K}"
        )
    if not (isinstance(hidden, int) and 1 <= hidden <= MAX_HIDDEN):
        raise ValueError(f"reader_hidden={hidden!r}; allowed: integers in 1..{MAX_HIDDEN}")
    if not (isinstance(positions, int) and 1 <= positions <= rules.MAX_HAND):
        raise ValueError(
            f"reader_positions={positions!r}; allowed: integers in 1..{rules.MAX_HAND}"
        )
    if action_n not in ACTION_COUNTS:
        raise ValueError(
            f"the event reader plays Brilliant Boar's {ACTION_COUNTS} actions, not {action_n}"
        )
    table = observation_size - history_k * EVENT_SIZE
    if table <= 0:
        raise ValueError(f"an observation of {observation_size} floats cannot hold {history_k} event slots "
                         f"of {EVENT_SIZE}: is the env behind HistoryWrapper(k={history_k})?")
    return table


class EventReader(BaseFeaturesExtractor):
    """Features ``[action logits | context]`` from the table and the event slots (module docstring)."""

    def __init__(
        self, observation_space, *, history_k: int, hidden: int, positions: int, action_n: int
    ):
        size = int(observation_space.shape[0])
        table = check_reader(size, action_n, history_k, hidden, positions)
        super().__init__(observation_space, action_n + hidden + TABLE_WIDTH)
        self.table_size, self.history_k, self.positions, self.action_n = (
            table,
            history_k,
            positions,
            action_n,
        )
        self.gru = nn.GRU(EVENT_SIZE, hidden, batch_first=True)
        self.table = nn.Sequential(nn.Linear(table, TABLE_WIDTH), nn.ReLU())
        self.hand = nn.Linear(hidden, positions * BELIEFS)
        self.context = nn.Sequential(nn.Linear(hidden + TABLE_WIDTH, CONTEXT_WIDTH), nn.ReLU())
        self.scorer = nn.Sequential(nn.Linear(BELIEFS + CONTEXT_WIDTH, SCORER_WIDTH), nn.ReLU(),
                                    nn.Linear(SCORER_WIDTH, 1))
        self.named = (
            nn.Linear(BELIEFS + CONTEXT_WIDTH, NUM_MOTIFS) if action_n > rules.NAMED else None
        )
        # draw, take the pile's top, take the middle card
        self.others = nn.Sequential(
            nn.Linear(hidden + TABLE_WIDTH, SCORER_WIDTH), nn.ReLU(), nn.Linear(SCORER_WIDTH, 3)
        )
        # positions the belief does not cover all share one learned score
        self.beyond = nn.Parameter(torch.zeros(1))

    def read(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(summary ``[GRU state | table]``, hand belief logits ``(batch, positions, 10)``)."""
        batch = obs.shape[0]
        events = (
            obs[:, self.table_size :].reshape(batch, self.history_k, EVENT_SIZE).flip(1)
        )  # oldest first
        _, state = self.gru(events)
        state = state[-1]
        summary = torch.cat([state, self.table(obs[:, : self.table_size])], 1)
        return summary, self.hand(state).view(batch, self.positions, BELIEFS)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.features_and_hand(obs)[0]

    def features_and_hand(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The features (``forward``) and the hand belief logits, from one read of the events."""
        summary, hand = self.read(obs)
        batch, positions = obs.shape[0], self.positions
        context = self.context(summary)
        per_position = torch.cat(
            [torch.softmax(hand, 2), context.unsqueeze(1).expand(batch, positions, CONTEXT_WIDTH)],
            2,
        )
        play = self.scorer(per_position).squeeze(2)
        play = torch.cat([play, self.beyond.expand(batch, rules.MAX_HAND - positions)], 1)
        others = self.others(summary)
        parts = [others[:, :1], play, others[:, 1:]]  # DRAW, PLAY + p, TAKE_TOP, TAKE_MIDDLE
        if self.named is not None:  # NAMED + 9p + m: the play's score plus a motif term
            named = self.named(per_position) + play[:, :positions].unsqueeze(2)
            rest = (
                play[:, positions:]
                .unsqueeze(2)
                .expand(batch, rules.MAX_HAND - positions, NUM_MOTIFS)
            )
            parts.append(torch.cat([named, rest], 1).reshape(batch, -1))
        return torch.cat(parts + [summary], 1), hand


class Logits(nn.Module):
    """The actor's head: the first ``n`` features are already the action logits."""

    def __init__(self, n: int):
        super().__init__()
        self.n = n

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return latent[:, : self.n]


class EventReaderPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's actor-critic with :class:`EventReader` as the (shared) feature extractor
    and its logits as the actor; ``net_arch`` shapes the critic only (``{"pi": [], "vf": [...]}``)."""

    def __init__(self, observation_space, action_space, lr_schedule, *, history_k: int,
                 reader_hidden: int = 128, reader_positions: int = 16, net_arch=None, **kwargs):
        action_n = int(action_space.n)  # the spaces and numbers are checked by EventReader
        if net_arch is None:
            net_arch = {"pi": [], "vf": [128, 128]}
        if isinstance(net_arch, list):
            net_arch = {"pi": [], "vf": list(net_arch)}
        if net_arch.get("pi"):
            raise ValueError(
                f"the event reader's actor is its own scorer: net_arch['pi'] must be [], got {net_arch['pi']}"
            )
        self.history_k, self.reader_hidden, self.reader_positions = (
            history_k,
            reader_hidden,
            reader_positions,
        )
        super().__init__(observation_space, action_space, lr_schedule, net_arch=net_arch,
                         features_extractor_class=EventReader,
                         features_extractor_kwargs={"history_k": history_k, "hidden": reader_hidden,
                                                    "positions": reader_positions, "action_n": action_n},
                         share_features_extractor=True, **kwargs)
        # SB3 registers the shared extractor under three names; keep one in the state dict
        # (a checkpoint holds each tensor once), the other two stay plain aliases
        for alias in ("pi_features_extractor", "vf_features_extractor"):
            del self._modules[alias]
            object.__setattr__(self, alias, self.features_extractor)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = Logits(int(self.action_space.n))
        # the optimizer must hold exactly the parameters that are used
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    def hand_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """The hand belief ``(batch, reader_positions, 10)`` (pretraining's auxiliary loss)."""
        return self.features_extractor.read(preprocess_obs(obs, self.observation_space))[1]

    def evaluate_actions_and_hand(self, obs: torch.Tensor, actions: torch.Tensor,
                                  action_masks=None) -> tuple[torch.Tensor, ...]:
        """``evaluate_actions``' (values, log_prob, entropy) and :meth:`hand_logits`, from one
        read of the events: pretraining's losses without running the GRU twice."""
        features, hand = self.features_extractor.features_and_hand(
            preprocess_obs(obs, self.observation_space)
        )
        latent_pi, latent_vf = self.mlp_extractor(features)
        distribution = self._get_action_dist_from_latent(latent_pi)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        values = self.value_net(latent_vf)
        return values, distribution.log_prob(actions), distribution.entropy(), hand


def hand_targets(observations: np.ndarray, table_size: int, history_k: int, positions: int,
                 own_positions: slice) -> np.ndarray:
    """The auxiliary target for :meth:`EventReaderPolicy.hand_logits`: per observation and
    hand position 0..positions-1, the motif the events tell (``recall_hand``), 9 for a card
    drawn before the window, :data:`IGNORE` beyond the hand. A function of the observation
    alone (the observer's own public draws and plays), never of the hidden state."""
    obs = np.asarray(observations)
    out = np.full((len(obs), positions), IGNORE, np.int64)
    for i, row in enumerate(obs):
        events = row[table_size : table_size + history_k * EVENT_SIZE].reshape(
            history_k, EVENT_SIZE
        )
        hand = recall_hand(events, int(np.count_nonzero(row[own_positions] > 0.5)))[:positions]
        out[i, : len(hand)] = [UNKNOWN_CLASS if m == UNKNOWN_MOTIF else m for m in hand]
    return out

