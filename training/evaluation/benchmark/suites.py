"""Versioned benchmark suites: loading and validating the suite files.

A suite file (``suite_files/<game>-v<N>.yaml``, shipped in the package) is a list of scenarios
for one game. A scenario fixes everything but the evaluated (*focal*) policy: the game
config, the focal seats, the held-out background population (policy specs with weights),
the number of games (full and quick), the seed, the metric and the two references that
normalise it (0 = ``low``, 1 = ``high``). A published suite never changes: a change is a new
version (``the_brain-v2``), so numbers measured on ``the_brain-v1`` stay comparable. A partner
suite also names its population and which members are held out (:mod:`.population`).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import yaml

from braincards.envs import derive_seed, get_spec

from .population import PopulationTable, check_held_out, parse_population

SUITE_NAME = re.compile(r"^[a-z_]+(-[a-z_]+)*-v[0-9]+$")
SCENARIO_ID = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
METRICS = ("win", "score")
SCENARIO_KEYS = {"id", "measures", "config", "focal", "background", "games", "quick_games", "seed",
                 "metric", "low", "high", "oracle_nodes"}
SUITE_KEYS = {"suite", "game", "description", "blocks", "scenarios", "population"}


class SuiteError(ValueError):
    """A suite file or suite name that cannot be used (the message says why)."""


@dataclass(frozen=True)
class Reference:
    """One end of a scenario's normalisation: ``oracle`` (The Brain's winnable share of the
    scenario's deals), a policy spec played in the focal seats on the same games, or a
    fixed number."""

    kind: str  # "oracle" | "policy" | "value"
    spec: str | None = None
    value: float | None = None

    def describe(self) -> str:
        if self.kind == "oracle":
            return "oracle (winnable share of the same deals)"
        if self.kind == "value":
            return f"{self.value:g}"
        return f"{self.spec} in the focal seats"


@dataclass(frozen=True)
class Scenario:
    """One scenario of a suite (see the module docstring)."""

    id: str
    measures: str
    game: str
    config: dict
    focal: tuple[int, ...]
    background: tuple[tuple[str, float], ...]
    games: int
    quick_games: int
    seed: int
    metric: str
    low: Reference
    high: Reference
    oracle_nodes: int = 200_000

    @property
    def num_players(self) -> int:
        return int(self.config["num_players"])

    def num_games(self, quick: bool) -> int:
        return self.quick_games if quick else self.games

    def fingerprint(self) -> str:
        """A short hash of everything that decides the scenario's games and references (not
        its game counts: the quick games are the first games of the full run)."""
        fields = [self.game, self.config, list(self.focal), [list(b) for b in self.background],
                  self.seed, self.metric, self.low.describe(), self.high.describe(),
                  self.oracle_nodes]
        return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Suite:
    """A versioned list of scenarios for one game."""

    name: str
    game: str
    description: str
    blocks: int
    scenarios: tuple[Scenario, ...] = field(default_factory=tuple)
    population: tuple[PopulationTable, ...] = field(default_factory=tuple)

    @property
    def version(self) -> int:
        return int(self.name.rsplit("-v", 1)[1])

    def sha256(self) -> str:
        """The SHA-256 of everything that decides the suite's games and scores: its name, game
        and blocks, and each scenario's id, fingerprint and game counts (a scorecard names it,
        so a scorecard made on an edited suite file is told apart)."""
        fields = [self.name, self.game, self.blocks,
                  [[s.id, s.fingerprint(), s.games, s.quick_games] for s in self.scenarios]]
        if self.population:  # (suites without one keep the hash they were published with)
            fields.append({t.name: t.as_dict() for t in self.population})
        return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()

    def scenario(self, scenario_id: str) -> Scenario:
        for s in self.scenarios:
            if s.id == scenario_id:
                return s
        raise SuiteError(f"suite {self.name} has no scenario {scenario_id!r}")


def suites_dir() -> Path:
    """The folder of the shipped suite files."""
    return Path(str(resources.files(__package__) / "suite_files"))


def available_suites() -> list[str]:
    """The names of the shipped suites (``the_brain-v1``, ...), sorted."""
    return sorted(p.stem for p in suites_dir().glob("*.yaml"))


def load_suite(name_or_path: str | Path) -> Suite:
    """A shipped suite by name (``the_brain-v1``) or a suite file by path, validated."""
    text = str(name_or_path)
    if SUITE_NAME.match(text) and not Path(text).exists():
        path = suites_dir() / f"{text}.yaml"
        if not path.is_file():
            raise SuiteError(
                f"unknown suite {text!r}; shipped suites: {', '.join(available_suites())}"
            )
    else:
        path = Path(text)
        if not path.is_file():
            raise SuiteError(f"no suite file at {text!r} (and not a shipped suite name; shipped "
                             f"suites: {', '.join(available_suites())})")
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as err:
        raise SuiteError(f"{path.name}: not valid YAML: {err}") from None
    return parse_suite(data, source=path.name)


def _need(cond: bool, where: str, message: str) -> None:
    if not cond:
        raise SuiteError(f"{where}: {message}")


def _int(value, where: str, key: str, low: int = 1) -> int:
    _need(isinstance(value, int) and not isinstance(value, bool) and value >= low, where,
          f"{key} must be an integer >= {low}, got {value!r}")
    return value


def parse_suite(data, source: str = "suite") -> Suite:
    """A :class:`Suite` from a suite file's parsed YAML (a :class:`SuiteError` when invalid)."""
    _need(isinstance(data, dict), source, "a suite file is a mapping with keys "
          f"{sorted(SUITE_KEYS)}")
    unknown = set(data) - SUITE_KEYS
    _need(not unknown, source, f"unknown keys {sorted(unknown)}; allowed: {sorted(SUITE_KEYS)}")
    name = data.get("suite")
    _need(isinstance(name, str) and bool(SUITE_NAME.match(name)), source,
          f"'suite' must be a versioned name like the_brain-v1, got {name!r}")
    try:
        game = get_spec(str(data.get("game"))).id
    except (KeyError, ValueError) as err:
        raise SuiteError(f"{source}: {err}") from None
    blocks = _int(data.get("blocks", 5), source, "blocks")
    raw = data.get("scenarios")
    _need(isinstance(raw, list) and bool(raw), source, "'scenarios' must be a non-empty list")
    scenarios = tuple(parse_scenario(s, game, blocks, f"{source}: scenario {i}")
                      for i, s in enumerate(raw))
    ids = [s.id for s in scenarios]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    _need(not dup, source, f"duplicate scenario ids {dup}")
    try:
        population = parse_population(data.get("population"), get_spec(game).check_options, source)
        check_held_out(population, scenarios, source)
    except ValueError as err:
        raise SuiteError(str(err)) from None
    return Suite(name, game, str(data.get("description", "")).strip(), blocks, scenarios, population)


def _reference(value, where: str, key: str, cooperative: bool) -> Reference:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return Reference("value", value=float(value))
    _need(isinstance(value, str) and bool(value.strip()), where,
          f"{key} must be 'oracle', a policy spec or a number, got {value!r}")
    if value == "oracle":
        _need(
            cooperative, where, f"{key}: the oracle is The Brain's (a cooperative game's) ceiling"
        )
        return Reference("oracle")
    return Reference("policy", spec=value.strip())


def _background(value, where: str) -> tuple[tuple[str, float], ...]:
    if value is None:
        return ()
    if isinstance(value, list):  # [spec, ...]: equal weights
        value = dict.fromkeys(value, 1.0)
    _need(isinstance(value, dict), where, "background must be a mapping {spec: weight} or a list")
    out = []
    for spec, w in value.items():
        _need(isinstance(spec, str) and spec.strip() != "" and spec != "focal", where,
              f"background spec {spec!r} must be a policy spec")
        _need(isinstance(w, (int, float)) and not isinstance(w, bool) and w > 0, where,
              f"background weight of {spec!r} must be a positive number, got {w!r}")
        out.append((spec, float(w)))
    return tuple(out)


def parse_scenario(data, game: str, blocks: int, where: str) -> Scenario:
    """One :class:`Scenario` from its YAML mapping."""
    _need(isinstance(data, dict), where, "a scenario is a mapping")
    unknown = set(data) - SCENARIO_KEYS
    _need(not unknown, where, f"unknown keys {sorted(unknown)}; allowed: {sorted(SCENARIO_KEYS)}")
    sid = data.get("id")
    _need(isinstance(sid, str) and bool(SCENARIO_ID.match(sid)), where,
          f"'id' must be lower-case letters, digits, '_', '-' or '.', got {sid!r}")
    where = f"{where.rsplit(':', 1)[0]}: scenario {sid}"
    spec = get_spec(game)
    _need(isinstance(data.get("config"), dict), where, "'config' must be a mapping of env options")
    try:
        config = spec.check_options(dict(data["config"]))
    except ValueError as err:
        raise SuiteError(f"{where}: {err}") from None
    n = config.setdefault("num_players", spec.default("num_players"))
    _need(isinstance(spec.variants(config), list) and len(spec.variants(config)) == 1, where,
          "a scenario plays one variant (give one difficulty)")
    focal = data.get("focal")
    _need(
        isinstance(focal, list)
        and bool(focal)
        and len(set(focal)) == len(focal)
        and all(isinstance(i, int) and 0 <= i < n for i in focal),
        where,
        f"'focal' must be a list of distinct seat numbers in 0..{n - 1}, got {focal!r}",
    )
    background = _background(data.get("background"), where)
    _need(bool(background) == (len(focal) < n), where,
          "give a background population exactly when some seats are not focal")
    games = _int(data.get("games"), where, "games")
    quick = _int(data.get("quick_games"), where, "quick_games")
    for key, g in (("games", games), ("quick_games", quick)):
        _need(
            g % blocks == 0 and quick <= games,
            where,
            f"{key}={g} must be a multiple of blocks={blocks}, and quick_games <= games",
        )
    seed = _int(data.get("seed"), where, "seed", low=0)
    derive_seed(seed)
    metric = data.get("metric")
    _need(metric in METRICS, where, f"'metric' must be one of {METRICS}, got {metric!r}")
    low = _reference(data.get("low", "random"), where, "low", spec.cooperative)
    high = _reference(data.get("high"), where, "high", spec.cooperative)
    _need("oracle" not in (low.kind,) and (high.kind != "oracle" or metric == "win"), where,
          "the oracle is a win-rate ceiling: use it as 'high' with metric 'win'")
    return Scenario(sid, str(data.get("measures", "")).strip(), game, config, tuple(focal),
                    background, games, quick, seed, metric, low, high,
                    _int(data.get("oracle_nodes", 200_000), where, "oracle_nodes"))
