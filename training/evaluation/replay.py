"""Replays: a finished game as a JSON Lines file, and the game rebuilt from it.

A replay file has one JSON object per line:

* first a header ``{"type": "header", "version", "game", "config", "seed", "env_seed",
  "seats"}``;
* then one ``{"type": "step", "i", "agent", "action", "rewards"}`` per decision, where
  ``rewards`` is every seat's reward from that step;
* last a result ``{"type": "result", "returns", "scores", "wins", "truncated", "length"}``.

Only the actions are stored: the state at any step is rebuilt exactly by dealing the game
with ``env_seed`` and replaying the actions (:func:`replay_env`), since every braincards env
is deterministic given its seed. Files are written whole or not at all
(:func:`braincards.training.files.write_text`), so a killed process never leaves half a replay.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

from braincards.envs import get_spec
from braincards.training import files

REPLAY_VERSION = 1
REPLAY_SUFFIX = ".jsonl"


class ReplayError(ValueError):
    """A replay file that cannot be read or does not replay (a bad line, an illegal action)."""


def replay_lines(header: dict, steps: list[dict], result: dict | None) -> str:
    """The replay's text: the header, the steps, the result, one JSON object a line."""
    head = {"type": "header", "version": REPLAY_VERSION, **header}
    rows = [head] + [{"type": "step", **s} for s in steps]
    if result is not None:
        rows.append({"type": "result", **result})
    return "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)


def write_replay(path: str | os.PathLike, header: dict, steps: list[dict],
                 result: dict | None) -> Path:
    """Write one replay file atomically; returns its path."""
    return files.write_text(path, replay_lines(header, steps, result))


def parse_replay(text: str) -> dict:
    """``{"header", "steps", "result"}`` of a replay's text (a ReplayError when malformed)."""
    header, steps, result = None, [], None
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ReplayError(f"replay line {n} is not JSON: {err}") from None
        kind = row.get("type") if isinstance(row, dict) else None
        if n == 1 and kind != "header":
            raise ReplayError("a replay starts with its header line")
        if kind == "header":
            header = row
        elif kind == "step":
            if not isinstance(row.get("action"), int):
                raise ReplayError(f"replay line {n}: a step needs an integer action")
            steps.append(row)
        elif kind == "result":
            result = row
        else:
            raise ReplayError(f"replay line {n}: unknown type {kind!r}")
    if header is None:
        raise ReplayError("empty replay")
    if header.get("version") != REPLAY_VERSION:
        raise ReplayError(f"replay version {header.get('version')!r}; this braincards reads "
                          f"version {REPLAY_VERSION}")
    get_spec(header.get("game"))
    return {"header": header, "steps": steps, "result": result}


def read_replay(path: str | os.PathLike) -> dict:
    """The replay in file ``path`` (see :func:`parse_replay`)."""
    return parse_replay(Path(path).read_text(encoding="utf-8"))


def new_table(header: dict):
    """The raw env of a replay's game, dealt as the replay's game was."""
    env = get_spec(header["game"]).raw_env(**header["config"])
    env.reset(seed=header["env_seed"])
    return env


def replay_env(replay: dict, upto: int | None = None):
    """The raw env after the first ``upto`` steps of ``replay`` (all of them by default)."""
    steps = replay["steps"] if upto is None else replay["steps"][: max(0, int(upto))]
    env = new_table(replay["header"])
    for n, s in enumerate(steps):
        try:
            env.step(s["action"])
        except ValueError as err:  # IllegalActionError is one
            raise ReplayError(f"step {n} does not replay: {err}") from None
    return env


def replay_states(replay: dict) -> Iterator[dict]:
    """The state (``state.to_dict()``) after every step of ``replay``, the deal first."""
    env = new_table(replay["header"])
    yield env.state.to_dict()
    for s in replay["steps"]:
        env.step(s["action"])
        yield env.state.to_dict()


def replay_of_record(game: str, config: dict, seed: int, env_seed: int, record: dict) -> tuple:
    """``(header, steps, result)`` of one evaluated game's record (played with
    ``record_actions``): its seats are the policies' labels in seat order."""
    spec = get_spec(game)
    agents = spec.raw_env(**config).possible_agents
    header = {"game": spec.id, "config": config, "seed": seed, "env_seed": env_seed,
              "seats": list(record["labels"]), "deal": record["deal"]}
    steps = [{"i": i, "agent": agent, "action": action,
              "rewards": dict(zip(agents, rewards, strict=True))}
             for i, (agent, action, rewards) in enumerate(record["actions"])]
    result = {k: record[k] for k in ("scores", "wins", "truncated", "length")}
    result["returns"] = record["rewards"]
    return header, steps, result
