"""A short interactive tutorial per game: a fixed deal against rule-player seats, where the
first few of the person's decisions are guided.

A guided decision says what is being decided (in the game's words), what the card that the
guide picked does, and which move to make; the page marks that move, and any other move is
refused with the move asked for. The guide is the game's rule player (``heuristic``), so the
guided moves are sensible ones; the deal and every seat's seed are fixed, so every person
sees the same tutorial. After the guided decisions the game goes on freely, and a decision
of a kind not met before is still explained once. A tutorial game is never a study's game:
it writes no row, no replay and no saved progress.
"""

from __future__ import annotations

from dataclasses import dataclass

from braincards.envs import get_spec, table_config
from braincards.training.agents.specs import make_policy

from .session import HUMAN, RequestError, seat_labels


@dataclass(frozen=True)
class Tutorial:
    """One game's tutorial: its table, seats and deal, what to say, and how many of the
    person's decisions are guided."""

    game: str
    options: dict
    seats: tuple[str, ...]  # "human" first
    seed: int
    guided: int
    intro: str
    decisions: dict  # decision kind -> what it is, in a sentence or two
    effects: dict  # a card's effect -> what it does
    closing: str

    def effect_text(self, card: dict | None) -> str | None:
        """What the effect of ``card`` does (None for a card without one)."""
        effect = (card or {}).get("effect")
        if effect is None:
            return None
        return self.effects.get(effect) or self.effects.get(effect.split(" ")[0])


TUTORIALS = {t.game: t for t in (
    Tutorial(
        game="the_brain_v0", options={"num_players": 2, "difficulty": "amateur"},
        seats=(HUMAN, "heuristic"), seed=7, guided=6,
        intro=("The Brain is played together: you and your partner win when every card has been "
               "played, and lose as soon as the display in the middle holds 7 stacks (the "
               "'display n/7' counter at the top). You see your own hand, not your partner's; "
               "nobody may tell the others about their cards."),
        decisions={
            "play": "Play one card from your hand or your domain. It starts a new stack on the display, "
                    "then its effect (the word at the bottom of the card) happens.",
            "extra_card": "Extra card: play one more card as a new stack. Its own effect is ignored.",
            "donate_card": "Donate: choose one of your cards (hand or domain) to give away.",
            "donate_target": "Donate: choose who gets the card. It goes face up into their domain.",
            "cover": "Cover: put the card you just played on top of another stack, so the display "
                     "does not grow. Only a stack's top card counts.",
            "take_back": "Take back: take a whole stack into your domain. Those cards must be played "
                         "again later, but the display shrinks now.",
            "draw": "Draw: take the deck's top card into your hand, or not.",
            "peek": "Look through the discard pile, or not.",
        },
        effects={
            "donate": "donate gives one of your cards to another player",
            "cover": "cover puts this card on top of another stack",
            "take_back": "take back moves a whole stack into your domain",
            "extra_card": "extra card lets you play one more card at once",
            "remove": "remove sends every stack whose top card has that object or colour to the discard "
                      "pile: several stacks can go at once",
        },
        closing=("You know the basics. Play on to the end: watch the display counter, and use "
                 "cover, take back and remove cards to keep it small."),
    ),
    Tutorial(
        game="oh_my_brain_v0", options={"num_players": 2}, seats=(HUMAN, "heuristic"), seed=7, guided=6,
        intro=("Oh My Brain is played against the others: get rid of your cards. Each play goes on the "
               "horde and must be higher than its top card. Passing costs a brain; when a round ends, "
               "the others lose a brain for every card they still hold. Whoever runs out of brains "
               "ends the game, and the most brains win."),
        decisions={
            "draft": "Draft: you were dealt 3 cards. One goes to your graveyard (face down, yours "
                     "for later), the other two stay in your hand.",
            "play": "Play one or more cards of one value, higher than the horde's top card (0 always "
                    "fits), or pass: the horde is discarded and you lose a brain.",
            "restart": "After a pass you must play to the new, empty horde.",
            "extra_target": "You played several copies: choose whose graveyard gets the next extra copy.",
            "keep": "After a pass you drew 2 cards: choose the one to keep in hand; the other goes to "
                    "your graveyard.",
            "refill": "Your hand holds fewer than 3 cards: choose a card of your graveyard to take back.",
            "give_card": "The die says give: choose a card of your hand for an opponent's graveyard.",
            "give_target": "The die says give: choose the opponent who gets the card.",
            "steal": "The die says steal: choose the opponent you take a brain from.",
            "exchange": "The die says exchange: choose an opponent, and hands or graveyards.",
        },
        effects={
            "mosquito": "the mosquito (0) can always be played",
            "spider": "after the spider (8) the next play must be lower than 8",
            "mouse": "the mouse (11) discards the horde and gives you a whole new turn",
            "marshmallow": "a marshmallow rolls the die; its face says what happens",
        },
        closing="You know the basics. Play on: the round ends when someone has no card left.",
    ),
    Tutorial(
        game="brilliant_boar_v0", options={"num_players": 2}, seats=(HUMAN, "heuristic"), seed=7, guided=6,
        intro=("Brilliant Boar is a memory game. You hold your cards with their backs to you: your "
               "opponent sees them, you do not. You see a card's animal once, on the pile, as you "
               "draw it. Pairs are points; the most points win."),
        decisions={
            "turn": "Draw the pile's top card (you see its animal now, then never again), or play a card "
                    "from a position in your hand: if its animal is the pile's top card or a card in "
                    "the middle, the pair is yours and you play again; if not, it stays in the middle.",
            "choose": "Your card matches both the pile's top card and a card in the middle: choose "
                      "which one to take.",
        },
        effects={},
        closing="You know the basics. Play on, and remember where each animal went in your hand.",
    ),
)}


class TutorialGuide:
    """The tutorial of one game being played: the guide's pick for the person's current
    decision, whether a move may be made, and what the page says."""

    def __init__(self, tutorial: Tutorial, table):
        self.tutorial = tutorial
        self.coach = make_policy("heuristic", table, seed=tutorial.seed)
        self.made = 0  # the person's decisions so far
        self.seen: set[str] = set()  # decision kinds already explained
        self._pick: tuple[int, int] | None = None  # (game step, action)

    def pick(self, session) -> int | None:
        """The move asked for now (None once the guided decisions are over, or not the
        person's turn)."""
        if self.made >= self.tutorial.guided or session.over or session.to_act != session.human:
            return None
        if self._pick is None or self._pick[0] != session.step:
            self._pick = (session.step, int(self.coach.act(session.table.observe(session.human), session.human)))
        return self._pick[1]

    def check(self, session, action: int) -> None:
        """A RequestError when a guided decision gets another move than the one asked for."""
        asked = self.pick(session)
        if asked is not None and action != asked:
            raise RequestError(422, f"the tutorial asks for this move now: {session.raw.action_meaning(asked)}")

    def moved(self, kind: str) -> None:
        """The person made a decision of ``kind``."""
        self.made += 1
        self.seen.add(kind)

    def view(self, session) -> dict:
        """What the page shows beside the table: the words for now, and the move asked for."""
        t = self.tutorial
        out = {"game": t.game, "guided": t.guided, "made": self.made, "say": [], "move": None}
        if session.over:
            out["say"] = ["The tutorial game is over: the result below says why. Start a real game when "
                          "you are ready."]
            return out
        if self.made == 0:
            out["say"].append(t.intro)
        yours = session.to_act == session.human
        kind = session.spec.decision(session.raw.state)
        asked = self.pick(session)
        if yours and (asked is not None or kind not in self.seen):
            out["say"].append(t.decisions.get(kind, kind.replace("_", " ")))
        if asked is not None:
            effect = t.effect_text(session.raw.action_card(asked))
            move = session.raw.action_meaning(asked)
            out["say"].append(f"Make this move: {move}." + (f" {effect[0].upper()}{effect[1:]}." if effect else ""))
            out["move"] = asked
        elif yours and self.made >= t.guided:
            out["say"].append(t.closing)
        elif not yours:
            out["say"].append("Your partner or opponent is moving; watch the table and the last moves.")
        return out


def find_tutorial(game: str) -> Tutorial:
    """The tutorial of ``game`` (an id or a name; a RequestError naming those that exist)."""
    tutorial = TUTORIALS.get(game) or TUTORIALS.get(f"{game}_v0")
    if tutorial is None:
        raise RequestError(404, f"no tutorial for {game!r}; tutorials: {sorted(TUTORIALS)}")
    return tutorial


def start_tutorial(store, game: str, client: str | None, *, policies: bool = True):
    """A new tutorial game of ``game``; ``policies=False`` (a study): the seats are labelled
    "partner 1", never by their policy."""
    tutorial = find_tutorial(game)
    seats = list(tutorial.seats)
    labels = seat_labels(get_spec(tutorial.game), seats, policies=policies)
    gid, session = store.create(tutorial.game, dict(tutorial.options), seats, tutorial.seed,
                                labels=labels, client=client)
    session.tutorial = TutorialGuide(tutorial, table_config(tutorial.game, session.config))
    return gid, session
