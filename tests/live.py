"""Shared plumbing of the live-server tests: a threaded server on a free loopback port, real
server processes (gunicorn, uvicorn) on the test database, and Debian's Chromium driven by
Playwright (never a downloaded browser)."""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.test.testcases import LiveServerThread

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # tenant hosts are *.localhost names: resolve them to the loopback server
    "--host-resolver-rules=MAP *.localhost 127.0.0.1",
]


@contextmanager
def live_server() -> Iterator[int]:
    """Serve the portal (with static files) on 127.0.0.1; yields the port."""
    thread = LiveServerThread("127.0.0.1", StaticFilesHandler, port=0)
    thread.daemon = True
    thread.start()
    thread.is_ready.wait(30)
    if thread.error:
        raise thread.error
    try:
        yield thread.port
    finally:
        thread.terminate()


ROOT = Path(__file__).resolve().parents[1]


def database_url() -> str:
    """The running test database, for a subprocess (the server's URL with the test db name)."""
    from urllib.parse import urlsplit, urlunsplit

    from django.conf import settings
    from django.db import connection

    url = urlsplit(settings.DATABASE_URL)
    return urlunsplit(url._replace(path="/" + connection.settings_dict["NAME"]))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment of a portal subprocess on the test database."""
    return {**os.environ, "DATABASE_URL": database_url(), "GROUNDWORK_TESTING": "1", **extra}


@contextmanager
def server_process(command: list[str], *, host: str, env: dict[str, str]) -> Iterator[str]:
    """Run a server command ({port} in it is replaced) until /healthz answers on `host`;
    yields its base URL and stops it (SIGTERM) afterwards. Its output goes to a file (a full
    pipe would stall a chatty server)."""
    port = free_port()
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen(
            [part.replace("{port}", str(port)) for part in command],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(600):
                try:
                    httpx2.get(f"{base}/healthz", headers={"Host": host}, timeout=5)
                    break
                except httpx2.TransportError:
                    if process.poll() is not None:
                        output.seek(0)
                        raise RuntimeError(output.read().decode(errors="replace")) from None
                    time.sleep(0.1)
            yield base
        finally:
            process.terminate()
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def launch_chromium(playwright: Any) -> Any:
    """Headless Debian Chromium with the flags this sandboxed machine needs."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def require_chromium() -> None:
    """Skip the calling module's tests when Debian's Chromium is not installed; under CI
    (CI=true, set by .ci/run) fail them instead: a CI run must not pass without them."""
    if not os.path.exists(CHROMIUM):
        missing = f"{CHROMIUM} is missing (install Debian's chromium to run browser tests)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{missing}; under CI=true a browser test may not be skipped")
        pytest.skip(missing)


def serve_for_browser(settings: Any) -> None:
    """Per-test settings of a browser test: the real model answers, and the password a module
    fixture stored with the default hasher (before any per-test override) still verifies."""
    settings.KB = {**settings.KB, "EMBEDDING_PROVIDER": "local"}
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
        *settings.PASSWORD_HASHERS,
    ]


DESKTOP = {"width": 1200, "height": 900}
PHONE = {"width": 390, "height": 844}
BLOCKING_IMPACTS = {"serious", "critical"}


def axe_blocking(page: Any, context: Any = None) -> list[str]:
    """Serious and critical axe-core violations on the page (or in `context`)."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, context=context)
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:5]}"
        for v in results.response["violations"]
        if v.get("impact") in BLOCKING_IMPACTS
    ]


def shoot(page: Any, name: str) -> None:
    """`<name>-desktop.png` and `<name>-phone.png` of the current view (full page) in
    SCREENSHOTS_DIR, when it is set (e.g. docs/screenshots)."""
    folder = os.environ.get("SCREENSHOTS_DIR")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(viewport)
        page.screenshot(path=str(Path(folder) / f"{name}-{label}.png"), full_page=True)
    page.set_viewport_size(size)
