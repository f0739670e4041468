"""What the page is sent: one seat's view of a game, built only from what that seat may see.

The table is the env's own ``table_data(viewer=seat)`` (cards as fields, which the page
draws) and ``render_text(viewer=seat)`` (the same in words): the rules engine decides what a
seat sees, as in ``braincards play``. The legal moves come from the action mask and are sent only
to the seat that decides, and the log of moves shows another seat's private decisions (the
game's ``GameSpec.private_decisions``) as "makes a private choice". Nothing else of the state
is serialised, so two games that differ only in what the seat cannot see give the same bytes.
The omniscient view (``viewer=None``) is for watching agents, replays and finished games.
"""

from __future__ import annotations

import re

LOG_LINES = 12  # the last moves shown in words
AGENT = re.compile(r"\bplayer_\d+\b")  # an env's name for a seat, in its sentences


def log_line(entry: dict, viewer: str | None, spec, labels: dict) -> str:
    """One move in words, as ``viewer`` may know it (None: everything)."""
    who = labels.get(entry["agent"], entry["agent"])
    private = entry["kind"] in spec.private_decisions
    if private and viewer is not None and entry["agent"] != viewer:
        return f"{who}: makes a private choice ({entry['kind']})"
    return f"{who}: {entry['meaning']}"


def moves(raw, seat: str | None) -> list[dict]:
    """The legal moves of ``seat`` when it decides now (else none), in words and with the card
    each one plays or names, as ``seat`` sees it."""
    if seat is None or raw.agent_selection != seat or not raw.legal_actions():
        return []
    mask = raw.observe(seat)["action_mask"]
    return [{"action": int(a), "meaning": raw.action_meaning(int(a)), "card": raw.action_card(int(a))}
            for a in range(len(mask)) if mask[a]]


def table_view(spec, raw, *, viewer: str | None, labels: dict, log: list[dict], over: bool,
               step: int) -> dict:
    """The JSON-safe view of ``raw`` for ``viewer`` (an agent name, or None for all)."""
    to_act = None if over else raw.agent_selection
    kind = None if over else spec.decision(raw.state)
    return {
        "game": spec.id,
        "title": spec.title,
        "cooperative": spec.cooperative,
        "step": step,
        "viewer": viewer,
        "seats": [{"agent": a, "label": labels[a]} for a in raw.possible_agents],
        "to_act": to_act,
        "to_act_label": labels.get(to_act) if to_act else None,
        "decision": kind,
        "table": raw.render_text(viewer=None if over else viewer).splitlines(),
        "board": raw.table_data(viewer=None if over else viewer),
        "log": [log_line(e, viewer, spec, labels) for e in log[-LOG_LINES:]],
        "moves": [] if over else moves(raw, viewer),
        "over": over,
    }


def end_reason(raw, labels: dict) -> str | None:
    """Why the game ended, with the page's names for the seats (None while it goes on)."""
    text = raw.end_reason()
    return None if text is None else AGENT.sub(lambda m: labels.get(m.group(0), m.group(0)), text)


def session_view(session, *, study: bool = False) -> dict:
    """The view a game's page gets: the person's seat (or everything when no one plays)."""
    labels = dict(zip(session.agents, session.labels, strict=True))
    out = table_view(session.spec, session.raw, viewer=session.human, labels=labels,
                     log=session.log, over=session.over, step=session.step)
    out["you"] = session.human
    out["notes"] = list(session.notes)
    out["agents_turn"] = not session.over and session.to_act != session.human
    if session.tutorial is not None:
        out["tutorial"] = session.tutorial.view(session)
    if session.over:
        out["result"] = session.result()
        out["end_reason"] = end_reason(session.raw, labels)
        if not study and session.tutorial is None:
            out["replay"] = session.replay_name
    return out
