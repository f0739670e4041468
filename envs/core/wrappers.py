"""The wrapper ``<game>.env()`` applies: PettingZoo's OrderEnforcingWrapper, faster."""

from __future__ import annotations

from pettingzoo.utils.wrappers import OrderEnforcingWrapper


def _forward(name: str):
    def get(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get, doc=f"The wrapped env's ``{name}``.")


class OrderEnforcing(OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper, with the same checks, forwarding ``last()``
    and the per-step attributes directly instead of through ``__getattr__`` (which
    costs a failed attribute lookup each, several times a step)."""

    agent_selection = _forward("agent_selection")
    agents = _forward("agents")
    rewards = _forward("rewards")
    terminations = _forward("terminations")
    truncations = _forward("truncations")
    infos = _forward("infos")
    _cumulative_rewards = _forward("_cumulative_rewards")

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("last() cannot be called before reset")
        return self.env.last(observe)

    def __str__(self) -> str:
        return str(self.env)


def env_factory(raw_env_cls):
    """A game's ``env(**config)``: :class:`OrderEnforcing` over ``raw_env_cls(**config)``."""

    def env(**config):
        return OrderEnforcing(raw_env_cls(**config))

    env.__doc__ = f"The wrapped AEC env (PettingZoo's order enforcing checks over ``{raw_env_cls.metadata['name']}``'s raw_env)."
    return env
