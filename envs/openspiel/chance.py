"""The deal's random draws as explicit chance nodes: :class:`ChanceSource` and :class:`Recorder`.

Every braincards env deals a new game from a ``random.Random`` (``CardGameEnv.deal_state``).
CPython makes every integer draw of ``randrange``, ``shuffle``, ``sample`` and ``choice`` with one
private primitive, ``_randbelow(n)`` (a uniform integer in ``0..n-1``), and ``getrandbits(k)``
draws raw bits. :class:`ChanceSource` is a ``random.Random`` whose two primitives read the
outcomes of chance nodes instead of a generator:

* ``_randbelow(n)`` with ``n >= 2`` is one chance node of ``n`` equally likely outcomes (a
  draw from one value, ``n == 1``, is no node: its outcome is 0);
* ``getrandbits(k)`` is ``ceil(k / 8)`` nodes of 256 outcomes, one byte each, lowest byte
  first (the last node has ``2 ** (k % 8)`` outcomes when ``k`` is not a multiple of 8).

So ``shuffle`` of a list of ``m`` items is the Fisher-Yates walk, ``m - 1`` nodes of ``m``,
``m - 1``, ..., 2 outcomes, and ``sample(population, k)`` is ``k`` nodes: the deal's
distribution is exactly the env's. A deal replayed with too few outcomes stops at the next
node it needs with :class:`NeedOutcome` (how many outcomes that node has). Any other draw
(``random()``, floats) is refused: the deal of every braincards game needs none.

:class:`Recorder` is a seeded ``random.Random`` that draws exactly as a plain one does and
writes down the outcomes of the same nodes, so a deal of ``env.reset(seed=s)`` is replayed
chance node by chance node (:func:`outcomes_of_seed`).
"""

from __future__ import annotations

import random

BYTE = 256


class NeedOutcome(Exception):  # noqa: N818 - a signal, not an error
    """The replayed deal needs one more chance outcome, of ``size`` equally likely ones."""

    def __init__(self, size: int):
        super().__init__(f"the deal needs a chance outcome in 0..{size - 1}")
        self.size = size


def byte_sizes(k: int) -> list[int]:
    """The chance nodes of ``getrandbits(k)``: their numbers of outcomes, lowest byte first."""
    sizes = [BYTE] * (k // 8)
    if k % 8:
        sizes.append(2 ** (k % 8))
    return sizes


class ChanceSource(random.Random):
    """A random source that replays ``outcomes``, one chance node per draw (module docstring).

    ``sizes`` collects the number of outcomes of every node met so far (the replay's chance
    nodes, in order)."""

    def __init__(self, outcomes: list[int]):
        super().__init__(0)
        self._outcomes = outcomes
        self._next = 0
        self.sizes: list[int] = []

    def _node(self, size: int) -> int:
        if self._next == len(self._outcomes):
            raise NeedOutcome(size)
        value = self._outcomes[self._next]
        if not 0 <= value < size:
            raise ValueError(f"chance outcome {value} is not in 0..{size - 1}")
        self._next += 1
        self.sizes.append(size)
        return value

    def _randbelow(self, n: int) -> int:
        return self._node(n) if n > 1 else 0

    def getrandbits(self, k: int) -> int:
        value = 0
        for i, size in enumerate(byte_sizes(k)):
            value |= self._node(size) << (8 * i)
        return value

    def random(self) -> float:
        raise NotImplementedError(
            "a braincards deal drew a float; only integer draws (randrange, shuffle, sample, "
            "choice, getrandbits) become chance nodes"
        )

    def used_all(self) -> bool:
        """True when the deal used every given outcome."""
        return self._next == len(self._outcomes)


class Recorder(random.Random):
    """``random.Random(seed)`` that also writes down the chance outcomes it draws
    (``outcomes``), node for node as :class:`ChanceSource` reads them."""

    def __init__(self, seed):
        self.outcomes: list[int] = []
        self._inner = 0  # > 0 while _randbelow draws its bits (not a node of their own)
        super().__init__(seed)

    def _randbelow(self, n: int) -> int:
        self._inner += 1
        try:
            value = random.Random._randbelow(self, n)
        finally:
            self._inner -= 1
        if n > 1:
            self.outcomes.append(value)
        return value

    def getrandbits(self, k: int) -> int:
        value = super().getrandbits(k)
        if not self._inner:
            for i, size in enumerate(byte_sizes(k)):
                self.outcomes.append((value >> (8 * i)) % size)
        return value


def outcomes_of_seed(deal, seed) -> list[int]:
    """The chance outcomes that make ``deal(rng)`` deal what it deals from
    ``random.Random(seed)`` (``deal`` draws only from the ``rng`` it is given)."""
    rec = Recorder(seed)
    deal(rec)
    return rec.outcomes
