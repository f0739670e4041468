"""``braincards serve``: play with and against policies in the browser, watch replays, and run
human-partner studies (the ``web`` extra: FastAPI and uvicorn).

* :mod:`.session` - one game: the env on the server, the seated policies, the move log;
* :mod:`.view` - what a seat's page is sent (only what that seat may see);
* :mod:`.games` - the store of games (unguessable ids) and their replays;
* :mod:`.replays` - the replay viewer's files and views;
* :mod:`.study` - study mode: a fixed, counterbalanced protocol and its results CSV;
* :mod:`.app` - the FastAPI app (:func:`create_app`); the pages are in ``static/``.
"""

from __future__ import annotations

from .app import create_app

__all__ = ["create_app"]
