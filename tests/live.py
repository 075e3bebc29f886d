"""Shared plumbing of the live-server tests: a threaded server on a free loopback port and
Debian's Chromium driven by Playwright (never a downloaded browser)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

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


def launch_chromium(playwright: Any) -> Any:
    """Headless Debian Chromium with the flags this sandboxed machine needs."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def require_chromium() -> None:
    """Skip the calling module's tests when Debian's Chromium is not installed."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (install Debian's chromium to run browser tests)")


def serve_for_browser(settings: Any) -> None:
    """Per-test settings of a browser test: the real model answers, and the password a module
    fixture stored with the default hasher (before any per-test override) still verifies."""
    settings.KB = {**settings.KB, "EMBEDDING_PROVIDER": "local"}
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
        *settings.PASSWORD_HASHERS,
    ]
