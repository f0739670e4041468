"""Fixtures of the ``braincards serve`` tests: an API client over a fresh app, a live server
(uvicorn in a thread) and a real headless Chromium driven by Playwright.

The browser is Debian's ``chromium`` (``make chromium`` installs it with apt; ``make test``
never does); the browser tests are skipped, in one line naming ``make chromium``, only when
no chromium is found. Screenshots of every page go to ``build/screenshots/``."""

from __future__ import annotations

import shutil
import socket
import threading
import time
import warnings
from pathlib import Path

import pytest

fastapi = pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
uvicorn = pytest.importorskip("uvicorn", reason="the web extra (uvicorn) is not installed")
from fastapi.testclient import TestClient  # noqa: E402

from braincards.training.agents.checkpoint import CheckpointConfigWarning  # noqa: E402
from braincards.training.serve import create_app  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LOCAL = "http://localhost"  # the Host the app answers to (127.0.0.1, localhost, ::1 and --host)
SCREENSHOTS = ROOT / "build" / "screenshots"


@pytest.fixture(autouse=True)
def _quiet_checkpoint_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CheckpointConfigWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


@pytest.fixture
def app(tmp_path):
    return create_app(replay_dir=tmp_path / "replays")


@pytest.fixture
def client(app):
    with TestClient(app, base_url=LOCAL) as c:
        yield c


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """A uvicorn server of ``app`` on a free local port, in a daemon thread."""

    def __init__(self, app):
        self.app = app
        self.port = _free_port()
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self):
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the live server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture
def live_server(app):
    with LiveServer(app) as server:
        yield server


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def chromium_browser():
    path = chromium_path()
    if path is None:
        pytest.skip("no chromium on PATH: the browser tests need Debian's chromium; `make chromium` installs it")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=path, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def _page(browser, width: int, height: int):
    """A page of a fresh browser context at ``width`` x ``height``, agents at pace 0."""
    context = browser.new_context(viewport={"width": width, "height": height})
    context.add_init_script("localStorage.setItem('pace', '0')")
    pg = context.new_page()
    pg.set_default_timeout(20_000)
    return context, pg


@pytest.fixture
def web_page(chromium_browser):
    context, pg = _page(chromium_browser, 1000, 760)
    yield pg
    context.close()


@pytest.fixture
def sized_page(chromium_browser):
    """A page at 1280x800, the size the layout must fit."""
    context, pg = _page(chromium_browser, 1280, 800)
    yield pg
    context.close()


def screenshot(page, name: str) -> Path:
    """Save the page as build/screenshots/NAME.png (a test artifact; docs/img has copies)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
