"""Base class of every game's rules state."""

from __future__ import annotations


class RulesState:
    """A game's rules state: plain ints and lists, JSON round-trippable.

    Subclasses define ``__slots__``, ``to_dict()``, ``from_dict()`` and ``copy()``.
    ``env.unwrapped.state`` is this object; it shadows PettingZoo's optional global
    ``state()`` vector, which braincards does not provide, so calling it explains that.
    """

    __slots__ = ()

    def __call__(self):
        raise NotImplementedError(
            "braincards envs have no global state vector; env.unwrapped.state is the "
            "rules state (state.to_dict() gives the whole table)"
        )

    def to_dict(self) -> dict:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def from_dict(cls, data: dict):  # pragma: no cover - abstract
        raise NotImplementedError

    def copy(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def __eq__(self, other):
        return type(other) is type(self) and self.to_dict() == other.to_dict()

    __hash__ = None
