"""Speed per decision of an exported network (onnxruntime) next to the torch checkpoint it
came from, one shipped checkpoint per game, on recorded observations.

    python benchmarks/onnx_speed.py      # measure, write benchmarks/results/onnx/speed.json

It exports each checkpoint, records ``--decisions`` observations of games the exported
network plays in every seat, then times both backends deciding on the same observations one
at a time (``policy.act``, as at a table), in ``--rounds`` alternating rounds, and keeps each
backend's median round.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import warnings
from datetime import date
from pathlib import Path

from braincards.envs import derive_seed, make
from braincards.envs.brilliant_boar import HistoryWrapper
from braincards.training.agents.network import set_torch_threads
from braincards.training.agents.onnx_export import export_onnx
from braincards.training.agents.onnx_policy import OnnxPolicy
from braincards.training.agents.specs import make_policy

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "onnx" / "speed.json"
TABLES = {  # checkpoint -> (game, table)
    "the_brain/ppo_3p_big_clone_long": ("the_brain_v0", {"num_players": 3, "difficulty": "robber"}),
    "oh_my_brain/ppo_2p": ("oh_my_brain_v0", {"num_players": 2}),
    "brilliant_boar/ppo_2p": ("brilliant_boar_v0", {"num_players": 2, "level": 4, "memory": "none"}),
}


def record(policy, game: str, config: dict, n: int) -> list[dict]:
    """``n`` observations (with their masks) of games ``policy`` plays in every seat."""
    env = make(game, **config)
    if policy.history_k:
        env = HistoryWrapper(env, policy.history_k)
    out: list[dict] = []
    g = 0
    while len(out) < n:
        env.reset(seed=derive_seed(21, g))
        g += 1
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            out.append({"observation": obs["observation"].copy(), "action_mask": obs["action_mask"].copy()})
            env.step(policy.act(obs, agent))
    return out[:n]


def seconds_per_decision(policy, observations: list[dict]) -> float:
    t = time.perf_counter()
    for obs in observations:
        policy.act(obs)
    return (time.perf_counter() - t) / len(observations)


def measure(decisions: int, rounds: int) -> dict:
    """Export, record, then time both backends on the same observations (alternating rounds)."""
    set_torch_threads(1)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, (game, config) in TABLES.items():
            path = Path(folder) / "model.onnx"
            export_onnx(name, path)
            fast = OnnxPolicy(path, game)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                slow = make_policy(name, game, config)
            observations = record(fast, game, config, decisions)
            timings: dict[str, list[float]] = {"torch": [], "onnx": []}
            for _ in range(rounds):
                timings["torch"].append(seconds_per_decision(slow, observations))
                timings["onnx"].append(seconds_per_decision(fast, observations))
            torch_ms, onnx_ms = (1000 * statistics.median(timings[k]) for k in ("torch", "onnx"))
            rows.append({"checkpoint": name, "game": game, "table": config, "torch_ms": round(torch_ms, 4),
                         "onnx_ms": round(onnx_ms, 4), "ratio": round(torch_ms / onnx_ms, 2)})
            print(f"{name}: torch {torch_ms:.3f} ms, onnx {onnx_ms:.3f} ms per decision", flush=True)
    return {"rows": rows, "decisions": decisions, "rounds": rounds, "measured": date.today().isoformat(),
            "cpus": os.cpu_count(), "threads": 1}


def load() -> dict | None:
    return json.loads(OUT.read_text()) if OUT.is_file() else None


def render(record: dict | None) -> list[str]:
    """The results page's ONNX section (Markdown lines)."""
    if not record:
        return []
    lines = ["## Torch-free inference (ONNX)", "",
             "Milliseconds per decision (`policy.act` on one observation, as at a table) of a shipped",
             "checkpoint with torch and of the same network exported with `braincards export --onnx` and",
             "played with onnxruntime, on the same recorded observations; both agree on every action",
             "(see [Export to ONNX](export.md)).", "",
             "| checkpoint | table | torch (ms) | onnxruntime (ms) | torch / onnx |", "|---|---|---:|---:|---:|"]
    for r in record["rows"]:
        table = ", ".join(f"{k}={v}" for k, v in r["table"].items())
        lines.append(f"| `{r['checkpoint']}` | {table} | {r['torch_ms']:.3f} | {r['onnx_ms']:.3f} | {r['ratio']:.1f} |")
    lines += ["", f"- {record['decisions']:,} decisions per round, the median of {record['rounds']} alternating "
                  f"rounds per backend, one thread each, measured {record['measured']} on {record['cpus']} CPU "
                  "cores; `python benchmarks/onnx_speed.py`.", ""]
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--decisions", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args(argv)
    result = measure(args.decisions, args.rounds)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print("\n".join(render(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
