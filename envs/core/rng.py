"""Seeded randomness that survives a JSON round trip (no global RNG anywhere)."""

from __future__ import annotations

import random


def make_rng(seed: int | None) -> random.Random:
    """A private ``random.Random``; ``seed=None`` draws fresh OS entropy."""
    return random.Random(seed)


def rng_to_json(rng: random.Random) -> list:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def rng_from_json(data) -> random.Random:
    rng = random.Random()
    version, internal, gauss = data
    rng.setstate((version, tuple(internal), gauss))
    return rng
