"""A worker killed (SIGKILL) in the middle of a job: nothing half-written, and the next worker
requeues the job and finishes it. Real processes against a separate embedded PostgreSQL."""

from __future__ import annotations

import signal
import time

import pytest

from tests.security.test_faults import fault_database, run_django, start_worker

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
    """A throwaway embedded server with the `faults` tenant (tests.security.test_faults)."""
    with fault_database("gw-worker-fault-") as (env, _, _folder):
        yield env


def test_a_worker_killed_mid_job_leaves_no_half_document_and_the_job_completes(fault_db):
    env = fault_db
    # the real model makes embedding take long enough to kill the worker in the middle of it
    env = {**env, "KB_EMBEDDING_PROVIDER": "local", "KB_EMBEDDING_BATCH_SIZE": "4"}
    queued = run_django(ENQUEUE, env)
    env["FAULT_JOB"] = str(queued["job"])
    assert queued["chunks"] > 40

    worker = start_worker(env)
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

    rerun = start_worker(env, "--batch")  # requeues the dead worker's job, runs it, exits
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
