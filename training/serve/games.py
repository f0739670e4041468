"""The server's games: unguessable ids, the session store, and what happens after a move (a
study saves the moves so far) and when a game ends (its replay is written atomically; a study
records its row).
"""

from __future__ import annotations

import secrets
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from braincards.envs import SPECS, get_spec
from braincards.training.agents.checkpoint import CheckpointConfigWarning
from braincards.training.agents.locations import adopted_options, checkpoint_dirs
from braincards.training.agents.specs import plain_kinds
from braincards.training.evaluation.replay import REPLAY_SUFFIX, write_replay

from .session import HUMAN, GameSession, RequestError, check_seats

MAX_GAMES = 2000  # games kept in memory; idle ones go first, then the oldest finished ones
IDLE_SECONDS = 1800.0  # a game nobody has asked about for this long is dropped (not a study's)
PER_CLIENT = 50  # games under way that one address may hold at once


def policy_choices(spec) -> list[str]:
    """The seat choices the new-game page offers for a game (any other spec may be typed): the
    registry's kinds that play it by name alone, then its checkpoints."""
    found = {f"{spec.name}/{p.stem}" for root in checkpoint_dirs()
             for p in (Path(root) / spec.name).glob("*.zip")}
    return ["human", *plain_kinds(spec.id), *sorted(found)]


def game_catalog() -> list[dict]:
    """Every game with its player counts, options (and defaults) and seat choices."""
    out = []
    for spec in SPECS.values():
        options = {k: spec.default(k) for k in spec.table_options()}
        out.append({"id": spec.id, "name": spec.name, "title": spec.title,
                    "cooperative": spec.cooperative, "players": list(spec.players),
                    "options": options, "policies": policy_choices(spec)})
    return out


def _table_options(spec, options, seats) -> tuple[dict, str | None]:
    """A new game's options: as sent, or, when the page set none but the player count, the
    options its checkpoint seats were trained with (and the line that says so)."""
    options = dict(options or {}) if isinstance(options, dict) else options
    if not isinstance(options, dict) or not isinstance(seats, list) or set(options) - {"num_players"}:
        return options, None
    adopted, note = adopted_options(spec.id, [s for s in seats if s != HUMAN], len(seats))
    return {**adopted, **options}, note


class GameStore:
    """The live games by id, and where finished games' replays go."""

    def __init__(self, replay_dir: str | Path, on_finish: Callable | None = None,
                 on_move: Callable | None = None, idle_seconds: float | None = None):
        self.replay_dir = Path(replay_dir)
        self.idle_seconds = IDLE_SECONDS if idle_seconds is None else float(idle_seconds)
        self.on_finish = on_finish
        self.on_move = on_move  # called with the session after every move (a study saves its moves)
        self._games: OrderedDict[str, GameSession] = OrderedDict()
        self._lock = threading.Lock()

    def create(self, game, options, seats, seed=None, *, labels=None, client: str | None = None,
               gid: str | None = None) -> tuple[str, GameSession]:
        """A new game (a RequestError for a bad game, option or seat, or for a ``client``
        address that already holds :data:`PER_CLIENT` games under way); ``gid``: its id when
        a study game is brought back after a restart (else a new unguessable one)."""
        try:
            spec = get_spec(game)
            options, note = _table_options(spec, options, seats)
            config = spec.check_options(options)
        except (ValueError, TypeError) as err:
            raise RequestError(422, str(err)) from None
        if "render_mode" in config:
            raise RequestError(422, "render_mode is not an option of a table played here: the page draws it")
        seats = check_seats(spec, config, seats)
        seed = secrets.randbits(128) if seed is None else seed  # a deal nobody can guess
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**128:
            raise RequestError(422, "'seed' must be an integer from 0 to 2**128 - 1")
        name = f"{time.strftime('%Y%m%d-%H%M%S')}-{spec.name}-{secrets.token_hex(3)}{REPLAY_SUFFIX}"
        try:
            with warnings.catch_warnings(record=True) as caught:  # said on the page, not in the server's log
                warnings.simplefilter("always", CheckpointConfigWarning)
                session = GameSession(spec.id, config, seats, seed, labels=labels, replay_name=name)
        except (ValueError, OSError) as err:  # a bad policy spec or checkpoint
            raise RequestError(422, str(err)) from None
        said = [str(w.message) for w in caught if issubclass(w.category, CheckpointConfigWarning)]
        session.notes = ([note] if note else []) + list(dict.fromkeys(said))
        gid = gid or secrets.token_urlsafe(18)
        session.client = client
        with self._lock:
            self._expire()
            if client is not None and sum(1 for g in self._games.values()
                                          if g.client == client and not g.over) >= PER_CLIENT:
                raise RequestError(429, f"this address already has {PER_CLIENT} games under way; "
                                        "finish one or leave them to expire")
            self._evict()
            self._games[gid] = session
        return gid, session

    def _expire(self) -> None:
        """Drop the games nobody asked about for ``idle_seconds`` (:data:`IDLE_SECONDS` unless
        the server was told otherwise; a study's are kept)."""
        now = time.monotonic()
        for gid, s in list(self._games.items()):
            if now - s.touched > self.idle_seconds and s.study is None:
                del self._games[gid]

    def _evict(self) -> None:
        if len(self._games) < MAX_GAMES:
            return
        for gid, s in list(self._games.items()):
            if s.over and s.study is None:
                del self._games[gid]
                return
        raise RequestError(503, f"{MAX_GAMES} games are being played; finish one first")

    def get(self, gid: str) -> GameSession:
        session = self._games.get(gid)
        if session is None:
            raise RequestError(404, "no such game (it expired after "
                                    f"{self.idle_seconds / 60:.0f} idle minutes, the id is wrong, or the server was restarted)")
        session.touched = time.monotonic()
        return session

    def finished(self, session: GameSession) -> None:
        """Called under the session's lock after every move: :attr:`on_move` hears of it, and
        a game that just ended is saved once (replay, then the study's row)."""
        if self.on_move is not None and session.saved_to is None:
            self.on_move(session)
        if not session.over or session.saved_to is not None or session.tutorial is not None:
            return  # (a tutorial game is practice: it leaves no replay)
        path = self.replay_dir / session.replay_name
        session.saved_to = write_replay(path, session.header(), session.steps, session.result())
        if self.on_finish is not None:
            self.on_finish(session)
