"""The human decisions of a study, ready for behaviour cloning (``braincards study-export``).

A study folder (``results.csv``, ``replays/``) holds every finished game: the CSV row names the
participant's number, the condition, the replay and the time of each of the person's
decisions; the replay holds the deal and every move. The export replays each game in the env
and keeps, at every decision of the person's seat, what the seat saw and what they did:

``decisions.npz`` - one row per human decision:

* ``observation`` (float32, N x D) - the env's observation of the person's seat, as a policy
  of that game reads it;
* ``action_mask`` (int8, N x A) - the legal actions then; ``action`` (int64, N) - the move;
* ``time_s`` (float32, N) - the seconds from the decision being shown to the move;
* ``participant`` (int32) - the participant's number (never the typed id), ``game`` (int32)
  - the game's index in the participant's schedule, ``decision`` (int32) - the decision's
  index in the game, ``condition`` (int16) - an index into the manifest's ``conditions``;
* ``test`` (bool) - the row belongs to the test split.

``decisions.json`` - the manifest: format version, game and options, the observation's and
actions' sizes, the conditions, every participant's number, split, games and decisions, and
how the split was drawn. The split is by participant: a seeded shuffle of the participants'
numbers puts ``round(test_share x P)`` of them (at least one when there are two or more) in
the test split, so no person's decisions are in both.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np

from braincards.training import files

from ..evaluation.replay import new_table, read_replay
from .session import HUMAN
from .study import read_rows

FORMAT_VERSION = 1


def split_participants(numbers: list[int], test_share: float, seed: int) -> set[int]:
    """The participants (by number) of the test split: a seeded shuffle, ``round(test_share
    x P)`` of them, at least one when there are two or more."""
    if not 0 <= test_share < 1:
        raise ValueError(f"test_share={test_share} must be in [0, 1)")
    order = sorted(set(numbers))
    random.Random(seed).shuffle(order)
    k = round(test_share * len(order))
    if test_share > 0 and len(order) > 1:
        k = max(1, min(k, len(order) - 1))
    return set(order[:k])


def game_decisions(replay: dict, times: list[float], where: str) -> list[tuple]:
    """``(observation, mask, action, time, decision)`` at each of the person's decisions in a
    replayed game (a ValueError when the replay and the recorded times disagree)."""
    header = replay["header"]
    if HUMAN not in header["seats"]:
        raise ValueError(f"{where}: the game has no person's seat (seats {header['seats']})")
    env = new_table(header)
    me = env.possible_agents[header["seats"].index(HUMAN)]
    out = []
    for step in replay["steps"]:
        if step["agent"] == me:
            obs = env.observe(me)
            if not obs["action_mask"][step["action"]]:
                raise ValueError(f"{where}: step {step['i']} plays {step['action']}, which was not legal")
            out.append((obs["observation"], obs["action_mask"], int(step["action"]), len(out)))
        env.step(step["action"])
    if len(out) != len(times):
        raise ValueError(f"{where}: {len(out)} decisions of the person in the replay, {len(times)} times in "
                         f"results.csv")
    return [(*row[:3], t, row[3]) for row, t in zip(out, times, strict=True)]


def export_study(folder: str | Path, out: str | Path, *, test_share: float = 0.2, seed: int = 0) -> dict:
    """Write ``decisions.npz`` and ``decisions.json`` for the study in ``folder`` into ``out``
    (see the module docstring); returns the manifest."""
    folder, out = Path(folder), Path(out)
    rows = read_rows(folder / "results.csv")
    if not rows:
        raise ValueError(f"{folder}: no finished game (results.csv is missing or empty)")
    numbers = [int(r["participant_index"]) for r in rows]
    test = split_participants(numbers, test_share, seed)
    conditions = list(dict.fromkeys(r["condition"] for r in rows))
    cols: dict[str, list] = {k: [] for k in ("observation", "action_mask", "action", "time_s", "participant",
                                              "game", "decision", "condition", "test")}
    header = None
    for r in rows:
        replay = read_replay(folder / "replays" / r["replay"])
        header = header or replay["header"]
        times = [float(t) for t in r["decision_times_s"].split(";") if t]
        for obs, mask, action, t, k in game_decisions(replay, times, r["replay"]):
            number = int(r["participant_index"])
            for key, value in (("observation", obs), ("action_mask", mask), ("action", action), ("time_s", t),
                               ("participant", number), ("game", int(r["game_index"])), ("decision", k),
                               ("condition", conditions.index(r["condition"])), ("test", number in test)):
                cols[key].append(value)
    dtypes = {"observation": np.float32, "action_mask": np.int8, "action": np.int64, "time_s": np.float32,
              "participant": np.int32, "game": np.int32, "decision": np.int32, "condition": np.int16,
              "test": bool}
    arrays = {k: np.asarray(v, dtype=dtypes[k]) for k, v in cols.items()}
    manifest = _manifest(header, rows, arrays, conditions, test, test_share, seed)
    out.mkdir(parents=True, exist_ok=True)
    with files.atomic_open(out / "decisions.npz", "wb") as fh:
        np.savez_compressed(fh, **arrays)
    files.write_text(out / "decisions.json", json.dumps(manifest, indent=1) + "\n")
    return manifest


def _manifest(header: dict, rows: list[dict], arrays: dict, conditions: list[str], test: set[int],
              test_share: float, seed: int) -> dict:
    people = {}
    for r in rows:
        n = int(r["participant_index"])
        entry = people.setdefault(n, {"participant": n, "split": "test" if n in test else "train", "games": 0,
                                      "decisions": int(np.sum(arrays["participant"] == n))})
        entry["games"] += 1
    return {"format": FORMAT_VERSION, "game": header["game"], "config": header["config"],
            "observation_size": int(arrays["observation"].shape[1]) if len(arrays["action"]) else 0,
            "actions": int(arrays["action_mask"].shape[1]) if len(arrays["action"]) else 0,
            "decisions": int(len(arrays["action"])), "conditions": conditions,
            "split": {"by": "participant", "test_share": test_share, "seed": seed,
                      "test": sorted(test), "train": sorted(set(people) - test)},
            "participants": [people[n] for n in sorted(people)]}
