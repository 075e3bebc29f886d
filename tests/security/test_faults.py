"""Faults against a real, separate embedded PostgreSQL: a database restart between requests,
and an ingest killed halfway. Each step runs in its own process, as in production."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from portal.embedded_db import stop_embedded_server

ROOT = Path(__file__).resolve().parents[2]

SETUP = """
from django.core.management import call_command
from portal.tenants.services import tenant_create, public_tenant_ensure
from portal.access.services import user_upsert
from django_tenants.utils import schema_context
from rest_framework.authtoken.models import Token
call_command("migrate_schemas", shared=True, verbosity=0)
public_tenant_ensure(domains=["localhost"])
tenant_create(schema_name="faults", domain="faults.localhost")
with schema_context("faults"):
    user, _ = user_upsert(username="f", password="f-pw-123", project_roles=[("ops", "reader")])
    print(json.dumps({"token": Token.objects.create(user=user).key}))
"""

RESTART_PROBE = """
import os
from django.core.handlers.wsgi import WSGIHandler
from werkzeug.test import Client
from pathlib import Path
from portal.embedded_db import control_embedded_server
client = Client(WSGIHandler())
headers = {"Host": "faults.localhost", "Authorization": "Token " + os.environ["FAULT_TOKEN"]}
first = client.get("/api/auth/me", headers=headers).status_code
control_embedded_server(Path(os.environ["EMBEDDED_DB_DIR"]), "-w", "-m", "fast", "restart")
second = client.get("/api/auth/me", headers=headers).status_code
third = client.get("/api/auth/me", headers=headers).status_code
print(json.dumps({"statuses": [first, second, third]}))
"""

SEARCH_RESTART_PROBE = """
import os
from django.core.handlers.wsgi import WSGIHandler
from django_tenants.utils import schema_context
from werkzeug.test import Client
from pathlib import Path
from portal.embedded_db import control_embedded_server
from kb.services import document_ingest
from portal.access.services import project_ensure
with schema_context("faults"):
    document_ingest(
        project=project_ensure(key="ops"),
        source_path="pager.md",
        content="# Pager\\n\\nThe pager rotation changes every Monday at noon.\\n",
    )
import logging
reruns = []
class Reruns(logging.Handler):
    def emit(self, record):
        if "rerun inline" in record.getMessage():
            reruns.append(record.getMessage())
logging.getLogger("kb.retrieval.parallel").addHandler(Reruns())
client = Client(WSGIHandler())
headers = {"Host": "faults.localhost", "Authorization": "Token " + os.environ["FAULT_TOKEN"]}
def ask():
    response = client.post("/api/kb/search", json={"query": "pager rotation"}, headers=headers)
    body = response.get_json()
    return [response.status_code, [hit["slug"] for hit in body.get("primary", [])]]
answers = [ask()]  # the semantic arm's second connection is open now
control_embedded_server(Path(os.environ["EMBEDDED_DB_DIR"]), "-w", "-m", "fast", "restart")
answers += [ask(), ask()]
from kb.models import Document
with schema_context("faults"):  # the ops project is the ingest test's to count
    Document.objects.filter(project__key="ops", source_path="pager.md").delete()
print(json.dumps({"answers": answers, "reruns": len(reruns)}))
"""

CHECK_INDEX = """
from django_tenants.utils import schema_context
from kb.models import Document, Chunk
with schema_context("faults"):
    docs = Document.objects.filter(project__key="ops")
    print(json.dumps({
        "documents": docs.count(),
        "without_chunks": docs.filter(chunks__isnull=True).count(),
        "unembedded": Chunk.objects.filter(embedding__isnull=True).count(),
        "without_fts": Chunk.objects.filter(search_vector__isnull=True).count(),
    }))
"""


def subprocess_env(data_dir: Path, database_url: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": database_url,
            "EMBEDDED_DB_DIR": str(data_dir),  # where the restart probe finds the server
            "GROUNDWORK_TESTING": "1",
            "DEBUG": "1",
        }
    )
    return env


def run_django(script: str, env: dict[str, str]) -> dict:
    code = "import json, django\ndjango.setup()\n" + textwrap.dedent(script)
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "portal.settings"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@contextmanager
def fault_database(prefix: str) -> Iterator[tuple[dict[str, str], dict, Path]]:
    """A throwaway embedded server with one migrated tenant, `faults`: (the environment of
    a process using it, what SETUP printed, a folder of its own for the test's files).

    This process owns the server throughout (the steps only connect to it), so a killed
    client can never take it down or leave it half-attached. Not under pytest's basetemp: a
    concurrent pytest session resets pytest-of-<user> to mode 0700, after which the server's
    own OS user (pgserver, when run as root) cannot stop it.
    """
    import pgserver

    folder = Path(tempfile.mkdtemp(prefix=prefix))
    data_dir = folder / "pg"
    server = pgserver.get_server(str(data_dir), cleanup_mode=None)
    env = subprocess_env(data_dir, server.get_uri())
    try:
        yield env, run_django(SETUP, env), folder
    finally:
        stop_embedded_server(data_dir)
        shutil.rmtree(folder, ignore_errors=True)


def start_worker(env: dict[str, str], *args: str) -> subprocess.Popen:
    """`manage.py kb_worker` as a process of its own against the fault database."""
    return subprocess.Popen(
        [sys.executable, "manage.py", "kb_worker", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.fixture(scope="module")
def fault_db():
    with fault_database("gw-faultdb-") as (env, setup, _):
        yield env, setup["token"]


def test_the_request_after_a_database_restart_succeeds(fault_db):
    env, token = fault_db
    statuses = run_django(RESTART_PROBE, {**env, "FAULT_TOKEN": token})["statuses"]
    assert statuses == [200, 200, 200]


def test_searches_after_a_database_restart_succeed(fault_db):
    """Both of a hybrid search's connections die with the server: the first search after
    the restart reruns the semantic arm on the request's connection, the next reconnects."""
    env, token = fault_db
    outcome = run_django(SEARCH_RESTART_PROBE, {**env, "FAULT_TOKEN": token})
    assert outcome["answers"] == [[200, ["pager"]]] * 3
    assert outcome["reruns"] == 1  # only the first search after the restart


def committed_documents(env: dict[str, str]) -> int:
    """Documents of `ops` committed so far: one query, so the kill lands within a batch."""
    import psycopg

    with psycopg.connect(env["DATABASE_URL"], autocommit=True) as connection:
        row = connection.execute(
            "SELECT count(*) FROM faults.kb_document d JOIN faults.access_project p "
            "ON p.id = d.project_id WHERE p.key = 'ops'"
        ).fetchone()
    return int(row[0]) if row else 0


def test_an_ingest_killed_halfway_leaves_no_half_indexed_document(fault_db, tmp_path):
    env, _ = fault_db
    notes = 300
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for index in range(notes):
        body = "\n\n".join(f"Paragraph {p} of note {index} about failover." for p in range(40))
        (corpus / f"note-{index:04d}.md").write_text(f"# Note {index}\n\n{body}\n")
    command = [
        sys.executable,
        "manage.py",
        "kb_ingest",
        "--tenant",
        "faults",
        "--project",
        "ops",
        str(corpus),
        "--json",
    ]
    # batches of 64 chunks (64 notes here) are each written in one transaction: the first
    # commits long before the last of the 300, so the kill lands mid-run, between batches
    # or inside one
    ingest_env = {**env, "KB_EMBEDDING_BATCH_SIZE": "16"}
    process = subprocess.Popen(
        command, cwd=ROOT, env=ingest_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:  # kill as soon as some documents are committed
        time.sleep(0.05)
        if process.poll() is not None:
            _, stderr = process.communicate()
            pytest.fail(f"kb_ingest ended before it could be killed: {stderr.decode()[-2000:]}")
        if committed_documents(env) > 0:
            break
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)

    after_kill = run_django(CHECK_INDEX, env)
    assert 0 < after_kill["documents"] < notes, after_kill
    assert after_kill["without_chunks"] == 0
    assert after_kill["unembedded"] == 0
    assert after_kill["without_fts"] == 0

    rerun = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    summary = json.loads(rerun.stdout)
    assert summary["skipped"] == after_kill["documents"]
    assert summary["created"] == notes - after_kill["documents"]
    final = run_django(CHECK_INDEX, env)
    assert final == {"documents": notes, "without_chunks": 0, "unembedded": 0, "without_fts": 0}
