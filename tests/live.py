"""Shared plumbing of the live-server tests: a threaded server on a free loopback port, real
server processes (gunicorn, uvicorn) on the test database, and Debian's Chromium driven by
Playwright (never a downloaded browser), and what the browser tests share: a signed-in page,
an axe-core scan and screenshots."""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import threading
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
DESKTOP = {"width": 1200, "height": 900}
PHONE = {"width": 390, "height": 844}
BLOCKING_IMPACTS = {"serious", "critical"}  # the axe-core impacts a page may not have


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
    accept_stored_passwords(settings)


def accept_stored_passwords(settings: Any) -> None:
    """The passwords a module's fixture stored with the default hasher, before any per-test
    override of the hashers, still verify when a browser signs in."""
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
        *settings.PASSWORD_HASHERS,
    ]


def signed_in_page(
    browser: Any,
    server: str,
    who: tuple[str, str],
    next_url: str = "/",
    *,
    viewport: dict[str, int] = DESKTOP,
    timeout: float = 60_000,
    wait_url: str | None = None,
    **context: Any,
) -> Any:
    """A page in a new browser context (`viewport`, then any other context options), signed in
    as `who` (username, password) through the login form and on `next_url` (waits for
    `wait_url`, by default `**<next_url>*`). Its uncaught JavaScript errors collect in
    `page.errors`."""
    page = browser.new_context(viewport=viewport, **context).new_page()
    page.set_default_timeout(timeout)
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.goto(f"{server}/login/?next={next_url}")
    page.fill("#id_username", who[0])
    page.fill("#id_password", who[1])
    page.click("form button[type=submit]")
    page.wait_for_url(wait_url or f"**{next_url}*")
    return page


def axe_blocking(page: Any, context: Any = None) -> list[str]:
    """Serious and critical axe-core violations on the page (or in `context`, a selector)."""
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(page, context=context).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:5]}"
        for v in violations
        if v.get("impact") in BLOCKING_IMPACTS
    ]


def screenshot(
    page: Any, name: str, *, full_page: bool = True, env: str = "SCREENSHOTS_DIR"
) -> None:
    """A screenshot of the current view as `<name>.png` in the folder the environment variable
    `env` names; nothing when it is not set."""
    folder = os.environ.get(env)
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=full_page)


def shoot(page: Any, name: str) -> None:
    """Desktop and phone screenshots of the current view (`<name>-desktop.png`,
    `<name>-phone.png`, full page), when SCREENSHOTS_DIR is set; the viewport is restored."""
    if not os.environ.get("SCREENSHOTS_DIR"):
        return
    size = page.viewport_size
    for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(viewport)
        screenshot(page, f"{name}-{label}")
    page.set_viewport_size(size)


class QueueWorker(threading.Thread):
    """Runs queued tasks as `kb_worker` would, until `stop` is set (committed data only);
    what it raised is kept in `errors` for the test to report."""

    def __init__(self, name: str = "test-kb-worker", idle: float = 0.3) -> None:
        super().__init__(daemon=True, name=name)
        self.stop = threading.Event()
        self.errors: list[BaseException] = []
        self.idle = idle

    def run(self) -> None:
        from django.db import connection

        from kb.worker import run_queued_tasks

        try:
            while not self.stop.is_set():
                if not run_queued_tasks(worker_id=self.name):
                    self.stop.wait(self.idle)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.errors.append(exc)
        finally:
            connection.close()


@contextmanager
def editor_server(
    info: Any, *, project_key: str, project_name: str, editor: tuple[str, str], worker_name: str
) -> Iterator[str]:
    """A live server over tenant `info` with a queue worker thread, a project and an editor of
    it: the base URL. Afterwards the project (documents, jobs), the editor and the chat logs
    and content gaps written meanwhile are removed, and the worker must have met no error.
    Call inside `django_db_blocker.unblock()`."""
    from django.contrib.auth import get_user_model

    from chat.models import ChatLog, ContentGap
    from kb.models import IngestJob
    from portal.access.models import Project
    from tests.chat.conftest import project_remove
    from tests.conftest import make_user

    with info.scope():
        Project.objects.get_or_create(key=project_key, defaults={"name": project_name})
        last_log = ChatLog.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        last_gap = ContentGap.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    make_user(info, editor[0], password=editor[1], projects={project_key: "editor"})
    worker = QueueWorker(name=worker_name, idle=0.3)
    with live_server() as port:
        worker.start()
        try:
            yield f"http://{info.host}:{port}"
        finally:
            worker.stop.set()
            worker.join(60)
    with info.scope():
        ChatLog.objects.filter(pk__gt=last_log).delete()
        ContentGap.objects.filter(pk__gt=last_gap).delete()
        IngestJob.objects.filter(project__key=project_key).delete()
        get_user_model().objects.filter(username=editor[0]).delete()
        project_remove(project_key)
    assert worker.errors == []
