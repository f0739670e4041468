"""What a study asks of its participants besides playing: consent, instructions, and a
questionnaire after every game (Likert items, free text, and attention checks), all from the
study file::

    consent: |
      You are invited to take part in a study of card-playing computer partners. ...
    instructions: |
      You will play 4 games of The Brain with two computer partners. ...
    questionnaire:
      - {id: enjoy, text: "I enjoyed playing with my partners.", scale: 7,
         low: strongly disagree, high: strongly agree}
      - {id: attention, text: "To show you read this, choose 2.", scale: 5, expect: 2}
      - {id: comments, text: "Anything you noticed about your partners?", free_text: true, required: false}

With ``consent``, the start page shows it and a participant starts only by agreeing (the time
they agreed is kept with their number). With a ``questionnaire``, each finished game asks it
before the next game starts; the answers go to ``answers.csv`` beside ``results.csv``, one
row per item, with the game's condition. An item with ``expect`` is an attention check: its
row says whether the answer was the expected one (``attention_ok``), and the participant is
not told.
"""

from __future__ import annotations

import csv
import io
import re

from .session import RequestError

ITEM_ID = re.compile(r"[a-z][a-z0-9_]{0,31}")
ITEM_KEYS = {"id", "text", "scale", "low", "high", "free_text", "required", "expect"}
MAX_TEXT = 4000  # characters of a consent or instructions text
MAX_ANSWER = 2000  # characters of a free-text answer
ANSWER_COLUMNS = ["participant", "participant_index", "game_index", "condition", "item", "answer", "attention_ok"]


def load_forms(raw: dict, where: str) -> dict:
    """``consent``, ``instructions`` and ``questionnaire`` of a study file, checked (a
    ValueError names what is wrong and what is allowed)."""
    out = {}
    for key in ("consent", "instructions"):
        text = raw.get(key)
        if text is not None and (not isinstance(text, str) or not text.strip() or len(text) > MAX_TEXT):
            raise ValueError(f"{where}: '{key}' must be a text of 1 to {MAX_TEXT:,} characters")
        out[key] = text.strip() if text else None
    items = raw.get("questionnaire") or []
    if not isinstance(items, list):
        raise ValueError(f"{where}: 'questionnaire' must be a list of items")
    out["questionnaire"] = [_item(item, f"{where}: questionnaire item {i}") for i, item in enumerate(items)]
    ids = [q["id"] for q in out["questionnaire"]]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{where}: questionnaire item ids must differ, got {ids}")
    return out


def _item(item, where: str) -> dict:
    if not isinstance(item, dict) or set(item) - ITEM_KEYS:
        raise ValueError(f"{where}: an item is a mapping with keys from {sorted(ITEM_KEYS)}")
    if not isinstance(item.get("id"), str) or not ITEM_ID.fullmatch(item["id"]):
        raise ValueError(f"{where}: 'id' must be lower-case letters, digits and '_' (1-32), got {item.get('id')!r}")
    if not isinstance(item.get("text"), str) or not item["text"].strip():
        raise ValueError(f"{where}: 'text' (the question) is required")
    free = item.get("free_text", False)
    if free is not True and free is not False:
        raise ValueError(f"{where}: 'free_text' must be true or false")
    scale = item.get("scale")
    if free:
        if scale is not None or "expect" in item:
            raise ValueError(f"{where}: a free-text item has no 'scale' or 'expect'")
    elif not isinstance(scale, int) or isinstance(scale, bool) or not 2 <= scale <= 11:
        raise ValueError(f"{where}: 'scale' (the Likert points) must be an integer 2..11, got {scale!r}")
    expect = item.get("expect")
    if expect is not None and (not isinstance(expect, int) or isinstance(expect, bool) or not 1 <= expect <= scale):
        raise ValueError(f"{where}: 'expect' (an attention check's answer) must be one of 1..{scale}")
    return {"id": item["id"], "text": item["text"].strip(), "scale": scale, "free_text": free,
            "low": str(item.get("low", "")), "high": str(item.get("high", "")),
            "required": bool(item.get("required", True)), "expect": expect}


def public_items(questionnaire: list[dict]) -> list[dict]:
    """The items as the page gets them: never an attention check's expected answer."""
    return [{k: v for k, v in q.items() if k != "expect"} for q in questionnaire]


def check_answers(questionnaire: list[dict], answers) -> dict:
    """The answers to every item, checked (a RequestError 422 names the first bad one):
    a Likert answer is an integer of its scale, a free text at most :data:`MAX_ANSWER`
    characters; a required item must be answered; an unknown item is refused."""
    if not isinstance(answers, dict):
        raise RequestError(422, "answers must be a mapping of item id -> answer")
    items = {q["id"]: q for q in questionnaire}
    unknown = sorted(set(answers) - set(items))
    if unknown:
        raise RequestError(422, f"no questionnaire item {unknown[0]!r}; items: {sorted(items)}")
    out = {}
    for qid, q in items.items():
        value = answers.get(qid)
        if value is None or value == "":
            if q["required"]:
                raise RequestError(422, f"please answer: {q['text']}")
            out[qid] = ""
        elif q["free_text"]:
            if not isinstance(value, str) or len(value) > MAX_ANSWER:
                raise RequestError(422, f"{qid}: a text of at most {MAX_ANSWER:,} characters")
            out[qid] = value.strip()
        else:
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= q["scale"]:
                raise RequestError(422, f"{qid}: choose one of 1..{q['scale']}")
            out[qid] = value
    return out


def answer_rows(questionnaire: list[dict], info: dict, answers: dict) -> list[dict]:
    """One ``answers.csv`` row per item of one game's questionnaire."""
    rows = []
    for q in questionnaire:
        ok = "" if q["expect"] is None else int(answers[q["id"]] == q["expect"])
        rows.append({"participant": info["participant"], "participant_index": info["index"],
                     "game_index": info["game"], "condition": info["condition"], "item": q["id"],
                     "answer": answers[q["id"]], "attention_ok": ok})
    return rows


def csv_text(rows: list[dict], columns: list[str]) -> str:
    """Rows as CSV. A text field that a spreadsheet would read as a formula (``=``, ``+``,
    ``-``, ``@``, a tab or a carriage return first, and not a plain number) gets a leading
    apostrophe."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows([{k: _cell(v) for k, v in row.items()} for row in rows])
    return buf.getvalue()


def _cell(value):
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r") and not _number(value):
        return "'" + value
    return value


def _number(text: str) -> bool:
    """Whether ``text`` is a plain number (a negative score read back from the CSV)."""
    try:
        float(text)
    except ValueError:
        return False
    return True
