"""What a request must be before the app sees it: a pure ASGI middleware, :class:`Guard`.

* **Host**: the request's ``Host`` must be one the server is reached by (``127.0.0.1``,
  ``localhost``, ``::1`` and the names given with ``--host`` / ``--allow-host``), so a page
  on another name that resolves to this machine (DNS rebinding) gets 400, not the API.
* **Origin**: a request that carries an ``Origin`` header must come from one of those hosts
  (403 otherwise): another site's page cannot drive the API from a visitor's browser.
* **Body size**: at most :data:`MAX_BODY` bytes (413 otherwise), counted as they arrive, with
  or without a ``Content-Length``.

The search budgets a seat may ask for are checked with the seats
(:func:`.session.check_budget`).
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
MAX_BODY = 256 * 1024  # bytes: a replay of the longest game is about 60 KiB
PATH = re.compile(r"(?<![\w.:/])/(?:[\w.@+-]+/)+[\w.@+-]*")


HOST = re.compile(r"(?:\[(?P<v6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9._-]+))(?::(?P<port>\d{1,5}))?")
BARE_V6 = re.compile(r"[0-9a-f]*:[0-9a-f:.]*:[0-9a-f:.]*")  # "::1", as the allowed names may say it


def host_name(value: str) -> str:
    """``"localhost:8000"`` -> ``"localhost"``, ``"[::1]:8000"`` -> ``"::1"``; a malformed
    Host (an unclosed bracket, a port that is no port) -> ``""``, which no server answers to."""
    value = value.strip().lower()
    if BARE_V6.fullmatch(value):
        return value
    m = HOST.fullmatch(value)
    if m is None or (m["port"] is not None and not 0 < int(m["port"]) <= 65535):
        return ""
    return m["v6"] or m["name"]


def redact(message: str) -> str:
    """A message for the page with the server's file paths taken out."""
    return PATH.sub("<server path>", message)


class Guard:
    """The ASGI middleware of the module docstring, around ``app``."""

    def __init__(self, app, hosts: tuple[str, ...] = LOCAL_HOSTS, max_body: int = MAX_BODY):
        self.app = app
        self.hosts = {host_name(h) for h in hosts}
        self.max_body = max_body

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        refused = self._refusal(headers)
        if refused is not None:
            return await _respond(send, *refused)
        body, more = b"", True
        while more:  # the whole body first (it is small), counted as it arrives
            message = await receive()
            if message["type"] != "http.request":
                return None  # the client left
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_body:
                return await _respond(send, 413, f"the request body is over {self.max_body} bytes")
        replayed = False

        async def buffered():
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await self.app(scope, buffered, send)

    def _refusal(self, headers: dict) -> tuple[int, str] | None:
        if host_name(headers.get("host", "")) not in self.hosts:
            return 400, "unknown Host: this server answers to " + ", ".join(sorted(self.hosts))
        origin = headers.get("origin")
        if origin and host_name(urlsplit(origin).netloc) not in self.hosts:
            return 403, "cross-origin request refused"
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > self.max_body:
            return 413, f"the request body is over {self.max_body} bytes"
        return None


async def _respond(send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
