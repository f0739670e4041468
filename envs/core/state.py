"""Base class of every game's rules state, with the JSON round trip they share."""

from __future__ import annotations

from .config import check_bool, check_int


class RulesState:
    """A game's rules state: plain ints and lists, JSON round-trippable.

    A subclass names its serialized fields in ``_INTS``, ``_BOOLS``, ``_LISTS`` (lists of
    ints) and ``_NESTED`` (one list of ints per seat), sets ``GAME`` (for messages) and
    implements ``_read_list(key, value)`` (validating one list) and ``from_dict()`` (which
    calls :meth:`_read_fields`, then checks that the table is a real one).

    ``env.unwrapped.state`` is this object; it shadows PettingZoo's optional global
    ``state()`` vector, which braincards does not provide, so calling it explains that.
    """

    __slots__ = ()
    GAME = "game"
    _INTS: tuple[str, ...] = ()
    _BOOLS: tuple[str, ...] = ()
    _LISTS: tuple[str, ...] = ()
    _NESTED: tuple[str, ...] = ()

    def __call__(self):
        raise NotImplementedError(
            "braincards envs have no global state vector; env.unwrapped.state is the "
            "rules state (state.to_dict() gives the whole table)"
        )

    def to_dict(self) -> dict:
        """The whole table as JSON-safe ints, bools and lists."""
        d = {k: getattr(self, k) for k in self._INTS + self._BOOLS}
        d.update({k: list(getattr(self, k)) for k in self._LISTS})
        d.update({k: [list(p) for p in getattr(self, k)] for k in self._NESTED})
        return d

    @classmethod
    def from_dict(cls, data: dict):  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def _read_list(cls, key: str, value) -> list[int]:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def _read_fields(cls, data):
        """A new, unvalidated-as-a-table instance with every serialized field read from
        ``data`` and type-checked; raises ValueError naming what is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"a {cls.GAME} state must be a dict, got {type(data).__name__}")
        keys = cls._INTS + cls._BOOLS + cls._LISTS + cls._NESTED
        missing = [k for k in keys if k not in data]
        extra = [k for k in data if k not in keys]
        if missing or extra:
            raise ValueError(f"bad {cls.GAME} state: missing keys {missing}, unknown keys {extra}")
        s = cls.__new__(cls)
        for k in cls._INTS:
            setattr(s, k, check_int(f"state[{k!r}]", data[k], -1))
        for k in cls._BOOLS:
            setattr(s, k, check_bool(f"state[{k!r}]", data[k]))
        for k in cls._LISTS:
            setattr(s, k, cls._read_list(k, data[k]))
        for k in cls._NESTED:
            if not isinstance(data[k], list):
                raise ValueError(f"bad {cls.GAME} state: {k} must be a list with one list per seat")
            setattr(s, k, [cls._read_list(k, p) for p in data[k]])
        return s

    def copy(self):
        """A copy sharing nothing mutable (no deepcopy: lists of ints are copied)."""
        s = self.__class__.__new__(self.__class__)
        for k in self._INTS + self._BOOLS:
            setattr(s, k, getattr(self, k))
        for k in self._LISTS:
            setattr(s, k, list(getattr(self, k)))
        for k in self._NESTED:
            setattr(s, k, [list(p) for p in getattr(self, k)])
        return s

    def __eq__(self, other):
        return type(other) is type(self) and self.to_dict() == other.to_dict()

    __hash__ = None
