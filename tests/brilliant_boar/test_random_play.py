"""Random play through the public AEC API over every level, player count and variant
(2,048 games): card conservation, mask == exactly the actions the rules accept,
termination, rewards (zero-sum by rank, R-W7; scores in solo, R-W8)."""

from __future__ import annotations

import itertools
import random

import pytest

from braincards.envs.brilliant_boar import env, rules
from braincards.envs.brilliant_boar.cards import MOTIF_OF

from ..common import assert_mask_matches_rules, play_games

CONFIGS = [
    {"num_players": p, "level": lv, "name_card": nc, "memory": mem}
    for p, lv, nc, mem in itertools.product((1, 2, 3, 4), (1, 2, 3, 4), (False, True), ("none", "perfect"))
]
GAMES_PER_CONFIG = 32  # 64 configs x 32 = 2,048 games


def _on_step(raw):
    s = raw.state
    if s.num_players == 1:
        assert s.middle == []  # R-W8
    elif not s.name_card:  # R-W5: the base game's middle never holds two of a motif
        motifs = [MOTIF_OF[c] for c in s.middle]
        assert len(set(motifs)) == len(motifs)
    else:
        assert s.errors == []
    if s.phase == rules.TURN:
        assert s.pile or s.hands[s.seat]  # R-W4: a seat with no legal action is skipped


def _on_end(raw, returns):
    s = raw.state
    assert rules.is_terminal(s)
    assert not s.pile  # the game only ends on an empty pile (R-W7 / R-W8)
    assert sum(1 for h in s.hands if h) <= 1 or s.num_players == 1
    pts = rules.scores(s)
    want = rules.returns(s, raw.reward, raw.normalize)
    assert [returns[a] for a in raw.possible_agents] == pytest.approx(want)
    assert [raw.infos[a]["score"] for a in raw.possible_agents] == pts
    if s.num_players > 1 and raw.reward == "rank":
        assert sum(want) == pytest.approx(0.0)  # zero-sum
        best = max(pts)
        for p, r in zip(pts, want, strict=True):
            assert (r > 0) == (p == best and pts.count(best) < len(pts))
    if s.num_players == 1:
        assert pts[0] == len(s.won[0]) - len(s.errors) - len(s.hands[0])


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(str(v) for v in c.values()))
def test_random_play_invariants(cfg):
    reward = "score" if cfg["num_players"] == 1 or cfg["level"] == 2 else "rank"

    def make(rng):
        return env(**cfg, reward=reward, normalize=cfg["level"] == 3 and reward == "score")

    stats = play_games(
        make,
        rules,
        GAMES_PER_CONFIG,
        seed=CONFIGS.index(cfg),
        mask_check_every=23 if cfg["name_card"] else 5,
        on_step=_on_step,
        on_end=_on_end,
    )
    assert stats.games == GAMES_PER_CONFIG == stats.terminated  # the default max_cycles never cuts
    assert stats.decisions > 0


def test_random_play_every_decision_mask_checked():
    """A few games with the mask checked against the rules at every single decision."""
    for cfg in (CONFIGS[0], CONFIGS[-1], {"num_players": 3, "level": 4, "name_card": True}):
        play_games(lambda rng, cfg=cfg: env(**cfg), rules, 3, seed=11, mask_check_every=1)


def test_random_play_truncation_by_max_cycles():
    """max_cycles counts each agent's decisions; a truncated game pays nothing."""
    stats = play_games(lambda rng: env(num_players=2, max_cycles=6), rules, 20, seed=3)
    assert stats.truncated == 20


def test_random_play_with_the_choice_reaches_every_decision_kind():
    """Random play does reach the pile-or-middle choice (R-W5), and both answers."""
    rng = random.Random(5)
    seen = set()
    for g in range(200):
        e = env(num_players=2, level=1)
        e.reset(seed=g)
        raw = e.unwrapped
        for _ in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = [a for a, ok in enumerate(obs["action_mask"]) if ok]
            if raw.state.phase == rules.CHOOSE:
                assert_mask_matches_rules(raw, rules, obs["action_mask"])
                a = rng.choice(legal)
                seen.add(a)
            else:
                a = rng.choice(legal)
            e.step(a)
        if seen == {rules.TAKE_TOP, rules.TAKE_MIDDLE}:
            break
    assert seen == {rules.TAKE_TOP, rules.TAKE_MIDDLE}
