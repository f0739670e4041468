"""Seeded randomness that survives a JSON round trip (no global RNG anywhere)."""

from __future__ import annotations

import random

import numpy as np


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


def derive_seed(*parts: int) -> int:
    """A 32-bit seed derived from non-negative ints (numpy's SeedSequence hashing): game g
    of a run with seed S is dealt from ``derive_seed(S, g)``."""
    ints = [int(p) for p in parts]
    if any(p < 0 for p in ints):
        raise ValueError(f"seeds must be non-negative integers, got {parts}")
    return int(np.random.SeedSequence(ints).generate_state(1, dtype=np.uint32)[0])
