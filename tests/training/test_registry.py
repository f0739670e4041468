"""The policy registry: one entry per kind, the grammar parsed once, the help, the web app's
choices and the docs' table generated from it; outside kinds through ``module:attr`` specs and
the ``braincards.policies`` entry points, in-process, in worker processes, on the command line
and in the web app."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from braincards.envs import SPECS
from braincards.training.agents import specs
from braincards.training.agents.kinds import Param, PolicyKind, parse_spec
from braincards.training.agents.policy import PolicySpecError
from braincards.training.agents.specs import KINDS, kinds, make_policy, plain_kinds, spec_help
from braincards.training.cli.main import main
from braincards.training.evaluation.evaluate import evaluate

ROOT = Path(__file__).resolve().parents[2]
BRAIN = "the_brain_v0"

MODULE = '''
import numpy as np

from braincards.training.agents.kinds import Param, PolicyKind


class LowestLegal:
    """Plays the lowest legal action (or the offset-th lowest)."""
    name = "lowest_legal"

    def __init__(self, game, seed=None, offset=0):
        self.game, self.seed, self.offset = game, seed, offset

    def reset(self, seed=None):
        pass

    def act(self, observation, agent=None):
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[min(self.offset, legal.size - 1)])


def factory(game, config, seed, **params):
    policy = LowestLegal(game, seed)
    policy.params = params
    return policy


def not_a_policy(game):
    return 42


class Illegal(LowestLegal):
    def act(self, observation, agent=None):
        return int(np.flatnonzero(observation["action_mask"] == 0)[0])


KIND = PolicyKind("lowest", "the lowest legal action", LowestLegal,
                  params=(Param("offset", int, "play the offset-th lowest instead"),), games=("the_brain_v0",))
NUMBER = 7
'''


@pytest.fixture
def outside(tmp_path, monkeypatch):
    """A module ``outside_agents`` on sys.path (and a package ``outside_pkg.sub``)."""
    (tmp_path / "outside_agents.py").write_text(MODULE)
    (tmp_path / "outside_pkg").mkdir()
    (tmp_path / "outside_pkg" / "__init__.py").write_text("")
    (tmp_path / "outside_pkg" / "sub.py").write_text(MODULE)
    (tmp_path / "broken_agents.py").write_text("raise RuntimeError('boom at import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in ("outside_agents", "outside_pkg", "outside_pkg.sub", "broken_agents"):
        sys.modules.pop(name, None)


@pytest.fixture
def entry_points(tmp_path, monkeypatch, outside):
    """An installed distribution (a dist-info on sys.path) with ``braincards.policies`` entry
    points: a PolicyKind, a class, one reusing a built-in name and one that cannot load."""
    info = tmp_path / "outside_dist-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: outside-dist\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent("""\
        [braincards.policies]
        lowest = outside_agents:KIND
        lowest_class = outside_agents:LowestLegal
        heuristic = outside_agents:LowestLegal
        missing = outside_agents:nothing_here
        """))
    specs.refresh()
    yield
    specs.refresh()


# ---------------------------------------------------------------------------- the registry
def test_each_kind_is_one_entry_with_real_games_and_parameters():
    assert list(KINDS) == ["random", "heuristic", "greedy", "pimc", "guided"]
    for k in KINDS.values():
        assert k.games is None or set(k.games) <= set(SPECS), k.name
        for p in k.params or ():
            assert set(p.games) <= set(k.games or SPECS), (k.name, p.name)
    # which games a kind plays is read, not found by trying to build it
    assert plain_kinds(BRAIN) == ["random", "heuristic", "greedy", "pimc"]
    assert plain_kinds("oh_my_brain_v0") == plain_kinds("brilliant_boar_v0") == ["random", "heuristic"]
    assert not KINDS["guided"].plain and KINDS["pimc"].plain


def test_the_grammar_is_parsed_once_into_ordered_pairs():
    assert parse_spec(" pimc:samples=8, nodes=500 ") == ("pimc", "samples=8, nodes=500",
                                                         [("samples", "8"), ("nodes", "500")])
    assert parse_spec("guided:checkpoint=runs/x=y/best,top=2")[2] == [("checkpoint", "runs/x=y/best"), ("top", "2")]
    assert parse_spec("random") == ("random", "", [])
    for bad in ("pimc:samples", "pimc:=3", "guided:checkpoint=a,top"):
        with pytest.raises(PolicySpecError, match="expected KEY=VALUE"):
            parse_spec(bad)


def test_params_are_checked_against_the_schema():
    kind = PolicyKind("toy", "a toy", lambda game, config, seed=None, **kw: kw,
                      params=(Param("n", int), Param("p", float), Param("mode", str, choices=("a", "b")),
                              Param("boar_only", int, games=("brilliant_boar_v0",))))
    assert kind.bind([("n", "3"), ("p", "0.5"), ("mode", "b")], BRAIN, "toy") == {"n": 3, "p": 0.5, "mode": "b"}
    for pairs, message in [([("n", "0")], "toy parameter n=0 must be >= 1"),
                           ([("n", "x")], "toy parameter n='x' must be an integer"),
                           ([("p", "inf")], "toy parameter p=inf must be a finite number"),
                           ([("mode", "c")], r"unknown toy mode 'c'; allowed: \['a', 'b'\]"),
                           ([("n", "1"), ("n", "2")], "toy takes one n=N"),
                           ([("depth", "1")], r"unknown toy parameter 'depth'; allowed: \['boar_only', 'mode', 'n', 'p'\]"),
                           ([("boar_only", "1")], r"is for Brainwaves.* only \(brilliant_boar_v0 only\), not the_brain_v0")]:
        with pytest.raises(PolicySpecError, match=message):
            kind.bind(pairs, BRAIN, "toy")


def test_help_choices_and_the_docs_table_come_from_the_registry():
    for k in KINDS.values():
        assert k.usage() in specs.cli_help()
        assert f"`{k.usage()}`".replace("|", "\\|") in specs.policy_table()
    text = spec_help("oh_my_brain_v0")
    # only the kinds of its game, and only its game's styles
    assert "'random', 'heuristic[:style=tidy|shedder]'," in text and "pimc" not in text and "guided" not in text
    spec = importlib.util.spec_from_file_location("docs_tables", ROOT / "benchmarks" / "docs_tables.py")
    docs_tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(docs_tables)
    assert docs_tables.stale() == [], "run python benchmarks/docs_tables.py"


def test_a_kind_for_another_game_is_refused_by_its_entry():
    with pytest.raises(PolicySpecError, match=r"the pimc policy plays The Brain only \(the_brain_v0 only\), not oh_my_brain_v0"):
        make_policy("pimc", "oh_my_brain_v0", {})
    with pytest.raises(PolicySpecError, match="'greedy' policy takes no parameters"):
        make_policy("greedy:depth=2", BRAIN, {})


# ---------------------------------------------------------------------------- module:attr
def test_a_module_attr_class_factory_or_kind_is_a_policy(outside):
    cls = make_policy("outside_agents:LowestLegal", BRAIN, {"num_players": 2}, seed=5)
    assert type(cls).__name__ == "LowestLegal" and (cls.game, cls.seed, cls.offset) == (BRAIN, 5, 0)
    assert make_policy("outside_agents:LowestLegal:offset=2", BRAIN, {}).offset == 2
    built = make_policy("outside_pkg.sub:factory:temperature=0.5,label=x,k=3", BRAIN, {})
    assert built.params == {"temperature": 0.5, "label": "x", "k": 3}  # int, else float, else text
    kind = make_policy("outside_agents:KIND:offset=1", BRAIN, {})  # a PolicyKind: its own schema
    assert kind.offset == 1
    with pytest.raises(PolicySpecError, match="unknown lowest parameter 'depth'"):
        make_policy("outside_agents:KIND:depth=1", BRAIN, {})
    with pytest.raises(PolicySpecError, match="the lowest policy plays The Brain only"):
        make_policy("outside_agents:KIND", "oh_my_brain_v0", {})


@pytest.mark.parametrize("spec, message", [
    ("no_such_module_x:Policy", "policy spec 'no_such_module_x:Policy': no module named 'no_such_module_x'"),
    ("outside_agents:Nothing", "policy spec 'outside_agents:Nothing': 'outside_agents' has no attribute 'Nothing'"),
    ("broken_agents:Policy", "importing 'broken_agents' failed: RuntimeError: boom at import"),
    ("outside_agents:not_a_policy", "gave int, which is not a policy"),
    ("outside_agents:NUMBER", "outside_agents:NUMBER is a int, not a PolicyKind, a policy factory or a policy class"),
    ("outside_agents:LowestLegal:depth=2", r"unknown parameter 'depth' for LowestLegal; it takes: \['offset'\]"),
    ("outside_agents:LowestLegal:offset", "expected KEY=VALUE"),
])
def test_a_bad_outside_spec_says_what_is_wrong(outside, spec, message):
    with pytest.raises(PolicySpecError, match=message):
        make_policy(spec, BRAIN, {})
    with pytest.raises(PolicySpecError, match=message):  # before any game is played
        evaluate("the_brain", {"num_players": 2}, seats=[spec, "heuristic"], games=2, progress=False)


def test_an_outside_spec_plays_in_worker_processes_as_in_process(outside):
    seats = ["outside_agents:LowestLegal:offset=1", "heuristic"]
    one = evaluate("the_brain", {"num_players": 2}, seats=seats, games=12, seed=3, progress=False)
    two = evaluate("the_brain", {"num_players": 2}, seats=seats, games=12, seed=3, workers=2, progress=False)
    assert one["team"] == two["team"] and one["games"] == 12


def test_an_outside_spec_on_the_command_line(outside, capsys):
    assert main(["evaluate", "the_brain", "--seat", "outside_agents:LowestLegal", "--seat", "random",
                 "--games", "4", "--quiet"]) == 0
    assert "outside_agents:LowestLegal" in capsys.readouterr().out
    assert main(["evaluate", "the_brain", "--seat", "outside_agents:Nothing", "--seat", "random", "--games", "4"]) == 2
    assert "'outside_agents' has no attribute 'Nothing'" in capsys.readouterr().err


def test_an_outside_policy_that_plays_an_illegal_action_is_stopped(outside):
    with pytest.raises(ValueError, match="illegal"):
        evaluate("the_brain", {"num_players": 2}, seats=["outside_agents:Illegal", "heuristic"], games=2,
                 progress=False)


# ---------------------------------------------------------------------------- entry points
def test_entry_point_kinds_join_the_registry(entry_points):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        names = [k.name for k in kinds()]
        assert [k.name for k in kinds()] == names
    assert len(caught) == 2  # once each, however often the kinds are listed
    assert names[:5] == list(KINDS) and {"lowest", "lowest_class"} <= set(names)
    assert names.count("heuristic") == 1  # braincards' own wins, and says so
    said = " | ".join(str(w.message) for w in caught)
    assert "entry point 'heuristic' is ignored" in said and "'missing' could not be loaded" in said
    assert make_policy("lowest:offset=1", BRAIN, {}).offset == 1
    assert make_policy("lowest_class", "oh_my_brain_v0", {}).offset == 0  # a class plays every game
    assert "lowest" in plain_kinds(BRAIN) and "lowest" not in plain_kinds("oh_my_brain_v0")
    assert "'lowest[:offset=N]'" in spec_help(BRAIN)
    with pytest.raises(PolicySpecError, match="the policy kind 'missing' could not be loaded"):
        make_policy("missing", BRAIN, {})


def test_entry_point_kinds_in_the_web_app(entry_points):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from braincards.training.serve import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client = TestClient(create_app(replay_dir=Path(sys.path[0]) / "replays"), base_url="http://localhost")
        games = {g["id"]: g for g in client.get("/api/meta").json()["games"]}
    assert "lowest" in games[BRAIN]["policies"] and "lowest" not in games["oh_my_brain_v0"]["policies"]
    r = client.post("/api/games", json={"game": "the_brain", "options": {"num_players": 2},
                                        "seats": ["human", "outside_agents:LowestLegal"], "seed": 1})
    assert r.status_code == 201, r.text
    r = client.post("/api/games", json={"game": "the_brain", "options": {"num_players": 2},
                                        "seats": ["human", "outside_agents:Nothing"], "seed": 1})
    assert r.status_code == 422 and "has no attribute 'Nothing'" in r.text
