"""A worker killed (SIGKILL) in the middle of a job: nothing half-written, and the next worker
requeues the job and finishes it. Real processes against a separate embedded PostgreSQL."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from portal.embedded_db import stop_embedded_server
from tests.security.test_faults import ROOT, SETUP, run_django, subprocess_env

pytestmark = pytest.mark.real_model

ENQUEUE = """
from django_tenants.utils import schema_context
from portal.access.services import project_ensure
from kb.uploads import UploadFile, ingest_jobs_enqueue
from kb.ingestion.prepare import prepare_document
from kb.services import chunk_params
body = "\\n\\n".join(
    f"## Section {s}\\n\\n" + " ".join(f"Failover step {s}.{w} checks replica lag." for w in range(60))
    for s in range(40)
)
data = ("# Failover manual\\n\\n" + body + "\\n").encode()
with schema_context("faults"):
    project = project_ensure(key="manuals")
    [job] = ingest_jobs_enqueue(
        project=project, user=None, files=[UploadFile(name="failover-manual.md", data=data)]
    )
    expected = len(prepare_document(source_path="failover-manual.md", content=data,
                                    params=chunk_params()).chunks)
    print(json.dumps({"job": job.pk, "chunks": expected}))
"""

STATE = """
import os
from django_tenants.utils import schema_context
from django_tasks_db.models import DBTaskResult
from kb.models import Chunk, Document, IngestJob
job_id = int(os.environ["FAULT_JOB"])
with schema_context("faults"):
    job = IngestJob.objects.get(pk=job_id)
    docs = Document.objects.filter(project__key="manuals")
    chunks = Chunk.objects.filter(document__in=docs)
    state = {
        "job": job.state, "progress": job.progress_done, "attempts": job.attempts,
        "documents": docs.count(), "chunks": chunks.count(),
        "unembedded": chunks.filter(embedding__isnull=True).count(),
        "task_id": job.task_id,
    }
task = DBTaskResult.objects.get(pk=state.pop("task_id"))
state["task"] = task.status
state["workers"] = len(task.worker_ids)
print(json.dumps(state))
"""


@pytest.fixture(scope="module")
def fault_db():
    """A throwaway embedded server with the `faults` tenant, in a folder of our own (a
    concurrent pytest session resets pytest-of-<user> to mode 0700, locking the server's OS
    user out of a data folder under pytest's basetemp)."""
    import pgserver

    folder = Path(tempfile.mkdtemp(prefix="gw-worker-fault-"))
    data_dir = folder / "pg"
    server = pgserver.get_server(str(data_dir), cleanup_mode=None)
    env = subprocess_env(data_dir, server.get_uri())
    run_django(SETUP, env)
    yield env
    stop_embedded_server(data_dir)
    shutil.rmtree(folder, ignore_errors=True)


def _worker(env: dict[str, str], *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", "kb_worker", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_a_worker_killed_mid_job_leaves_no_half_document_and_the_job_completes(fault_db):
    env = fault_db
    # the real model makes embedding take long enough to kill the worker in the middle of it
    env = {**env, "KB_EMBEDDING_PROVIDER": "local", "KB_EMBEDDING_BATCH_SIZE": "4"}
    queued = run_django(ENQUEUE, env)
    env["FAULT_JOB"] = str(queued["job"])
    assert queued["chunks"] > 40

    worker = _worker(env)
    deadline = time.monotonic() + 240
    state: dict = {}
    while time.monotonic() < deadline:
        time.sleep(0.5)
        if worker.poll() is not None:
            pytest.fail(f"the worker ended by itself: {worker.communicate()[1].decode()[-2000:]}")
        state = run_django(STATE, env)
        if state["job"] == "embedding" and 0 < state["progress"] < queued["chunks"]:
            break
    else:
        pytest.fail(f"the job never got to embedding: {state}")
    worker.send_signal(signal.SIGKILL)
    worker.wait(timeout=30)

    killed = run_django(STATE, env)
    assert killed["task"] == "RUNNING" and killed["job"] == "embedding", killed
    assert (killed["documents"], killed["chunks"]) == (0, 0)  # nothing half-written

    rerun = _worker(env, "--batch")  # requeues the dead worker's job, runs it, exits
    _, stderr = rerun.communicate(timeout=600)
    assert rerun.returncode == 0, stderr.decode()[-2000:]
    assert "its worker" in stderr.decode()  # it said why the job was requeued

    final = run_django(STATE, env)
    assert final == {
        "job": "done",
        "progress": queued["chunks"],
        "attempts": 2,
        "documents": 1,
        "chunks": queued["chunks"],
        "unembedded": 0,
        "task": "SUCCESSFUL",
        "workers": 2,
    }
