"""How far a value travels: the hop counts of three paths, and what a tiny training run builds.

    python benchmarks/house_paths.py hops --only guided   # one of the three paths below
    python benchmarks/house_paths.py hops                 # all three, in one process
    python benchmarks/house_paths.py builds     # envs built, check_options and get_spec calls

* ``hops`` - a ``sys.setprofile`` tracer counts braincards' frames on the stack when a target
  is reached, and braincards' calls (and modules) before it: a training YAML value down to the
  env (``braincards train`` -> the learner env's game env), a ``guided:`` seat from the command
  line to its first ``act``, and a browser click (``POST /api/games/{id}/move``) to ``env.step``.
* ``builds`` - ``configs/the_brain/train_3p_quick.yaml`` for 2,048 steps and 64 DAgger games,
  under cProfile in the main process: how many envs it builds and how often it calls
  ``GameSpec.check_options`` and ``get_spec``.

Run it from two checkouts (one first on ``PYTHONPATH``) to compare them.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import threading
import warnings
from pathlib import Path

from fastapi.testclient import TestClient

from braincards.training.cli.main import main as cli
from braincards.training.serve import create_app

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(cli.__code__.co_filename).resolve().parents[2]  # the checkout braincards is imported from
QUICK = ROOT / "configs" / "the_brain" / "train_3p_quick.yaml"


def _ours(code) -> bool:
    path = Path(code.co_filename)
    return PACKAGE in path.parents and ".venv" not in path.parts and "benchmarks" not in path.parts


def trace(target, run) -> dict:
    """Run ``run()`` and stop counting where ``target(frame)`` first holds: our frames on the
    stack then, and our calls and modules before it."""
    seen = {"calls": 0, "modules": set(), "chain": None}

    def profile(frame, event, arg):
        if event != "call" or seen["chain"] is not None or not _ours(frame.f_code):
            return
        seen["calls"] += 1
        seen["modules"].add(frame.f_code.co_filename)
        if target(frame):
            chain, f = [], frame
            while f is not None:
                if _ours(f.f_code):
                    chain.append(f"{Path(f.f_code.co_filename).stem}.{f.f_code.co_name}")
                f = f.f_back
            seen["chain"] = list(reversed(chain))

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    return {"frames": len(seen["chain"] or []), "calls": seen["calls"], "modules": len(seen["modules"]),
            "chain": seen["chain"]}


def _is(name: str, suffix: str):
    return lambda frame: frame.f_code.co_name == name and frame.f_code.co_filename.endswith(suffix)


def _yaml_to_env() -> dict:
    def learner_env_built(frame) -> bool:
        if not _is("__init__", "the_brain/env.py")(frame):
            return False
        f, depth = frame.f_back, 0
        while f is not None and depth < 4:
            if f.f_code.co_filename.endswith("learner_env.py"):
                return True
            f, depth = f.f_back, depth + 1
        return False

    out = tempfile.mkdtemp()
    return trace(learner_env_built, lambda: cli(["train", str(QUICK), "--out", out, "--quiet", "--timesteps", "64",
                                                 "--set", "pretrain.games=4", "--set", "pretrain.chunk_games=4"]))


def _guided_to_act() -> dict:
    seat = ["--seat", "guided:checkpoint=the_brain/ppo_3p_long,top=3,judge=pimc"]
    return trace(_is("act", "search/guided.py"),
                 lambda: cli(["evaluate", "the_brain", "--set", "num_players=3", "--set", "difficulty=robber",
                              "--games", "1", "--quiet", *seat * 3]))


def _click_to_step() -> dict:
    client = TestClient(create_app(replay_dir=tempfile.mkdtemp()), base_url="http://localhost")  # a Host it answers
    game = {"game": "the_brain", "options": {"num_players": 2}, "seats": ["human", "heuristic"], "seed": 3}
    gid = client.post("/api/games", json=game).json()["id"]
    view = client.get(f"/api/games/{gid}").json()
    while view["agents_turn"]:
        view = client.post(f"/api/games/{gid}/advance", json={"step": view["step"]}).json()
    move = {"step": view["step"], "action": view["moves"][0]["action"]}
    return trace(_is("step", "envs/core/base.py"), lambda: client.post(f"/api/games/{gid}/move", json=move))


PATHS = {"yaml": ("a training YAML value -> the env", _yaml_to_env),
         "guided": ("a guided: seat on the CLI -> its first act", _guided_to_act),
         "click": ("a browser click -> env.step", _click_to_step)}


def builds() -> dict:
    """Envs built, check_options and get_spec calls of the tiny training run (main process)."""
    out = tempfile.mkdtemp()
    prof = cProfile.Profile()
    prof.enable()
    cli(["train", str(QUICK), "--out", out, "--quiet", "--timesteps", "2048",
         "--set", "pretrain.games=64", "--set", "pretrain.chunk_games=32"])
    prof.disable()
    counts = {"envs built": 0, "check_options calls": 0, "get_spec calls": 0}
    for (file, _, name), (_, calls, *_rest) in pstats.Stats(prof).stats.items():
        if name == "__init__" and file.endswith("envs/core/base.py"):
            counts["envs built"] += calls
        elif name == "check_options" and file.endswith("envs/core/spec.py"):
            counts["check_options calls"] += calls
        elif name == "get_spec" and file.endswith("envs/__init__.py"):
            counts["get_spec calls"] += calls
    return counts


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=("hops", "builds"))
    p.add_argument("--only", choices=list(PATHS), default=None,
                   help="one path (each in a fresh process: a path run after another meets warm caches)")
    args = p.parse_args(argv)
    warnings.simplefilter("ignore")
    print(f"braincards from {PACKAGE}")
    if args.what == "builds":
        for name, n in builds().items():
            print(f"{name}: {n}")
        return 0
    for key in [args.only] if args.only else list(PATHS):
        name, measure = PATHS[key]
        r = measure()
        print(f"{name}: {r['frames']} frames; {r['calls']} calls in {r['modules']} modules before it")
        print("    " + " -> ".join(r["chain"] or ["(not reached)"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
