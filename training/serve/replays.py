"""The replay viewer's side of the server: the replay folder's files, and the table at any
step of a replay, from any seat's view or the omniscient one (rebuilt by replaying)."""

from __future__ import annotations

import json
from pathlib import Path

from braincards.envs import get_spec
from braincards.training.evaluation.replay import (
    REPLAY_SUFFIX,
    ReplayError,
    new_table,
    parse_replay,
)

from .session import RequestError
from .view import end_reason, table_view

MAX_LISTED = 500
MAX_NAME = 128  # characters of a replay file name (a longer one is refused, not looked up)


def list_replays(folder: Path) -> list[dict]:
    """The newest replay files of ``folder``: name, game, seats and result of each."""
    if not folder.is_dir():
        return []
    paths = sorted(folder.glob(f"*{REPLAY_SUFFIX}"), key=lambda p: p.stat().st_mtime, reverse=True)
    out = []
    for path in paths[:MAX_LISTED]:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
            head, last = json.loads(lines[0]), json.loads(lines[-1])
        except (OSError, ValueError, IndexError):
            continue
        result = last if last.get("type") == "result" else {}
        out.append({"name": path.name, "game": head.get("game"), "seats": head.get("seats"),
                    "returns": result.get("returns"), "scores": result.get("scores"),
                    "length": result.get("length")})
    return out


def read_replay_text(folder: Path, name: str) -> str:
    """The text of replay ``name`` in ``folder`` (a bare file name; 404 otherwise)."""
    bad = "/" in name or "\\" in name or name.startswith(".") or not name.endswith(REPLAY_SUFFIX)
    if bad or len(name) > MAX_NAME:
        raise RequestError(404, f"no replay named {name[:MAX_NAME]!r}")
    try:
        return (folder / name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        raise RequestError(404, f"no replay named {name!r}") from None


def replay_view(text: str, step: int, viewer: str | None) -> dict:
    """The table after ``step`` moves of the replay in ``text``, as ``viewer`` sees it."""
    try:
        replay = parse_replay(text)
        env = new_table(replay["header"])
    except (ReplayError, ValueError, KeyError, TypeError) as err:
        raise RequestError(422, f"not a readable replay: {err}") from None
    spec = get_spec(replay["header"]["game"])
    if viewer is not None and viewer not in env.possible_agents:
        raise RequestError(422, f"viewer must be one of {env.possible_agents} or null (everything)")
    total = len(replay["steps"])
    if not 0 <= step <= total:
        raise RequestError(422, f"step must be between 0 and {total}")
    log = []
    for s in replay["steps"][:step]:
        log.append({"i": len(log), "agent": s["agent"], "kind": spec.decision(env.state),
                    "meaning": env.log_meaning(s["action"])})
        try:
            env.step(s["action"])
        except ValueError as err:
            raise RequestError(422, f"replay step {len(log) - 1} does not replay: {err}") from None
    seats = replay["header"].get("seats") or env.possible_agents
    labels = {a: f"{a} ({s})" for a, s in zip(env.possible_agents, seats, strict=False)}
    over = step == total and replay["result"] is not None
    out = table_view(spec, env, viewer=viewer, labels=labels, log=log, over=False, step=step)
    out.update({"total": total, "header": replay["header"], "over": over,
                "result": replay["result"] if over else None,
                "end_reason": end_reason(env, labels) if over else None})
    return out
