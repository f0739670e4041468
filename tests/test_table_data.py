"""``table_data``: the table as data (what the web page draws) says exactly what
``render_text`` says to the same viewer, card for card and back for back, and no more: a
seat's data is the same for a state and its twin (changed only where the seat cannot see).
``action_card`` names the card each legal move's words name. Every game, every player count."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from braincards.envs import make
from braincards.envs.brilliant_boar.cards import MOTIFS
from braincards.envs.oh_my_brain.cards import value_name

from .twins import TWINS

TABLES = [("the_brain", n, {}) for n in (1, 2, 3, 4)] + [
    ("the_brain", 3, {"memory": "perfect"}), ("the_brain", 2, {"discard_peek": True}),
    *[("oh_my_brain", n, {}) for n in (2, 3, 5)],
    *[("brilliant_boar", n, {}) for n in (1, 2, 4)], ("brilliant_boar", 3, {"memory": "perfect"})]
IDS = [f"{g}-{n}p{'-' + '-'.join(o) if o else ''}" for g, n, o in TABLES]
SHORT = {"blue": "blu", "purple": "pur", "green": "grn", "red": "red", "grey": "gry", "yellow": "yel"}


def _cards(data: dict) -> list[dict]:
    return [c for r in data["rows"] for p in r["piles"] for c in p["cards"]]


def _hidden(data: dict) -> int:
    return sum(p["hidden"] for r in data["rows"] for p in r["piles"])


def _brain_agrees(data: dict, text: str) -> None:
    shown = Counter(f"{SHORT[c['colour']]}-{c['object']}({c['effect']})" for c in _cards(data) if "colour" in c)
    assert shown == Counter(re.findall(r"\b(?:blu|pur|grn|red|gry|yel)-[a-z_]+\([^)]*\)", text))
    symbols = Counter(c["effect"] for c in _cards(data) if "colour" not in c)
    assert symbols == Counter(re.findall(r"\[([a-z_ ]+)\]", text))  # covered, symbol only (R-B8)
    assert _hidden(data) == sum(int(k) for k in re.findall(r"(\d+) hidden", text))


def _omb_agrees(data: dict, text: str) -> None:
    rows = {r["label"]: r for r in data["rows"]}
    horde = " ".join(value_name(c["value"]) for c in rows["table"]["piles"][0]["cards"]) or "(empty)"
    assert f"horde: {horde}" in text
    for label, brains, hand, grave in re.findall(r"(player_\d+): brains (-?\d+)  hand \[(.*?)\]  graveyard \[(.*?)\]", text):
        r = rows[label]
        assert r["facts"] == [["brains", int(brains)]]
        for p, said in zip(r["piles"], (hand, grave), strict=True):
            words = " ".join(value_name(c["value"]) for c in p["cards"])
            assert said == (f"{p['hidden']} hidden" if p["hidden"] or (not p["cards"] and "hidden" in said)
                            else words or "-")


def _boar_agrees(data: dict, text: str) -> None:
    cards = _cards(data)
    assert Counter(c["motif"] for c in cards if not c.get("remembered")) == Counter(
        re.findall(rf"(?<!\()\b({'|'.join(MOTIFS)})\b(?!\))", text.split("\n", 1)[1] + " " + _top(text)))
    assert sum(1 for c in cards if c.get("remembered")) == len(re.findall(rf"\(({'|'.join(MOTIFS)})\)", text))
    assert _hidden(data) == sum(h.count("?") for h in re.findall(r"hand \[([^\]]*)\]", text))


def _top(text: str) -> str:
    m = re.search(r"\(top: ([a-z]+)\)", text.split("\n", 1)[0])
    return m.group(1) if m and m.group(1) in MOTIFS else ""


AGREES = {"the_brain": _brain_agrees, "oh_my_brain": _omb_agrees, "brilliant_boar": _boar_agrees}


def _card_named(game: str, env, action: int) -> None:
    card, meaning = env.action_card(action), env.action_meaning(action)
    if card is None:
        return
    if game == "the_brain":
        assert f"{card['colour']} {card['object']} ({card['effect']})" in meaning
    elif game == "oh_my_brain":
        assert value_name(card["value"], env.state.marshmallows) in meaning
    elif "hidden" in card:
        assert "hand position" in meaning and env.memory == "none"
    elif meaning.startswith("draw"):  # the top card's motif; a pair's card is the one just played
        assert card["motif"] in meaning


@pytest.mark.parametrize("game,n,options", TABLES, ids=IDS)
def test_table_data_says_what_the_text_says_and_no_more(game, n, options):
    env = make(f"{game}_v0", raw=True, num_players=n, **options)
    rng, twin_rng = random.Random(n), random.Random(0)
    checked = differing = 0
    for episode in range(6):
        env.reset(seed=100 * n + episode)
        while not all(env.terminations.values()):
            for viewer in (None, env.agent_selection):
                AGREES[game](env.table_data(viewer), env.render_text(viewer))
            for a in env.legal_actions():
                _card_named(game, env, a)
            me = env.possible_agents.index(env.agent_selection)
            # default variants (a perfect memory sees its own Boar hand), not The Brain's solo
            # game, where only the deck's order is hidden
            if not options and not (game == "the_brain" and n == 1):
                real, seen, omni = env.state.to_dict(), env.table_data(env.agent_selection), env.table_data()
                env.reset(options={"state": TWINS[game](env.state.to_dict(), me, twin_rng)})
                differing += env.table_data() != omni
                assert env.table_data(env.agent_selection) == seen, "the data changed with hidden cards"
                env.reset(options={"state": real})
                checked += 1
            env.step(rng.choice(env.legal_actions()))
        AGREES[game](env.table_data(), env.render_text())
    if checked:
        assert differing >= checked // 2, (checked, differing)


@pytest.mark.parametrize("game", ["the_brain", "oh_my_brain", "brilliant_boar"])
def test_table_data_and_action_card_refuse_what_does_not_exist(game):
    env = make(f"{game}_v0", raw=True)
    with pytest.raises(RuntimeError, match="reset"):
        env.table_data()
    with pytest.raises(RuntimeError):
        env.action_card(0)
    env.reset(seed=0)
    size = env.action_space(env.agent_selection).n
    for bad in (-1, size):
        with pytest.raises(ValueError, match=rf"outside 0\.\.{size - 1}"):
            env.action_card(bad)
    with pytest.raises(KeyError):
        env.table_data("player_9")
