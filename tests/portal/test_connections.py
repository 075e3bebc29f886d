"""Servers and workers hold a bounded number of database connections, whatever they are asked.

Real processes on the test database: gunicorn as `./dev run` and production run it, uvicorn
serving portal.asgi, and the ingestion worker. Their connections are counted in
pg_stat_activity by the application name their environment gives libpq (PGAPPNAME). Once a
server's threads have each opened their connection, the count must not grow from one burst to
the next. Under `runserver` (a thread per request, each keeping its connection for
CONN_MAX_AGE) the same bursts left 47-71 connections open, and under uvicorn, where every
request's sync work runs on a thread of its own, 44-61.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx2
import psycopg
import pytest
from django.contrib.auth import get_user_model

from kb.models import Document, IngestJob
from kb.services import document_ingest
from portal.access.models import Project
from tests.chat.conftest import project_remove
from tests.conftest import make_user, token_for
from tests.live import ROOT, database_url, server_process, subprocess_env

# Ordered with the database tests, before pytest-django's transactional tests flush the tenants.
pytestmark = pytest.mark.django_db

APP_NAME = "gw-connection-bound"
PROJECT = "conn-bound"
THREADS = 4  # request threads of the gunicorn worker under test
BURSTS = 3
MCP_CALLS_PER_BURST = 40
REQUESTS_PER_BURST = 40
CLIENTS = 8

GUIDE = """# Cache layer

Redis Cluster is the standard cache layer for session data and rate limits.

## Failover

Promote a replica with CLUSTER FAILOVER, then check the slots.
"""


@dataclass(frozen=True)
class Server:
    command: list[str]
    busy_bound: int  # connections while the bursts run
    idle_bound: int  # connections kept between bursts


SERVERS = {
    # What ./dev run and production serve: portal.wsgi under gunicorn's threaded worker. Each
    # request thread keeps one connection and the parallel search arm one more per process.
    "gunicorn": Server(
        command=[sys.executable, "-m", "gunicorn", "portal.wsgi", "--workers", "1"]
        + ["--threads", str(THREADS), "--bind", "127.0.0.1:{port}"],
        busy_bound=THREADS + 1,
        idle_bound=THREADS + 1,
    ),
    # Under ASGI each request's sync work runs on a thread of its own: one connection per
    # request in flight, closed when it ends; only the search arm's stays.
    "uvicorn": Server(
        command=[sys.executable, "-m", "uvicorn", "portal.asgi:application"]
        + ["--host", "127.0.0.1", "--port", "{port}", "--lifespan", "off"],
        busy_bound=CLIENTS + 1,
        idle_bound=1,
    ),
}


@dataclass(frozen=True)
class Site:
    host: str
    token: str  # a reader's
    editor_token: str
    document_id: int


@pytest.fixture(scope="module")
def site(tenants, django_db_blocker) -> Iterator[Site]:
    alpha = tenants["alpha"]
    with django_db_blocker.unblock():
        with alpha.scope():
            project, _ = Project.objects.get_or_create(key=PROJECT, defaults={"name": "Conn"})
            document_ingest(project=project, source_path="guide.md", content=GUIDE)
            document_id = Document.objects.get(project=project).pk
        reader = make_user(alpha, "conn-reader", projects={PROJECT: "reader"})
        editor = make_user(alpha, "conn-editor", projects={PROJECT: "editor"})
        try:
            yield Site(
                host=alpha.host,
                token=token_for(alpha, reader),
                editor_token=token_for(alpha, editor),
                document_id=document_id,
            )
        finally:
            with alpha.scope():
                get_user_model().objects.filter(username__startswith="conn-").delete()
                project_remove(PROJECT)


def server_connections(app_name: str = APP_NAME) -> int:
    """Connections the process under test holds now (its own libpq application name)."""
    with psycopg.connect(database_url(), autocommit=True) as probe:
        row = probe.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE application_name = %s AND datname = current_database()",
            [app_name],
        ).fetchone()
    return int(row[0]) if row else 0


class Sampler(threading.Thread):
    """The highest connection count of `app_name` seen while it runs."""

    def __init__(self, app_name: str = APP_NAME) -> None:
        super().__init__(daemon=True)
        self.app_name = app_name
        self.stopping = threading.Event()
        self.highest = 0

    def run(self) -> None:
        while not self.stopping.is_set():
            self.highest = max(self.highest, server_connections(self.app_name))
            time.sleep(0.05)


def mcp_call(http: httpx2.Client, name: str, arguments: dict[str, Any]) -> int:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    message["params"] = {"name": name, "arguments": arguments}
    return http.post("/mcp/", json=message).status_code


def burst(base: str, site: Site) -> list[int]:
    """MCP tool calls, API calls and page views from CLIENTS clients at once; the statuses."""
    headers = {
        "Host": site.host,
        "Authorization": f"Token {site.token}",
        "Accept": "application/json, text/event-stream",
    }
    tools: list[tuple[str, dict[str, Any]]] = [
        ("search", {"query": "cache layer for sessions"}),
        ("ask", {"question": "What is the standard cache layer?"}),
        ("get_document", {"document_id": site.document_id}),
        ("list_projects", {}),
    ]

    def one(index: int) -> int:
        with httpx2.Client(base_url=base, headers=headers, timeout=120) as http:
            if index < MCP_CALLS_PER_BURST:
                return mcp_call(http, *tools[index % len(tools)])
            kind = index % 4
            if kind == 0:
                return http.get("/login/").status_code
            if kind == 1:
                return http.get("/api/auth/me").status_code
            if kind == 2:
                return http.post("/api/kb/search", json={"query": "failover"}).status_code
            return http.get(f"/api/kb/documents/{site.document_id}/preview").status_code

    with ThreadPoolExecutor(CLIENTS) as pool:
        return list(pool.map(one, range(MCP_CALLS_PER_BURST + REQUESTS_PER_BURST)))


@pytest.mark.parametrize("server", sorted(SERVERS))
def test_a_server_holds_a_bounded_number_of_connections(site, server):
    env = subprocess_env(
        PGAPPNAME=APP_NAME,
        OMP_NUM_THREADS="1",
        # the limits are not what this test is about
        API_CHAT_RATE="100000/min",
        API_SEARCH_RATE="100000/min",
    )
    under_test = SERVERS[server]
    with server_process(under_test.command, host=site.host, env=env) as base:
        after: list[int] = []
        sampler = Sampler()
        sampler.start()
        try:
            for _ in range(BURSTS):
                statuses = burst(base, site)
                assert set(statuses) == {200}, statuses
                time.sleep(0.5)  # a connection closed at the end of a request leaves the list
                after.append(server_connections())
        finally:
            sampler.stopping.set()
            sampler.join()
    assert sampler.highest <= under_test.busy_bound, (sampler.highest, after)
    assert max(after) <= under_test.idle_bound, after
    assert after[-1] <= after[0], after  # nothing piles up from burst to burst


WORKER_APP_NAME = "gw-connection-bound-worker"
# the worker's job loop and its liveness lock hold one connection each
WORKER_BOUND = 3


def test_the_ingestion_worker_holds_a_bounded_number_of_connections(site, tenants):
    files = [
        ("files", (f"note-{n}.md", f"# Note {n}\n\nFailover drill {n} passed.\n".encode()))
        for n in range(12)
    ]
    gunicorn = SERVERS["gunicorn"].command
    with server_process(gunicorn, host=site.host, env=subprocess_env()) as base:
        queued = httpx2.post(
            f"{base}/api/kb/documents",
            headers={"Host": site.host, "Authorization": f"Token {site.editor_token}"},
            data={"project_key": PROJECT},
            files=files,
            timeout=120,
        )
    assert queued.status_code == 202, queued.text
    job_ids = [job["id"] for job in queued.json()["jobs"]]

    sampler = Sampler(WORKER_APP_NAME)
    sampler.start()
    try:
        worker = subprocess.run(
            [sys.executable, "manage.py", "kb_worker", "--batch"],
            cwd=ROOT,
            env=subprocess_env(PGAPPNAME=WORKER_APP_NAME),
            capture_output=True,
            timeout=600,
        )
    finally:
        sampler.stopping.set()
        sampler.join()
    assert worker.returncode == 0, worker.stderr.decode()[-2000:]
    with tenants["alpha"].scope():
        states = list(IngestJob.objects.filter(pk__in=job_ids).values_list("state", flat=True))
    assert states == ["done"] * len(files)
    assert 0 < sampler.highest <= WORKER_BOUND, sampler.highest
