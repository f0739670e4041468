"""A partner suite's population: who may be trained with and who is held out.

A suite file may carry a ``population`` block (the_brain-partners-v1 does): per *table* (a
name and its env options), the members, each a policy spec with its ``kind`` (``rule``,
``search`` or ``network``), its ``split`` (``train``: a partner anyone may train with;
``eval``: held out, never named by a shipped training config) and, for a network, the
``teacher`` its recipe started from (the policy its first network imitated)::

    population:
      3p_robber:
        config: {num_players: 3, difficulty: robber}
        members:
          - {spec: heuristic, kind: rule, split: train}
          - {spec: the_brain/ppo_3p_pimc, kind: network, split: eval, teacher: pimc}

The scenarios of such a suite seat only held-out partners: every background spec of a
scenario is an ``eval`` member of the table with the scenario's options, and every ``eval``
member is the background of at least one scenario.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KINDS = ("rule", "search", "network")
SPLITS = ("train", "eval")
TABLE_NAME = re.compile(r"^[a-z0-9][a-z0-9_]*$")
MEMBER_KEYS = {"spec", "kind", "split", "teacher"}


@dataclass(frozen=True)
class Member:
    """One partner of a population table."""

    spec: str
    kind: str
    split: str
    teacher: str | None = None


@dataclass(frozen=True)
class PopulationTable:
    """A table's population: its name, env options and members."""

    name: str
    config: dict
    members: tuple[Member, ...]

    def split(self, which: str) -> list[str]:
        """The specs of the ``train`` or ``eval`` members, in file order."""
        return [m.spec for m in self.members if m.split == which]

    def as_dict(self) -> dict:
        return {"config": self.config, "members": [{k: v for k, v in vars(m).items() if v is not None}
                                                   for m in self.members]}


def parse_population(data, check_options, where: str) -> tuple[PopulationTable, ...]:
    """The ``population`` block of a suite file; ``check_options(dict)`` checks a table's env
    options (the game's). A ValueError names the bad entry and what is allowed."""
    if data is None:
        return ()
    if not isinstance(data, dict) or not data:
        raise ValueError(f"{where}: 'population' must be a mapping of table name -> {{config, members}}")
    tables = []
    for name, table in data.items():
        at = f"{where}: population.{name}"
        if not isinstance(name, str) or not TABLE_NAME.match(name):
            raise ValueError(f"{at}: a table name is lower-case letters, digits and '_'")
        if not isinstance(table, dict) or set(table) != {"config", "members"}:
            raise ValueError(f"{at}: give exactly 'config' (env options) and 'members' (a list)")
        config = check_options(dict(table["config"] or {}))
        members = table["members"]
        if not isinstance(members, list) or not members:
            raise ValueError(f"{at}: 'members' must be a non-empty list")
        parsed = tuple(_member(m, f"{at}.members[{i}]") for i, m in enumerate(members))
        specs = [m.spec for m in parsed]
        repeated = sorted({s for s in specs if specs.count(s) > 1})
        if repeated:
            raise ValueError(f"{at}: {repeated[0]!r} is a member twice")
        if not any(m.split == "eval" for m in parsed):
            raise ValueError(f"{at}: no member is held out (split: eval)")
        tables.append(PopulationTable(name, config, parsed))
    return tuple(tables)


def _member(m, at: str) -> Member:
    if not isinstance(m, dict) or not {"spec", "kind", "split"} <= set(m) or set(m) - MEMBER_KEYS:
        raise ValueError(f"{at}: a member is a mapping with spec, kind, split (and teacher for a "
                         f"network); allowed keys: {sorted(MEMBER_KEYS)}")
    if not isinstance(m["spec"], str) or not m["spec"].strip():
        raise ValueError(f"{at}: spec must be a policy spec, got {m['spec']!r}")
    if m["kind"] not in KINDS:
        raise ValueError(f"{at}: kind {m['kind']!r}; allowed: {list(KINDS)}")
    if m["split"] not in SPLITS:
        raise ValueError(f"{at}: split {m['split']!r}; allowed: {list(SPLITS)}")
    teacher = m.get("teacher")
    if (m["kind"] == "network") != isinstance(teacher, str):
        raise ValueError(f"{at}: a network names its recipe's teacher (a policy spec), and only a network does")
    return Member(m["spec"], m["kind"], m["split"], teacher)


def check_held_out(population: tuple[PopulationTable, ...], scenarios, where: str) -> None:
    """Every scenario seats only held-out members of the table with its options, and every
    held-out member is seated by some scenario (a ValueError names the first that is not)."""
    if not population:
        return
    seated: dict[str, set] = {t.name: set() for t in population}
    for s in scenarios:
        table = next((t for t in population if t.config == s.config), None)
        if table is None:
            raise ValueError(f"{where}: scenario {s.id} plays {s.config}, which no population table has")
        held_out = set(table.split("eval"))
        for spec, _ in s.background:
            if spec not in held_out:
                raise ValueError(f"{where}: scenario {s.id} seats {spec!r}, which is not a held-out "
                                 f"(split: eval) member of population.{table.name}: {sorted(held_out)}")
            seated[table.name].add(spec)
    for t in population:
        missing = [s for s in t.split("eval") if s not in seated[t.name]]
        if missing:
            raise ValueError(f"{where}: held-out member {missing[0]!r} of population.{t.name} is in no scenario")
