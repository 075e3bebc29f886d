"""Shared plumbing of the live-server tests: a threaded server on a free loopback port and
Debian's Chromium driven by Playwright (never a downloaded browser)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

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


def launch_chromium(playwright: Any) -> Any:
    """Headless Debian Chromium with the flags this sandboxed machine needs."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
