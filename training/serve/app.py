"""The web app of ``braincards serve``: a FastAPI app over the game store.

Every route but the agent's move is a plain ``def``: FastAPI runs it in its thread pool, and
each game is changed only under its own lock. An agent's move (``advance``) runs on the
:class:`AgentWorkers` instead, while its request waits without a thread: a search seat's
move on the one search worker, with a time budget, any other agent's on the quick workers.
So many games of slow searches queue among themselves and delay nobody else. Errors are 4xx JSON ``{"detail": message}`` and leave the game as it was.
The pages are static files of this package (no CDN, no build step).
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, StrictInt

from braincards.training.agents.network import set_torch_threads

from .games import GameStore, game_catalog
from .guard import LOCAL_HOSTS, Guard, redact
from .replays import list_replays, read_replay_text, replay_view
from .session import RequestError
from .study import Study, load_study
from .study_forms import public_items
from .tutorials import find_tutorial, start_tutorial
from .view import session_view

STATIC = Path(__file__).parent / "static"


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid")
    game: str
    options: dict = {}
    seats: list[str]
    seed: StrictInt | None = None


class Move(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: StrictInt
    step: StrictInt


class Advance(BaseModel):
    model_config = ConfigDict(extra="forbid")
    step: StrictInt


class ReplayView(BaseModel):
    model_config = ConfigDict(extra="forbid")
    replay: str
    step: StrictInt = 0
    viewer: str | None = None


class StudyStart(BaseModel):
    model_config = ConfigDict(extra="forbid")
    participant: str
    consent: bool | None = None


class StudyAnswers(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answers: dict


def create_app(replay_dir: str | Path = "replays", study: str | Path | None = None,
               hosts: tuple[str, ...] = LOCAL_HOSTS, idle_minutes: float | None = None) -> FastAPI:
    """The app; ``study``: a study file, which turns the server into that study alone;
    ``hosts``: the host names it answers to (:class:`~.guard.Guard`); ``idle_minutes``: how
    long a game nobody asks about is kept (default 30; a study's are kept for good)."""
    if idle_minutes is not None and not 1 <= idle_minutes <= 7 * 24 * 60:
        raise ValueError(f"idle minutes must be 1..{7 * 24 * 60} (a week), got {idle_minutes}")
    set_torch_threads(1)
    app = FastAPI(title="braincards serve", docs_url=None, redoc_url=None)
    app.add_middleware(Guard, hosts=tuple(hosts))
    protocol = load_study(study) if study is not None else None
    if protocol is not None:
        replay_dir = protocol["out"] / "replays"
    store = GameStore(replay_dir, idle_seconds=None if idle_minutes is None else 60.0 * idle_minutes)
    runner = Study(protocol, store) if protocol is not None else None
    store.on_finish = runner.record if runner is not None else None
    store.on_move = runner.progress if runner is not None else None
    app.state.store, app.state.study = store, runner

    @app.exception_handler(RequestError)
    def _refused(request: Request, err: RequestError):
        return JSONResponse({"detail": redact(str(err))}, status_code=err.status)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(STATIC / "index.html")

    @app.get("/api/meta")
    def meta():
        if runner is not None:
            return {"study": True, "games": [], "pace_ms": protocol["pace_ms"], "step_mode": protocol["step_mode"],
                    "tutorial": protocol["game"] if protocol["tutorial"] else None,
                    "consent": protocol["consent"], "instructions": protocol["instructions"],
                    "questionnaire": public_items(protocol["questionnaire"])}
        return {"study": False, "games": game_catalog()}

    _game_routes(app, store, runner)
    _replay_routes(app, store, runner)
    _study_routes(app, runner)
    return app


class AgentWorkers:
    """The threads that compute agents' moves, apart from the request threads: ``quick``
    for rule players and networks (milliseconds a move), ``search`` for search seats (up to
    :data:`~.session.MOVE_BUDGET_S` a move), so that a queue of searches never delays a rule
    player's or a network's move, nor any request that is not an agent move."""

    def __init__(self, quick: int = 2, search: int = 1):
        self.quick = ThreadPoolExecutor(quick, thread_name_prefix="agent-quick")
        self.search = ThreadPoolExecutor(search, thread_name_prefix="agent-search")


def _game_routes(app: FastAPI, store: GameStore, runner) -> None:
    study = runner is not None
    agents = app.state.agents = AgentWorkers()

    @app.post("/api/games", status_code=201)
    def new_game(body: NewGame, request: Request):
        if study:
            raise RequestError(403, "this server runs a study: games start from the study page")
        client = request.client.host if request.client else None
        gid, session = store.create(body.game, body.options, body.seats, body.seed, client=client)
        with session.lock:
            session.mark_pending()
            return {"id": gid, "view": session_view(session)}

    @app.post("/api/tutorials/{game}", status_code=201)
    def new_tutorial(game: str, request: Request):
        if study and not (runner.study["tutorial"] and find_tutorial(game).game == runner.study["game"]):
            raise RequestError(403, "this study offers no tutorial of that game")
        client = request.client.host if request.client else None
        gid, session = start_tutorial(store, game, client, policies=not study)
        with session.lock:
            session.mark_pending()
            return {"id": gid, "view": session_view(session, study=study)}

    @app.get("/api/games/{gid}")
    def get_game(gid: str):
        session = store.get(gid)
        with session.lock:
            session.mark_pending()
            return session_view(session, study=study)

    @app.post("/api/games/{gid}/move")
    def move(gid: str, body: Move):
        session = store.get(gid)
        with session.lock:
            session.human_move(body.action, body.step)
            store.finished(session)
            session.mark_pending()
            return session_view(session, study=study)

    def _advance(session, step: int) -> dict:
        with session.lock:
            session.agent_move(step)
            store.finished(session)
            session.mark_pending()
            return session_view(session, study=study)

    @app.post("/api/games/{gid}/advance")
    async def advance(gid: str, body: Advance):
        # off the request threads: a search seat's move waits for the one search worker, any
        # other agent's for the quick workers, and this request holds no thread meanwhile
        session = store.get(gid)
        lane = agents.search if session.searching else agents.quick
        return await asyncio.wrap_future(lane.submit(_advance, session, body.step))


def _replay_routes(app: FastAPI, store: GameStore, runner) -> None:
    def _no_study():
        if runner is not None:
            raise HTTPException(403, "replays are not shown during a study")

    @app.get("/api/replays")
    def replays():
        _no_study()
        return {"folder": store.replay_dir.name, "replays": list_replays(store.replay_dir)}

    @app.get("/api/replays/{name}", response_class=PlainTextResponse)
    def replay_file(name: str):
        _no_study()
        return read_replay_text(store.replay_dir, name)

    @app.post("/api/replay-view")
    def view_replay(body: ReplayView):
        _no_study()
        return replay_view(body.replay, body.step, body.viewer)


def _study_routes(app: FastAPI, runner) -> None:
    def _study() -> Study:
        if runner is None:
            raise HTTPException(404, "this server runs no study (start it with --study FILE)")
        return runner

    @app.post("/api/study/start")
    def study_start(body: StudyStart):
        return _study().start(body.participant, body.consent)

    @app.post("/api/study/{token}/next")
    def study_next(token: str):
        return _study().next_game(token)

    @app.get("/api/study/{token}")
    def study_current(token: str):
        return _study().current(token)

    @app.post("/api/study/{token}/answers")
    def study_answers(token: str, body: StudyAnswers):
        return _study().answer(token, body.answers)
