"""Property-based checks of The Brain's rules engine (hypothesis): any deal, any config and
any sequence of legal choices keeps the 36 cards, ends the game and pays R-B9 rewards."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from braincards.envs.the_brain import rules
from braincards.envs.the_brain.cards import NUM_CARDS

configs = st.builds(
    rules.Config,
    num_players=st.integers(1, 4),
    limit=st.sampled_from([5, 6, 7, 12]),
    hand_size=st.integers(2, 7),
    draw_rule=st.sampled_from(rules.DRAW_RULES),
)


@settings(max_examples=150, deadline=None)
@given(config=configs, deck=st.permutations(range(NUM_CARDS)), choices=st.randoms(use_true_random=False))
def test_any_deal_and_any_legal_play_conserves_cards_and_ends(config, deck, choices: random.Random):
    state = rules.new_game(config, random.Random(0), deck=list(deck))
    for _ in range(10_000):
        if rules.is_terminal(state):
            break
        legal = rules.legal_actions(state)
        assert legal and legal == sorted(set(legal))
        rules.apply_action(state, choices.choice(legal))
        assert sorted(state.cards()) == list(range(NUM_CARDS))
        assert len(state.display) <= state.limit + 1
    assert rules.is_terminal(state)
    assert rules.returns(state) in ([1.0] * config.num_seats, [-1.0] * config.num_seats)
    assert rules.State.from_dict(state.to_dict()) == state
